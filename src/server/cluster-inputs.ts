// Runs that wait for another machine's runs (run --after b:fix): every
// second, each such input not ended yet is read on its machine (run.resolve, as
// a command through cluster-calls.ts) and, once it has ended — or its machine
// no longer has it — the dependents waiting for it look again, as they do
// when a local input ends (completed: released to the queue; ended otherwise:
// canceled). A machine that does not answer leaves them waiting.

import type { InputState } from '../core/dependencies.js';
import { RemoteError } from '../protocol/errors.js';
import type { RunResolved } from '../protocol/results.js';
import type { ClusterCalls } from './cluster-calls.js';
import type { Dependencies } from './dependencies.js';

const EVERY_MS = 1000;

export class ClusterInputs {
  private readonly seen = new Map<string, InputState | { uuid: string; gone: true }>();
  private timer: NodeJS.Timeout | null = null;
  private readonly abort = new AbortController();
  private busy = false;

  constructor(
    private readonly p: {
      calls: Pick<ClusterCalls, 'forward'>;
      dependencies: Pick<Dependencies, 'readRemote' | 'remoteWaitedOn' | 'onEnded'>;
      log: (m: string) => void;
    },
  ) {
    p.dependencies.readRemote((id) => this.seen.get(id) ?? null);
  }

  start(): void {
    this.timer = setInterval(() => void this.round(), EVERY_MS);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      for (const id of this.p.dependencies.remoteWaitedOn()) {
        const state = await this.read(id);
        if (state === null) continue;
        this.seen.set(id, state);
        if ('gone' in state || state.status === 'ended') this.p.dependencies.onEnded(id);
      }
    } finally {
      this.busy = false;
    }
  }

  /** The input as its machine tells now; null when it cannot be asked (its machine away: wait on). */
  private async read(id: string): Promise<InputState | { uuid: string; gone: true } | null> {
    try {
      const got = await this.p.calls.forward('run.resolve', { ref: id }, this.abort.signal);
      if (!got || !('result' in got)) return null;
      const run = got.result as RunResolved;
      return { uuid: id, name: run.name, status: run.status, exit_reason: run.exit_reason };
    } catch (e) {
      if (e instanceof RemoteError && e.code === 'not_found' && /^no run /.test(e.message)) return { uuid: id, gone: true };
      return null;
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.abort.abort();
  }
}
