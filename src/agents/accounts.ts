// Which account of its agent a run uses, when its environment says: Claude
// Code keeps its login (and its usage windows) in CLAUDE_CONFIG_DIR, Codex in
// CODEX_HOME. Runs of one provider spread over several logins report their
// quotas apart; a run that names none uses the agent's default login.

import type { Protocol } from '../core/types.js';

const ACCOUNT_ENV: Partial<Record<Protocol, string>> = { claude: 'CLAUDE_CONFIG_DIR', codex: 'CODEX_HOME' };

/** The folder naming the run's account (its environment's), or null for the agent's default. */
export function accountOf(protocol: Protocol | null, env: Readonly<Record<string, string | undefined>>): string | null {
  const key = protocol === null ? undefined : ACCOUNT_ENV[protocol];
  const dir = key === undefined ? undefined : env[key];
  return dir === undefined || dir.trim() === '' ? null : dir;
}
