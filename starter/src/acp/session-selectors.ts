/**
 * Chapter 14: the selectors an editor shows beside a conversation, the permission mode (session/set_mode) and the
 * config options (session/set_config_option: the mode, the model, the small fast model).
 *
 * SessionSelectors sits between SessionServices (what every method shares: the modes and options as ACP shows them,
 * the trust check of a raised mode) and AcpServer (server.ts), which extends it.
 */
import { TodoError } from '../todo.js';
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.setMode');
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
    // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
    throw new TodoError(14, 'AcpServer.setConfigOption');
    // #endregion
  }
}
