// A run whose agent stopped on a usage limit, or whose attempt failed for a
// passing reason with retries left, goes back to the queue instead of ending
// (core/attempts.ts decides): in its place (its queue_seq), a limit's run
// held with its provider until the hold lifts, a retry after its backoff; its
// next attempt the agent's own resume command on the same session (a retry
// without one: its first command again). Its row becomes `queued` with the
// attempt recorded, in one unit of work with a `continued` or `retrying`
// event; once that commits, its slot goes back and its queue place is taken
// again — the `requeue` effect, for the interpreter.

import { agentProtocol } from '../agents/registry.js';
import {
  afterExit,
  DEFAULT_CONTINUE_PROMPT,
  DEFAULT_MAX_CONTINUES,
  DEFAULT_RETRY_PROMPT,
  waitingDeadline,
  type AfterExit,
  type ContinuePolicy,
} from '../core/attempts.js';
import { transition } from '../core/run-state.js';
import type { ExitReason, Run } from '../core/types.js';
import type { Config } from '../config/load.js';
import { setLongTimeout, type LongTimeout } from '../runtime/long-timer.js';
import type { ApprovalBook } from './approval-book.js';
import { monoNow } from './clock.js';
import type { Ending } from './ending.js';
import type { RunStore } from './run-store.js';

export class Continuing {
  /** Runs waiting between attempts whose --timeout falls due before they may start again: one timer each. */
  private readonly deadlines = new Map<string, LongTimeout>();

  constructor(
    private readonly d: {
      store: RunStore;
      ending: Pick<Ending, 'end'>;
      approvals: Pick<ApprovalBook, 'withdrawAll'>;
      config: () => Config;
      host: () => string | null;
      log: (line: string) => void;
    },
  ) {}

  /**
   * A run waiting between attempts ends `timeout` when its --timeout passes
   * (it covers the whole run), not only once it would start again: a hold
   * can last days. Armed when it is queued again and, after a restart, for
   * every run found so waiting.
   */
  watch(run: Run): void {
    const at = waitingDeadline(run);
    this.deadlines.get(run.uuid)?.clear();
    this.deadlines.delete(run.uuid);
    if (at === null) return;
    const due = (): void => {
      this.deadlines.delete(run.uuid);
      const now = this.d.store.get(run.uuid);
      if (!now || waitingDeadline(now) === null) return;
      this.d.ending.end(run.uuid, 'timeout', null, null, 'its --timeout passed while it waited to be started again');
    };
    this.deadlines.set(run.uuid, setLongTimeout(due, Math.max(0, at - monoNow()), { unref: true }));
  }

  /** The supervisor stops: no deadline fires into a journal that is closing. */
  stop(): void {
    for (const t of this.deadlines.values()) t.clear();
    this.deadlines.clear();
  }

  /**
   * The run's policy: its own --on-limit / --max-continues / --retries, else
   * its provider's; the exit codes its workload and provider list as terminal; `on_limit` by default `continue` where orcr knows how to
   * resume the command's sessions and `end` where not (a plain command); how its protocol resumes one (its record's).
   */
  policy(run: Run): ContinuePolicy {
    const p = this.provider(run);
    const resume = agentProtocol(run.protocol)?.resume ?? null;
    const resumable = resume !== null && resume(run.first_command ?? run.command, 'x') !== null;
    return {
      on_limit: run.on_limit ?? p?.on_limit ?? (resumable ? 'continue' : 'end'),
      max_continues: run.max_continues ?? p?.max_continues ?? DEFAULT_MAX_CONTINUES,
      prompt: p?.continue_prompt ?? DEFAULT_CONTINUE_PROMPT,
      retries: run.retries,
      terminal_exit_codes: [...(this.workload(run)?.terminal_exit_codes ?? []), ...(p?.terminal_exit_codes ?? [])],
      resume,
    };
  }

  private workload(run: Run): Config['concurrency']['workloads'][string] | undefined {
    const workloads = this.d.config().concurrency.workloads;
    return Object.hasOwn(workloads, run.workload) ? workloads[run.workload] : undefined;
  }

