// The full-screen views read from the supervisor while they show: the spend
// view (`$`) and the loops view (`@`), read when they open and on the
// controller's clock after, and the loops' own changes (`p`, `f`), each
// followed by a fresh read so that the view shows it at once.

import type { Params, Result } from '../../client/methods.js';
import type { ViewsPort } from '../input/actions.js';
import { normalizeLoops, type LoopsView } from '../state/loops.js';
import { normalizeSpend, type Spend } from '../state/spend.js';
import { error, info } from '../state/store.js';
import type { Session } from './session.js';

export class ViewReads implements ViewsPort {
  constructor(private readonly session: Session) {}

  spendOpened(): void {
    void this.loadSpend().then((spend) => spend && this.session.set({ spend }));
  }

  loopsOpened(): void {
    void this.loadLoops().then((loops) => loops && this.session.set({ loops }));
  }

  async loadSpend(): Promise<Spend | null> {
    const c = this.session.client;
    if (!c) return null;
    try {
      return normalizeSpend(await c.call('spend'));
    } catch (e) {
      this.session.set(error(`spend: ${(e as Error).message}`, Date.now()));
      return null;
    }
  }

  async loadLoops(): Promise<LoopsView | null> {
    const c = this.session.client;
    if (!c) return null;
    try {
      return normalizeLoops(await c.call('loop.list'), Date.now());
    } catch (e) {
      this.session.set(error(`loops: ${(e as Error).message}`, Date.now()));
      return null;
    }
  }

  pauseLoop(name: string, paused: boolean): void {
    void this.loopCall('loop.pause', { name, paused }, () => `${name} ${paused ? 'paused: it fires no more until resumed (p)' : 'resumed'}`);
  }

  fireLoop(name: string): void {
    void this.loopCall('loop.start', { name }, (r) => {
      // The same rules as a scheduled fire: at its concurrency a fire may wait or be dropped.
      if (r.action === 'started') return `${name} fired: ${r.name ?? 'a run'} started`;
      if (r.action === 'skipped') return `${name} at its concurrency (overlap skip): the fire was dropped`;
      return `${name} at its concurrency: the fire waits for a place (${r.action ?? 'pending'})`;
    });
  }

  /** A loop change, then the view read again so that it shows at once. */
  private async loopCall<M extends 'loop.pause' | 'loop.start'>(method: M, params: Params<M>, said: (result: Result<M>) => string): Promise<void> {
    const c = this.session.client;
    if (!c) return void this.session.set(error('not connected to the supervisor', Date.now()));
    try {
      const result = await (c.call as (m: M, p: Params<M>) => Promise<Result<M>>)(method, params);
      const loops = await this.loadLoops();
      this.session.set({ ...info(said(result), Date.now()), ...(loops ? { loops } : {}) });
    } catch (e) {
      this.session.set(error(`${String(params.name)}: ${(e as Error).message}`, Date.now()));
    }
  }
}
