// How a run ends: its process exited (or vanished), so read what it said
// last, choose the exit reason, kill what it left behind, and end it — which
// frees its slot, its name and its live watch, and settles its waits.

import { exitReason, transition, type ExitFacts } from '../core/run-state.js';
import type { ExitReason } from '../core/types.js';
import { groupAlive, signalGroup, signalRun } from '../runtime/launcher.js';
import { monoNow } from './clock.js';
import type { Parts } from './parts.js';

export class Ending {
  constructor(private readonly p: Parts) {}

  /** The wrapper exited (or was found gone): end the run with the right reason. */
  finish(uuid: string, code: number | null, vanished: boolean): void {
    const { store, live: lives, progress } = this.p;
    const live = lives.get(uuid);
    const run = store.get(uuid);
    if (!run || (live && live.finished)) return;
    if (live) {
      live.finished = true;
      // Read the last lines before deciding: a result line may change the verdict.
      live.tailer.read();
      const tail = live.tailer.flushPartial();
      if (tail) progress.onLines(uuid, [tail]);
      progress.onEnd(uuid);
    }
    const current = store.get(uuid);
    if (!current) return;
    const state = lives.get(uuid)?.progress ?? live?.progress;
    lives.detach(uuid);
    // Leftovers in the group go; a run that was stopped also loses whatever it
    // started outside the group (tools in their own sessions). That needs a
    // scan of /proc, too dear for every normal exit.
    if (current.pid !== null) {
      if (current.kill_requested_at !== null || state?.stoppedFor) signalRun(uuid, current.pid, 'SIGKILL');
      else if (groupAlive(current.pid)) signalGroup(current.pid, 'SIGKILL');
    }
    const facts: ExitFacts = {
      code,
      killRequested: current.kill_requested_at !== null,
      stoppedFor: state?.stoppedFor ?? undefined,
      lastResultOk: state?.lastResultOk ?? null,
      lastResultDetail: current.status === 'blocked' && current.blocked_kind === 'login' ? 'login' : (state?.lastResultDetail ?? null),
      vanished: vanished && code === null,
    };
    const { reason, detail } = exitReason(current, facts);
    this.end(uuid, reason, detail, code);
  }

  /** End a run (any status) and free what it held: its slot or queue place, its name, its watch, its waits. */
  end(uuid: string, reason: ExitReason, detail: string | null, code: number | null): void {
    const { store } = this.p;
    const run = store.get(uuid);
    if (!run) return;
    const from = run.status;
    const next = transition(run, 'ended', monoNow(), { exit_reason: reason, exit_detail: detail, exit_code: code });
    store.transaction(() => {
      const lease = run.lease_id && this.p.cluster ? [{ type: 'lease_released' as const, data: { lease: run.lease_id, host: this.p.cluster.host } }] : [];
      store.save(next, [{ type: 'ended', data: { from, reason, detail, exit_code: code } }, ...lease]);
      store.afterCommit(() => {
        // Read at commit: a limiter rebuilt meanwhile (degrade) is the one to tell.
        this.p.background(this.p.limiter.cancel(uuid));
        this.p.live.detach(uuid);
        this.p.admission.schedule();
        this.p.waits.settle(uuid);
      });
    });
  }
}
