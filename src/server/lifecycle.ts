// The supervisor's lifecycle mode (core/mode) and what to do with an error
// off the request path. Every room that must not write, admit or start while
// degraded, paused, draining or stopping asks this one object; the
// lifecycle's rooms (start-up, degrading, stopping, and queueing's pause)
// change the mode, and degrading.ts says how a fault is handled.

import { admits, degradedReason, isDraining, isPaused, RUNNING, writes, type Mode } from '../core/mode.js';
import { monoNow } from './clock.js';

export interface FaultHandler {
  /** The journal refused a write: fail closed and rebuild once it is writable. */
  degrade(reason: string): void;
  /** An error off the request path: the journal or the cluster unavailable (fail closed), else a crash. */
  fail(e: unknown): void;
}

export class Lifecycle {
  mode: Mode = RUNNING;
  /** When this supervisor was made (hello and server status say it). */
  readonly startedAt = monoNow();
  private handler: FaultHandler | null = null;

  constructor(readonly log: (msg: string) => void) {}

  /** Set once, by the composition root: the degrading room handles faults. */
  handle(h: FaultHandler): void {
    this.handler = h;
  }

  writes(): boolean {
    return writes(this.mode);
  }

  admits(): boolean {
    return admits(this.mode);
  }

  get stopping(): boolean {
    return this.mode.kind === 'stopping';
  }

  get paused(): boolean {
    return isPaused(this.mode);
  }

  get draining(): boolean {
    return isDraining(this.mode);
  }

  get degraded(): string | null {
    return degradedReason(this.mode);
  }

  degrade(reason: string): void {
    this.handler?.degrade(reason);
  }

  fail(e: unknown): void {
    if (this.handler) this.handler.fail(e);
    else throw e;
  }

  /** Run work whose failure is handled by fail(). */
  background(work: Promise<unknown>): void {
    void work.catch((e: unknown) => this.fail(e));
  }
}
