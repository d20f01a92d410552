/**
 * Chapter 14: the selectors an editor shows beside a conversation, the permission mode (session/set_mode) and the
 * config options (session/set_config_option: the mode, the model, the small fast model).
 *
 * SessionSelectors sits between SessionServices (what every method shares: the modes and options as ACP shows them,
 * the trust check of a raised mode) and AcpServer (server.ts), which extends it.
 */
import * as acp from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { CONFIG_IDS } from './config-options.js';
import { isPermissionMode, SESSION_MODES } from './session-setup.js';
import { SessionServices } from './session-services.js';

/** session/set_mode and session/set_config_option, on the sessions SessionAdmin keeps. */
export class SessionSelectors extends SessionServices {
  /**
   * session/set_mode: switches the session's permission mode (its handle's modes) and answers {}. The client asked
   * for it, so no current_mode_update is sent.
   *
   * - An unknown session is refused (this.session, given).
   * - A mode that is not one of chapter 8's (isPermissionMode) is RequestError.invalidParams that names it and lists
   *   the modes there are, SESSION_MODES' ids: `default, acceptEdits, plan, bypassPermissions`.
   * - A raised mode in a folder the person has not trusted is refused by checkModeTrust (given).
   * - A refusal changes nothing.
   */
  setMode(params: acp.SetSessionModeRequest): acp.SetSessionModeResponse {
    // #region chapter 14: AcpServer.setMode
    // 1. The session (unknown ids throw, through this.session).
    // 2. A modeId that is not a permission mode (isPermissionMode): throw RequestError.invalidParams naming it and
    //    the modes there are.
    // 3. this.checkModeTrust(session, modeId) (given): it throws for a raised mode in an untrusted folder.
    // 4. handle.modes.setMode(modeId) and return {}. The client asked for it, so no current_mode_update is sent.
    const session = this.session(params.sessionId);
    if (!isPermissionMode(params.modeId)) {
      throw RequestError.invalidParams(
        undefined,
        `unknown mode ${JSON.stringify(params.modeId)}; the modes are ${SESSION_MODES.map((mode) => mode.id).join(', ')}`,
      );
    }
    this.checkModeTrust(session, params.modeId);
    session.handle.modes.setMode(params.modeId);
    return {};
    // #endregion
  }

  /**
   * session/set_config_option: the person picked a value in one of the selectors configOptionsOf shows (CONFIG_IDS).
   * Answers with every selector and what it is set to now.
   *
   * - Every one here is a selector: anything but a string is refused first, whatever was picked, with a message that
   *   says a `string` is expected.
   * - The mode is checked as session/set_mode checks it (one that does not exist named, with the modes there are; an
   *   untrusted folder's raise refused), then switched; no update is sent.
   * - The model and the small fast model must be one of those the session offers (a session without models has no
   *   such selector): a refusal names what was asked and lists what there is.
   * - Anything else is refused, naming what was asked and the selectors there are.
   * - Every refusal is invalid params (a RequestError, -32602), names what was asked and lists what there is,
   *   separated by commas, and changes nothing.
   */
  setConfigOption(params: acp.SetSessionConfigOptionRequest): acp.SetSessionConfigOptionResponse {
    // #region chapter 14: AcpServer.setConfigOption
    // 1. The session (this.session: unknown ids throw). Every option here is a selector: a value that is not a string
    //    (a boolean option's) → RequestError.invalidParams saying a string is expected.
    // 2. configId CONFIG_IDS.mode: the same checks as setMode (an unknown mode is invalid params naming it, then
    //    this.checkModeTrust), then handle.modes.setMode(value).
    // 3. CONFIG_IDS.model or CONFIG_IDS.smallFastModel: the session has no handle.models, or the value is not one of
    //    handle.models.choices → invalidParams naming the value (and the choices). Else handle.models.set('model' or
    //    'smallFastModel', value).
    // 4. Any other configId → invalidParams naming it and the ids there are (those of this.configOptionsOf(handle)).
    // 5. Return { configOptions: this.configOptionsOf(handle) }: every option with its value now.
    const session = this.session(params.sessionId);
    const { handle } = session;
    const value: unknown = params.value;
    if (typeof value !== 'string')
      throw RequestError.invalidParams(
        undefined,
        `config option ${JSON.stringify(params.configId)} takes one of its values (a string), not ${JSON.stringify(value)}`,
      );
    const ids = this.configOptionsOf(handle).map((option) => option.id);
    if (params.configId === CONFIG_IDS.mode) {
      if (!isPermissionMode(value))
        throw RequestError.invalidParams(
          undefined,
          `unknown mode ${JSON.stringify(value)}; the modes are ${SESSION_MODES.map((mode) => mode.id).join(', ')}`,
        );
      this.checkModeTrust(session, value);
      handle.modes.setMode(value);
    } else if (
      (params.configId === CONFIG_IDS.model || params.configId === CONFIG_IDS.smallFastModel) &&
      handle.models
    ) {
      if (!handle.models.choices.includes(value))
        throw RequestError.invalidParams(
          undefined,
          `unknown model ${JSON.stringify(value)} for ${params.configId}; the models are ${handle.models.choices.join(', ')}`,
        );
      handle.models.set(params.configId === CONFIG_IDS.model ? 'model' : 'smallFastModel', value);
    } else {
      throw RequestError.invalidParams(
        undefined,
        `unknown config option ${JSON.stringify(params.configId)}; the options are ${ids.join(', ')}`,
      );
    }
    return { configOptions: this.configOptionsOf(handle) };
    // #endregion
  }
}
