// A run's attempts: what happens when its agent stops on a usage limit. The
// run does not end: it goes back to the queue in its place, held with its
// provider, and its next attempt resumes the agent's own session with a
// continuation prompt. Pure: the server asks with the exit's verdict, then
// journals the answer.

import type { ExitReason, Protocol, Run } from './types.js';

/** One attempt of a run that went on past it (the run's last attempt is the run itself). */
export interface Attempt {
  /** 1 for the first. */
  n: number;
  started_at: number | null;
  ended_at: number;
  /** Why it stopped, as an exit would have said. */
  reason: ExitReason;
  detail: string | null;
  session_id: string | null;
  /** The prompt it was given. */
  prompt: string | null;
}

export type OnLimit = 'continue' | 'end';

/** What a provider (or the run) says about limits. */
export interface ContinuePolicy {
  on_limit: OnLimit;
  /** Continuations at most (the run then ends as the last attempt did). */
  max_continues: number;
  /** The prompt the resumed session gets. */
  prompt: string;
}

export const DEFAULT_CONTINUE_PROMPT = 'You were stopped by a usage limit, which has now reset. Continue where you left off.';
export const DEFAULT_MAX_CONTINUES = 5;

export type AfterExit =
  | { kind: 'end'; reason: ExitReason; detail: string | null; /** Why a limit did not continue, for the journal and `show`. */ note: string | null }
  | { kind: 'continue'; attempt: Attempt; argv: string[] };

/**
 * A usage limit continues the run when its policy says so, it has a session
 * to resume, its command can resume one, and it has continuations left; any
 * other exit ends it as the exit said.
 */
export function afterExit(run: Run, verdict: { reason: ExitReason; detail: string | null }, policy: ContinuePolicy | null, now: number): AfterExit {
  const end = (note: string | null): AfterExit => ({ kind: 'end', reason: verdict.reason, detail: verdict.detail, note });
  if (verdict.reason !== 'errored' || verdict.detail !== 'limit') return end(null);
  if (policy === null || policy.on_limit === 'end') return end(null);
  const done = run.attempts ?? [];
  if (done.length >= policy.max_continues) return end(`not continued: ${policy.max_continues} continuation${policy.max_continues === 1 ? '' : 's'} already (max_continues)`);
  if (!run.session_id) return end('not continued: the agent named no session to resume');
  const argv = resumeArgv(run.protocol, run.first_command ?? run.command, run.session_id);
  if (argv === null) return end(`not continued: orcr does not know how to resume a ${run.protocol ?? 'plain'} session of this command`);
  return {
    kind: 'continue',
    attempt: { n: done.length + 1, started_at: run.started_at, ended_at: now, reason: verdict.reason, detail: verdict.detail, session_id: run.session_id, prompt: run.prompt },
    argv,
  };
}

/**
 * The command that carries the agent's session on, from the run's first
 * command (its flags kept): `claude --resume ID …`, `gemini --resume ID …`,
 * `codex exec resume … ID -`. Null when the command is not one that can.
 */
export function resumeArgv(protocol: Protocol | null, command: readonly string[], session: string): string[] | null {
  const [program, ...rest] = command;
  if (program === undefined) return null;
  if (protocol === 'claude' || protocol === 'gemini') {
    // A resume already in the command is replaced, not doubled.
    const kept: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === '--resume' || rest[i] === '-r') i++;
      else if (rest[i]!.startsWith('--resume=')) continue;
      else kept.push(rest[i]!);
    }
    return [program, '--resume', session, ...kept];
  }
  if (protocol === 'codex') {
    const exec = rest.indexOf('exec');
    if (exec < 0 || rest[exec + 1] === 'resume') return null;
    const before = rest.slice(0, exec + 1);
    const after = rest.slice(exec + 1);
    // The prompt is the last positional (`-`: from stdin); the session goes just before it.
    const stdin = after.at(-1) === '-';
    const opts = stdin ? after.slice(0, -1) : after;
    return [program, ...before, 'resume', ...opts, session, ...(stdin ? ['-'] : [])];
  }
  return null;
}
