// Input to a live agent: `send` (an idle run starts a turn) and closing stdin
// when a one-shot turn is done (a prompt, its first input, is in the run's
// directory before it starts: the wrapper writes it, launching.ts). Bytes go
// through the run's FifoWriter, which writes as the pipe drains; what each
// protocol expects is the agents' business (agents/input.ts).

import fs from 'node:fs';
import path from 'node:path';
import { inputLine } from '../agents/input.js';
import { transition } from '../core/run-state.js';
import type { Run } from '../core/types.js';
import { runDir } from '../config/home.js';
import { FifoWriter } from '../runtime/fifo-writer.js';
import { monoNow } from './clock.js';
import type { Home } from '../config/home.js';
import type { Fleet } from './fleet.js';
import type { Lifecycle } from './lifecycle.js';
import type { LiveRuns } from './live-runs.js';
import type { RunStore } from './run-store.js';
import { RemoteError } from '../protocol/errors.js';

export class RunInput {
  constructor(
    private readonly p: { home: Home; store: RunStore; live: Pick<LiveRuns, 'writer'>; fleet: Pick<Fleet, 'exceeded'>; lifecycle: Pick<Lifecycle, 'fail'> },
  ) {}

  /** `orcr send`: an idle run takes the text as its next turn. */
  send(uuid: string, text: string): Run {
    const run = this.p.store.get(uuid);
    if (!run) throw new RemoteError('not_idle', 'the run has ended; it takes no input');
    if (run.status !== 'idle') throw new RemoteError('not_idle', `the run is ${run.status}, not idle: input goes only to an idle run`);
    if (this.p.fleet.exceeded) throw new RemoteError('refused', 'the fleet budget is exceeded (budgets.fleet): no new turns');
    const next = transition(run, 'working', monoNow(), { input_seq: run.input_seq + 1, limited_at: null });
    const line = inputLine(run.protocol, text);
    this.p.store.save(next, [
      { type: 'working', data: { from: 'idle', input_seq: next.input_seq } },
      { type: 'input_sent', data: { input_seq: next.input_seq, bytes: Buffer.byteLength(line) } },
    ]);
    this.record(next, text);
    this.write(next, line);
    this.p.store.emit({ kind: 'guard', uuid });
    return next;
  }

  /**
   * Keep an input's text in the run directory (`inputs`, one JSON line each,
   * the prompt first), with how much output there was before it, so a
   * transcript shows what was asked where it was asked. The journal keeps no
   * prompts; this file is the user's, like `out`. Best effort: a send is
   * never refused for it.
   */
  record(run: Run, text: string, first = false): void {
    const dir = runDir(this.p.home, run.uuid);
    try {
      let outBytes = 0;
      try {
        // The prompt comes before anything the agent says, however fast it spoke.
        if (!first) outBytes = fs.statSync(path.join(dir, 'out')).size;
      } catch {
        /* no output yet */
      }
      fs.appendFileSync(path.join(dir, 'inputs'), JSON.stringify({ text, out_bytes: outBytes, at: new Date().toISOString() }) + '\n', { mode: 0o600 });
    } catch {
      /* the run directory is gone: nothing to show it in */
    }
  }

  private write(run: Run, line: string): void {
    // Until the wrapper has made and opened the FIFO the writer retries; past
    // the pipe's 64 KiB it writes the rest as the agent reads.
    const writer = this.p.live.writer(
      run.uuid,
      () =>
        new FifoWriter(path.join(runDir(this.p.home, run.uuid), 'in'), {
          onError: (e) => {
            try {
              this.p.store.event(run.uuid, { type: 'input_failed', data: { error: e.message } });
            } catch (err) {
              this.p.lifecycle.fail(err);
            }
          },
        }),
    );
    writer?.write(line);
  }

  /** Ask the wrapper to close the agent's stdin (EOF), ending a one-shot agent. */
  close(run: Run): void {
    if (run.pid === null) return;
    try {
      process.kill(run.pid, 'SIGUSR1');
    } catch {
      /* already gone */
    }
  }
}
