// Input to a live agent: `send` (an idle run starts a turn), an answer to a
// request it waits on (approval-delivery.ts builds the line), and closing
// stdin when a one-shot turn is done (a prompt, its first input, is in the
// run's directory before it starts: the wrapper writes it, launching.ts). Bytes go
// through the run's FifoWriter, which writes as the pipe drains; what each
// protocol expects is the agents' business (agents/input.ts).

import fs from 'node:fs';
import path from 'node:path';
import { inputLine } from '../agents/input.js';
import { transition } from '../core/run-state.js';
import type { Run } from '../core/types.js';
import { runDir } from '../config/home.js';
import { FifoWriter, type Written } from '../runtime/fifo-writer.js';
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
    const line = inputLine(run.protocol, text, { session: run.session_id, seq: next.input_seq });
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
   * A two-way protocol's session opened while its attempt was starting: its
   * prompt, as the first turn (the reducer made the run `working` and
   * counted the input in the same unit of work as the answer it read, so a
   * restart that reads that answer again sends nothing). Recorded in
   * `inputs` at the launch already.
   */
  first(uuid: string): void {
    const run = this.p.store.get(uuid);
    if (!run || run.status === 'ended' || run.prompt === null) return;
    const line = inputLine(run.protocol, run.prompt, { session: run.session_id, seq: run.input_seq });
    this.p.store.event(uuid, { type: 'input_sent', data: { input_seq: run.input_seq, bytes: Buffer.byteLength(line) } });
    this.write(run, line);
  }

  /**
   * Keep an input's text in the run directory (`inputs`, one JSON line each,
   * the prompt first), with how much output there was before it, so a
   * transcript shows what was asked where it was asked. The journal keeps no
   * prompts; this file is the user's, like `out`. Best effort: a send is
   * never refused for it.
   */
  record(run: Run, text: string, first = false): void {
    this.append(run.uuid, { text }, first);
  }

  /**
   * A request's decision in the same record, where it came in the output
   * (the agent waits for it: right after the request): what the transcript
   * shows under the request. Best effort, as an input's.
   */
  recordDecision(uuid: string, decision: { ref: string; verdict: string; by: string; message: string | null; answers: string[] | null }): void {
    this.append(uuid, { decision });
  }

  private append(uuid: string, entry: object, first = false): void {
    const dir = runDir(this.p.home, uuid);
    try {
      let outBytes = 0;
      try {
        // The prompt comes before anything the agent says, however fast it spoke.
        if (!first) outBytes = fs.statSync(path.join(dir, 'out')).size;
      } catch {
        /* no output yet */
      }
      fs.appendFileSync(path.join(dir, 'inputs'), JSON.stringify({ ...entry, out_bytes: outBytes, at: new Date().toISOString() }) + '\n', { mode: 0o600 });
    } catch {
      /* the run directory is gone: nothing to show it in */
    }
  }

  /**
   * A line to a live run's agent that is no input of a turn (an answer to
   * its request): written in order with its other input; `done` hears
   * whether it reached the pipe. False when the run is not watched here, or
   * its agent reads no input from orcr (no FIFO): nothing was written.
   */
  deliver(uuid: string, line: string, done: Written): boolean {
    const run = this.p.store.get(uuid);
    if (!run || !fs.existsSync(path.join(runDir(this.p.home, uuid), 'in'))) return false;
    return this.write(run, line, done);
  }

  private write(run: Run, line: string, done?: Written): boolean {
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
    return writer?.write(line, done) ?? false;
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
