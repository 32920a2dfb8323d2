// The supervisor's rooms and the one handle they share. Each room is a class
// that holds one job's state and reaches the others through this handle
// (read at call time, so a room rebuilt after a degrade is the one used).
// The facade (supervisor.ts) builds it; nothing else does.

import type { Config } from '../config/load.js';
import type { Home } from '../config/home.js';
import type { Limiter } from '../limiter/limiter.js';
import type { ClusterLink } from './cluster-link.js';
import type { AdmissionLoop } from './admission-loop.js';
import type { Ending } from './ending.js';
import type { Fleet } from './fleet.js';
import type { Guards } from './guards.js';
import type { Launching } from './launching.js';
import type { Lending } from './lending.js';
import type { LiveRuns } from './live-runs.js';
import type { Loops } from './loops.js';
import type { Progress } from './progress.js';
import type { RunInput } from './run-input.js';
import type { Retention } from './retention.js';
import type { RunStore } from './run-store.js';
import type { RunTree } from './run-tree.js';
import type { Stalls } from './stalls.js';
import type { Waits } from './waits.js';
import type { Worktrees } from './worktrees.js';

export interface Parts {
  readonly home: Home;
  config: Config;
  readonly log: (msg: string) => void;
  readonly store: RunStore;
  /** Where slots come from: this process alone, or the cluster. Rebuilt from the journal after a degrade. */
  limiter: Limiter;
  /** Membership of a cluster (config `cluster`), or null for a machine on its own. */
  cluster: ClusterLink | null;
  readonly admission: AdmissionLoop;
  readonly launching: Launching;
  readonly live: LiveRuns;
  readonly progress: Progress;
  readonly guards: Guards;
  readonly stalls: Stalls;
  readonly input: RunInput;
  readonly fleet: Fleet;
  readonly ending: Ending;
  readonly waits: Waits;
  readonly retention: Retention;
  readonly tree: RunTree;
  readonly lending: Lending;
  readonly worktrees: Worktrees;
  readonly loops: Loops;
  /** Shutting down: start nothing, change nothing. */
  stopping: boolean;
  /** `orcr queue pause` (journaled): nothing is admitted; runs still queue. */
  paused: boolean;
  /** `orcr server stop --drain|--kill-agents`: nothing is admitted; the supervisor stops once no agent runs. */
  draining: boolean;
  /** Why the journal cannot be written, while it cannot: nothing is promoted or changed then. */
  degraded: string | null;
  /** The journal refused a write: fail closed and rebuild once it is writable. */
  degrade(reason: string): void;
  /** An error off the request path: the journal or the cluster unavailable (fail closed), else a crash. */
  fail(e: unknown): void;
  /** Run work whose failure is handled by fail(). */
  background(work: Promise<unknown>): void;
}
