// Start-up: memory rebuilt from the journal, then every run that held a slot
// is checked against the machine — alive (re-adopted with its lease, read
// from its journaled offset), exited while no supervisor watched (ended with
// its recorded status), or promoted but never spawned (launched now).

import { holdsSlot, transition } from '../core/run-state.js';
import { isLoopRun } from '../core/loop-policy.js';
import { toWaiter } from '../core/run-record.js';
import type { Dependencies } from './dependencies.js';
import { PLAIN_PROTOCOL, type Run } from '../core/types.js';
import { admissionPolicy, type Config } from '../config/load.js';
import { runDir, type Home } from '../config/home.js';
import { LocalLimiter } from '../limiter/local.js';
import { findWrapper, forgetEarlierExit, isOurProcess, isWrapperOf, readRunStatus } from '../runtime/launcher.js';
import { Unreadable } from '../runtime/os-limits.js';
import { monoNow } from './clock.js';
import type { Exits } from './exits.js';
import type { Fleet } from './fleet.js';
import type { Launching } from './launching.js';
import type { LiveRuns } from './live-runs.js';
import type { RunStore } from './run-store.js';
import type { Slots } from './slots.js';
import type { Stops } from './stops.js';

export interface Reconciling {
  home: Home;
  store: RunStore;
  slots: Slots;
  config: () => Config;
  fleet: Pick<Fleet, 'load' | 'keepsOut'>;
  live: Pick<LiveRuns, 'watch'>;
  stops: Pick<Stops, 'signal'>;
  exits: Pick<Exits, 'onExit'>;
  launching: Pick<Launching, 'launch'>;
  dependencies: Pick<Dependencies, 'load'>;
}

/** Memory is the journal's active runs; the limiter holds their queue places and slots. */
export function rebuild(p: Reconciling): Run[] {
  const active = p.store.reader.activeRuns();
  p.store.load(active);
  const holds = p.fleet.load();
  // Dependents still waiting for their inputs stay out of the limiter (server/dependencies.ts).
  const held = p.dependencies.load(active);
  // In a cluster the limiter is shared: the cluster link resyncs it with this journal once it can.
  if (p.slots.cluster) return active;
  const limiter = new LocalLimiter(admissionPolicy(p.config()), holds);
  for (const run of active) {
    // A loop run never takes a slot: the loop's own max_concurrency is its cap (server/loops.ts).
    if (isLoopRun(run)) continue;
    if (run.status === 'queued') {
      // So do the runs of an account held (pause_at) until it lifts.
      if (!held.has(run.uuid) && !p.fleet.keepsOut(run)) limiter.enqueueNow(toWaiter(run));
    } else if (holdsSlot(run.status)) {
      limiter.adoptNow({
        id: run.lease_id ?? `adopted-${run.uuid}`,
        uuid: run.uuid,
        provider: run.provider,
        workload: run.workload,
        granted_at: run.started_at ?? run.status_at,
      });
    }
  }
  p.slots.limiter = limiter;
  return active;
}

/**
 * One run that held a slot when the last supervisor let go. Called inside the
 * start-up unit of work: a thousand re-adopted runs are one commit, not a
 * thousand, between start and ready (a failed commit degrades, which lets go
 * of every watch made here).
 */
export function reconcile(p: Reconciling, run: Run): void {
  const dir = runDir(p.home, run.uuid);
  const earlier = run.attempts.at(-1);
  if (earlier !== undefined && run.pid === null) forgetEarlierExit(dir, earlier.ended_at);
  let pid = run.pid;
  // A crash right after a spawn can leave neither a journaled pid nor (for a
  // few instructions of the wrapper) a status file: look for the wrapper itself
  // before concluding that the run never started.
  if (pid === null) pid = statusPid(dir) ?? findWrapper(dir);
  if (pid !== null && isOurProcess(pid, run.pid === pid ? run.pid_start : null) && isWrapperOf(pid, dir)) {
    // Alive: re-adopt with its slot, reading output from the journaled offset.
    const adopted: Run = atWork({ ...run, pid });
    p.store.save(adopted, { type: 'adopted', data: { pid, status: adopted.status } });
    p.live.watch(adopted, null);
    p.store.emit({ kind: 'guard', uuid: run.uuid });
    if (run.kill_requested_at !== null) p.stops.signal(run.uuid, false);
    return;
  }
  let code: number | null;
  let ran: boolean;
  try {
    const st = readRunStatus(dir);
    // Its wrapper never started the agent (it could not fork): the launch is tried again.
    if (st.unstarted && run.kill_requested_at === null) {
      const back: Run = { ...run, status: 'starting', status_at: monoNow(), pid: null, pid_start: null };
      p.store.save(back, { type: 'launch_retried', data: { pid: run.pid, limit: 'EAGAIN' } });
      p.launching.launch([back]);
      return;
    }
    code = st.exit;
    ran = st.ran;
  } catch (e) {
    if (!(e instanceof Unreadable)) throw e;
    // Gone, but what it said cannot be read now: watched, its end is read once it can be (live-runs retries).
    p.live.watch(run, null);
    return;
  }
  if (code !== null || pid !== null) {
    // Exited while we were away: apply the output we had not read, then end it.
    // An agent that ran, of a run still `starting` for want of the launch's record, had started.
    const found = ran ? atWork(run) : run;
    if (found !== run) p.store.save(found, { type: 'working', data: { from: 'starting', ...(pid !== null ? { pid } : {}) } });
    p.live.watch(found, null);
    p.exits.onExit(run.uuid, code, code === null);
    return;
  }
  // Promoted but never spawned (the crash fell between the two): start it now.
  p.launching.launch([run]);
}

/**
 * A run without a self-announcing protocol is at work once its agent runs
 * (launching records it so as it spawns; a crash between the two leaves it
 * `starting`).
 */
function atWork(run: Run): Run {
  return run.status === 'starting' && (run.protocol === null || run.protocol === PLAIN_PROTOCOL) ? transition(run, 'working', monoNow()) : run;
}

function statusPid(dir: string): number | null {
  try {
    return readRunStatus(dir).pid;
  } catch (e) {
    if (e instanceof Unreadable) return null;
    throw e;
  }
}