  /** The run's provider's config, when it has one. */
  private provider(run: Run): Config['providers'][string] | undefined {
    const providers = this.d.config().providers;
    return Object.hasOwn(providers, run.provider) ? providers[run.provider] : undefined;
  }

  /**
   * What an interactive run a limit left idle (its agent alive) is told when
   * its provider's hold lifts, or null when it is to be left alone
   * (`on_limit: end`). Its agent needs no resuming, so `continue` is the
   * default whatever its command.
   */
  promptAfterHold(run: Run): string | null {
    const p = this.provider(run);
    return (run.on_limit ?? p?.on_limit ?? 'continue') === 'continue' ? (p?.continue_prompt ?? DEFAULT_CONTINUE_PROMPT) : null;
  }

  /** What the exit's verdict comes to for this run: its end, or its next attempt (then queued: see continueRun). */
  decide(run: Run, verdict: { reason: ExitReason; detail: string | null; code?: number | null }): AfterExit {
    return afterExit(run, verdict, this.policy(run), Date.now(), Math.random());
  }

  /**
   * Back to the queue, the attempt recorded, its command the resume command
   * (a retry without a session to resume: its first command and prompt
   * again); a retry waits out its backoff (retry_at) before it takes its
   * queue place.
   */
  continueRun(uuid: string, after: Exclude<AfterExit, { kind: 'end' }>, code: number | null): void {
    const { store } = this.d;
    const run = store.get(uuid);
    if (!run) return;
    const from = run.status;
    const policy = this.policy(run);
    const retry = after.kind === 'retry';
    const fresh = retry && !after.resumes;
    const firstPrompt = run.attempts[0]?.prompt ?? run.prompt;
    const now = Date.now();
    const next = transition(run, 'queued', monoNow(), {
      attempts: [...run.attempts, after.attempt],
      first_command: run.first_command ?? run.command,
      command: after.argv,
      prompt: fresh ? firstPrompt : retry ? DEFAULT_RETRY_PROMPT : policy.prompt,
      pid: null,
      pid_start: null,
      lease_id: null,
      stalled_since: null,
      cost_base: run.cost_reported ?? run.cost_base,
      retry_at: retry ? now + after.delay_ms : null,
      // The next attempt's exit is read by its own result and stop (a stall's is retried), not this one's.
      last_result: null,
      stop_requested: null,
      ...(fresh ? { session_id: null } : {}),
    });
    const host = this.d.host();
    const n = after.attempt.n + 1;
    const a = after.attempt;
    store.transaction(() => {
      // The attempt's agent is gone: its next one is not asked again (a resumed session never is).
      this.d.approvals.withdrawAll(uuid, 'requeued');
      const lease = run.lease_id && host !== null ? [{ type: 'lease_released' as const, data: { lease: run.lease_id, host } }] : [];
      const event = retry
        ? {
            type: 'retrying' as const,
            data: {
              from,
              attempt: n,
              of: run.retries + 1,
              why: after.why,
              reason: a.reason,
              detail: a.detail,
              delay_ms: after.delay_ms,
              resumes: after.resumes,
              exit_code: code,
            },
          }
        : { type: 'continued' as const, data: { from, attempt: n, reason: a.reason, detail: a.detail, session_id: a.session_id, exit_code: code } };
      store.save(next, [event, ...lease]);
      store.emit({ kind: 'requeue', uuid }, { kind: 'settle', uuid });
    });
    this.watch(next);
    this.d.log(
      retry
        ? `run ${run.name} (${uuid}) failed for a passing reason (${after.why}): retry ${n - 1} of ${run.retries} in ${Math.round(after.delay_ms / 100) / 10}s, ${after.resumes ? `resuming session ${a.session_id}` : 'afresh'}`
        : `run ${run.name} (${uuid}) stopped on a usage limit: queued again to continue session ${a.session_id} (attempt ${n})`,
    );
  }
}
