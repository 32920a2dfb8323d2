// Taking a run over: the agent's own interactive CLI, resuming the run's
// session in the run's folder. Pure: which command, or why there is none.
// How each CLI opens a session is its protocol record's (its preset's
// `takeover`); a run of the built-in preset of that name is taken over.

import path from 'node:path';
import { AGENT_PROTOCOLS, presetProtocol } from '../agents/registry.js';
import type { PublicRun } from './methods.js';

export interface TakeoverCommand {
  file: string;
  args: string[];
  cwd: string;
}

/** "Claude Code, Codex and Gemini": the CLIs that can be. */
function takenOver(): string {
  // One CLI may speak two protocols (Codex's exec and app-server; Gemini's stream-json and ACP): named once.
  const titles = [...new Set(AGENT_PROTOCOLS.flatMap((p) => (p.preset?.takeover ? [p.preset.takeover.title] : [])))];
  return titles.length > 1 ? `${titles.slice(0, -1).join(', ')} and ${titles.at(-1)}` : (titles[0] ?? 'no');
}

/**
 * The command that resumes `run`'s session, or why it cannot be: the run's own
 * binary when it is that CLI (a pinned path stays pinned), else the CLI's name
 * on PATH.
 */
export function takeoverCommand(run: PublicRun): TakeoverCommand | { why: string } {
  const cli = run.provider;
  const preset = presetProtocol(cli)?.preset;
  if (!preset?.takeover) return { why: `${run.name} runs ${cli}: o takes over ${takenOver()} runs only` };
  if (!run.session_id) return { why: `${run.name} has no session id yet (its agent has not said one): nothing to resume` };
  const program = preset.command[0] ?? cli;
  const own = run.command[0];
  const file = own && path.basename(own) === program ? own : program;
  return { file, args: preset.takeover.args(run.session_id), cwd: run.cwd };
}
