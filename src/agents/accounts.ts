// Which account of its agent a run uses, when its environment says: the
// protocol's record names the variable whose folder holds its login (and its
// usage windows) — Claude Code's CLAUDE_CONFIG_DIR, Codex's CODEX_HOME. Runs
// of one provider spread over several logins report their quotas apart; a
// run that names none uses the agent's default login.

import type { Protocol } from '../core/types.js';
import { agentProtocol } from './registry.js';

/** The folder naming the run's account (its environment's), or null for the agent's default. */
export function accountOf(protocol: Protocol | null, env: Readonly<Record<string, string | undefined>>): string | null {
  const key = agentProtocol(protocol)?.accountEnv;
  const dir = key === undefined ? undefined : env[key];
  return dir === undefined || dir.trim() === '' ? null : dir;
}
