/** What claude-compare finds: each agent's outcome of a case, and the verdict on the pair. */
import type { Case } from './case.js';

export type Agent = 'claude' | 'kit';
export type Verdict = 'agree' | 'kit stricter' | 'kit LOOSER' | 'claude failed' | 'kit failed';

/** What one agent's run of a case came to. */
export interface Outcome {
  /** The run started and sent the call's result back to the model. */
  started: boolean;
  /** Why it did not (exit code, timeout, no request). */
  failure?: string;
  /** The effect happened. */
  effect: boolean;
  /** The call's tool result as the model saw it: error or not, and its first words. */
  result?: { isError: boolean; text: string };
  /** Claude Code's permission_denials named the call. */
  denied?: boolean;
  /** The agent sent the fake server at least one request. */
  reached?: boolean;
}

export interface Row {
  item: Case;
  claude: Outcome;
  kit: Outcome;
  verdict: Verdict;
}
