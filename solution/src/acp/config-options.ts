/**
 * Chapter 14: the session's settings an editor shows as selectors (ACP's config options).
 *
 * ACP v1 lets an agent list settings the person may change while a session is open: each one an id, a name, a
 * category (`mode`, `model`, ...) and the values to pick from. The editor draws a selector for each and sends
 * `session/set_config_option` when the person picks a value. This kit offers three: the permission mode (chapter 8's
 * four, the same as session/set_mode), the main model, and the small fast model (the one compaction and the retry
 * fallback use).
 *
 * A model switch reaches the provider through `switchableProvider`: a request that names no model is sent with the
 * session's main model, and one that names the small fast model the session started with (compaction, a fallback) is
 * sent with the small fast model chosen now. The agent, its hooks and the factory do not change.
 */
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import { ESCALATING_MODES } from '../capstone/trust.js';
import type { PermissionMode } from '../permissions/evaluate.js';
import type { ModeControl } from '../planning/plan-mode.js';
import type { ModelRequest, Provider } from '../provider.js';
import { SESSION_MODES } from './session-setup.js';

/** The ids of the config options. */
export const CONFIG_IDS = { mode: 'mode', model: 'model', smallFastModel: 'small_fast_model' } as const;

/** Which of a session's models: the main one, or the small fast one. */
export type ModelRole = 'model' | 'smallFastModel';

/** A session's models, which the person may switch while it is open. */
export interface ModelControl {
  readonly model: string;
  readonly smallFastModel: string;
  /** The models the person may pick from (both current ones among them). */
  readonly choices: readonly string[];
  set(role: ModelRole, model: string): void;
}

/** A model control that starts at `model` and `smallFastModel` (the main model when there is none). */
export function modelControl(
  models: { model: string; smallFastModel?: string },
  choices: readonly string[] = [],
): ModelControl {
  const current = { model: models.model, smallFastModel: models.smallFastModel ?? models.model };
  return {
    get model() {
      return current.model;
    },
    get smallFastModel() {
      return current.smallFastModel;
    },
    choices: [...new Set([current.model, current.smallFastModel, ...choices])],
    set: (role, model) => void (current[role] = model),
  };
}

/**
 * `provider`, sending each request with the model `control` holds now: the main model when the request names none,
 * the small fast model when it names `startSmall` (the small fast model the hooks were built with).
 */
export function switchableProvider(
  provider: Provider,
  control: ModelControl,
  startSmall: string | undefined,
): Provider {
  const route = (request: ModelRequest): ModelRequest => {
    if (request.model === undefined) return { ...request, model: control.model };
    if (request.model === startSmall) return { ...request, model: control.smallFastModel };
    return request;
  };
  return {
    name: provider.name,
    imageInput: provider.imageInput,
    complete: (request) => provider.complete(route(request)),
    ...(provider.stream ? { stream: (request: ModelRequest) => provider.stream!(route(request)) } : {}),
  };
}

/** Whether switching to `mode` raises what runs without a question (bypassPermissions, acceptEdits). */
export function raisesMode(mode: PermissionMode): boolean {
  return ESCALATING_MODES.includes(mode);
}

/** The session's config options with their current values: the mode, and the two models when the session has them. */
export function configOptionsOf(modes: ModeControl, models: ModelControl | undefined): SessionConfigOption[] {
  const choices = (current: string) => (models ? models.choices : [current]).map((id) => ({ value: id, name: id }));
  return [
    {
      id: CONFIG_IDS.mode,
      name: 'Mode',
      description: 'What the agent may do without asking',
      category: 'mode',
      type: 'select',
      currentValue: modes.mode,
      options: SESSION_MODES.map((mode) => ({
        value: mode.id,
        name: mode.name,
        description: mode.description ?? null,
      })),
    },
    ...(models
      ? ([
          {
            id: CONFIG_IDS.model,
            name: 'Model',
            description: 'The model that answers',
            category: 'model',
            type: 'select',
            currentValue: models.model,
            options: choices(models.model),
          },
          {
            id: CONFIG_IDS.smallFastModel,
            name: 'Small fast model',
            description: 'The model that summarises a long session (and answers when the main one is overloaded)',
            category: 'model',
            type: 'select',
            currentValue: models.smallFastModel,
            options: choices(models.smallFastModel),
          },
        ] satisfies SessionConfigOption[])
      : []),
  ];
}
