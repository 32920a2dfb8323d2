// `wait`, for every surface (the CLI's `orcr wait`, the SDK, `orcr mcp`): one
// code path, so what the supervisor is told is the same whoever asks.
// - Its own connection: the supervisor drops a wait with its connection, so
//   closing it is how a caller stops waiting (an AbortSignal), and a wait that
//   lends a slot gives it back at once.
// - The caller's run (its ORCR_RUN): a run waiting on its own descendants
//   lends them its slot (the deadlock guard); without it, a parent under
//   concurrency.max 1 waits on queued children for ever.
// - A supervisor restart drops the connection; the wait resumes with the
//   supervisor that comes back, and never starts one itself. A deliberate
//   stop ends it (code `stopped`).

import type { Home } from '../config/home.js';
import { RemoteError } from '../protocol/errors.js';
import { Client } from './client.js';
import type { Settled } from './methods.js';

export interface WaitTargets {
  refs?: string[];
  all?: boolean;
  /** null: no timeout. */
  timeout_ms: number | null;
}

/** One per run: `token` is `turn_complete`, an exit reason, `blocked`, `pending` (the timeout ran out) or `not_found`. */
export type { Settled };

export interface WaitOptions {
  /** The waiting process's run (its ORCR_RUN), if it is one. */
  callerRun?: string;
  /** Start a supervisor for the first connection when none runs (default true); reconnecting never does. */
  autoStart?: boolean;
  /** Aborting stops the wait: it rejects with the signal's reason and the supervisor drops its side. */
  signal?: AbortSignal;
}

export async function waitRuns(home: Home, targets: WaitTargets, opts: WaitOptions = {}): Promise<Settled[]> {
  const { signal } = opts;
  signal?.throwIfAborted();
  const started = Date.now();
  const caller_env = opts.callerRun ? { ORCR_RUN: opts.callerRun } : undefined;
  let c = await Client.connect(home, { autoStart: opts.autoStart ?? true });
  for (;;) {
    const conn = c;
    const abort = (): void => conn.close();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      signal?.throwIfAborted();
      const left = targets.timeout_ms === null ? null : Math.max(0, targets.timeout_ms - (Date.now() - started));
      const res = await conn.call('run.wait', { ...targets, timeout_ms: left, caller_env });
      return res.settled;
    } catch (e) {
      signal?.throwIfAborted();
      // The connection lost (a restart): waited through. An answer `unavailable` (another machine that
      // stopped answering, told by this supervisor) is said, not asked again.
      if (!(e instanceof RemoteError) || e.code !== 'unavailable' || !conn.gone) throw e;
    } finally {
      signal?.removeEventListener('abort', abort);
      conn.close();
    }
    c = await Client.reconnect(home);
  }
}
