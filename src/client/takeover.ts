// Taking a run over: the agent's own interactive CLI, resuming the run's
// session in the run's folder. Pure: which command, or why there is none.

import path from 'node:path';
import type { PublicRun } from './methods.js';

export interface TakeoverCommand {
  file: string;
  args: string[];
  cwd: string;
}

/** How each CLI resumes a session by id. */
const RESUME: Record<string, (id: string) => string[]> = {
  claude: (id) => ['--resume', id],
  codex: (id) => ['resume', id],
  gemini: (id) => ['--resume', id],
};

/**
 * The command that resumes `run`'s session, or why it cannot be: the run's own
 * binary when it is that CLI (a pinned path stays pinned), else the CLI's name
 * on PATH.
 */
export function takeoverCommand(run: PublicRun): TakeoverCommand | { why: string } {
  const cli = run.provider;
  const resume = RESUME[cli];
  if (!resume) return { why: `${run.name} runs ${cli}: o takes over Claude Code, Codex and Gemini runs only` };
  if (!run.session_id) return { why: `${run.name} has no session id yet (its agent has not said one): nothing to resume` };
  const own = run.command[0];
  const file = own && path.basename(own) === cli ? own : cli;
  return { file, args: resume(run.session_id), cwd: run.cwd };
}
