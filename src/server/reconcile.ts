// Start-up: memory rebuilt from the journal, then every run that held a slot
// is checked against the machine — alive (re-adopted with its lease, read
// from its journaled offset), exited while no supervisor watched (ended with
// its recorded status), or promoted but never spawned (launched now).

import { holdsSlot, transition } from '../core/run-state.js';
import { isLoopRun } from '../core/loop-policy.js';
import type { Run } from '../core/types.js';
import { admissionPolicy } from '../config/load.js';
import { runDir } from '../config/home.js';
import { LocalLimiter } from '../limiter/local.js';
import { findWrapper, isOurProcess, isWrapperOf, readExitStatus, readRunStatus } from '../runtime/launcher.js';
import { monoNow } from './clock.js';
import type { Parts } from './parts.js';

/** Memory is the journal's active runs; the limiter holds their queue places and slots. */
export function rebuild(p: Parts): Run[] {
  const active = p.store.journal.activeRuns();
  p.store.load(active);
  const holds = p.fleet.load();
  // In a cluster the limiter is shared: the cluster link resyncs it with this journal once it can.
  if (p.cluster) return active;
  const limiter = new LocalLimiter(admissionPolicy(p.config), holds);
  for (const run of active) {
    // A loop run never takes a slot: the loop's own max_concurrency is its cap (server/loops.ts).
    if (isLoopRun(run)) continue;
    if (run.status === 'queued') limiter.enqueueNow(toWaiter(run));
    else if (holdsSlot(run.status)) {
      limiter.adoptNow({ id: run.lease_id ?? `adopted-${run.uuid}`, uuid: run.uuid, provider: run.provider, workload: run.workload, granted_at: run.started_at ?? run.status_at });
    }
  }
  p.limiter = limiter;
  return active;
}

export function toWaiter(run: Run): { uuid: string; provider: string; workload: string; queue_seq: number; enqueued_at: number } {
  return { uuid: run.uuid, provider: run.provider, workload: run.workload, queue_seq: run.queue_seq, enqueued_at: run.created_at };
}

/**
 * One run that held a slot when the last supervisor let go. Called inside the
 * start-up unit of work: a thousand re-adopted runs are one commit, not a
 * thousand, between start and ready (a failed commit degrades, which lets go
 * of every watch made here).
 */
export function reconcile(p: Parts, run: Run): void {
  const dir = runDir(p.home, run.uuid);
  let pid = run.pid;
  // A crash right after a spawn can leave neither a journaled pid nor (for a
  // few instructions of the wrapper) a status file: look for the wrapper itself
  // before concluding that the run never started.
  if (pid === null) pid = readRunStatus(dir).pid ?? findWrapper(dir);
  if (pid !== null && isOurProcess(pid, run.pid === pid ? run.pid_start : null) && isWrapperOf(pid, dir)) {
    // Alive: re-adopt with its slot, reading output from the journaled offset.
    let adopted: Run = { ...run, pid };
    // For a run without a self-announcing protocol, being alive is being at work.
    if (adopted.status === 'starting' && (adopted.protocol === null || adopted.protocol === 'plain')) {
      adopted = transition(adopted, 'working', monoNow());
    }
    p.store.save(adopted, { type: 'adopted', data: { pid, status: adopted.status } });
    p.live.watch(adopted, null);
    if (run.kill_requested_at !== null) p.guards.signalKill(run.uuid, false);
    return;
  }
  const code = readExitStatus(dir);
  if (code !== null || pid !== null) {
    // Exited while we were away: apply the output we had not read, then end it.
    p.live.watch(run, null);
    p.ending.finish(run.uuid, code, code === null);
    return;
  }
  // Promoted but never spawned (the crash fell between the two): start it now.
  p.launching.launch([run]);
}
