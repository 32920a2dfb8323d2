// A journal that cannot be written (disk full, read-only, I/O error), and
// what else goes wrong off the request path. Fail closed: let go of every
// process and timer, start nothing, and probe until a write succeeds; then
// start again exactly as after a restart, which re-adopts live agents and
// ends those that exited meanwhile. Reads go on: memory stays as the journal
// has it.

import { admissionPolicy, type Config } from '../config/load.js';
import { degraded } from '../core/mode.js';
import { JournalUnavailable } from '../journal/journal.js';
import { LocalLimiter } from '../limiter/local.js';
import { monoNow } from './clock.js';
import type { Launching } from './launching.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunStore } from './run-store.js';
import type { Slots } from './slots.js';
import type { StartUp } from './start-up.js';

export class Degrading {
  private probeTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly p: {
      store: Pick<RunStore, 'setMeta'>;
      lifecycle: Pick<Lifecycle, 'mode' | 'writes' | 'stopping'>;
      launching: Pick<Launching, 'invalidate'>;
      slots: Slots;
      config: () => Config;
      log: (msg: string) => void;
      startUp: Pick<StartUp, 'start' | 'letGo'>;
    },
  ) {}

  /** The journal cannot be written: fail closed, and probe until it can. */
  degrade(reason: string): void {
    const { lifecycle, launching, slots, store } = this.p;
    if (!lifecycle.writes()) return;
    lifecycle.mode = degraded(lifecycle.mode, reason);
    this.p.log(`journal unavailable, not promoting until it can be written: ${reason}`);
    this.p.startUp.letGo();
    launching.invalidate();
    // Memory stays as the journal has it (it changes only after a commit): reads go on
    // telling what runs and waits — `wait --all` and `server status` among them.
    if (!slots.cluster) slots.limiter = new LocalLimiter(admissionPolicy(this.p.config()));
    this.probeTimer = setInterval(() => {
      try {
        store.setMeta('probe', monoNow());
      } catch {
        return;
      }
      clearInterval(this.probeTimer!);
      this.probeTimer = null;
      this.p.log('journal writable again: resuming');
      try {
        this.p.startUp.start();
      } catch (e) {
        if (e instanceof JournalUnavailable) this.degrade(e.message);
        else throw e;
      }
    }, 1000);
    this.probeTimer.unref();
  }

  /** An error off the request path. */
  fail(e: unknown): void {
    const { slots } = this.p;
    if (e instanceof JournalUnavailable) this.degrade(e.message);
    else if ((e as Error)?.name === 'ClusterUnavailable' && slots.cluster) slots.cluster.down(e);
    else if (this.p.lifecycle.stopping) this.p.log(`while stopping: ${(e as Error)?.stack ?? String(e)}`);
    else
      // Anything else is a bug: the journal is the truth, so crash (serve.ts logs it) rather than run on.
      setImmediate(() => {
        throw e;
      });
  }

  /** A journal that cannot be written, as thrown: degrade, and say it was absorbed; anything else is not. */
  absorbs(e: unknown): e is JournalUnavailable {
    if (!(e instanceof JournalUnavailable)) return false;
    this.degrade(e.message);
    return true;
  }

  /** The supervisor stops: no more probing. */
  stop(): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
  }
}
