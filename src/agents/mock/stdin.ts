// The mock agent's stdin in its interactive scenarios: inputs queued for the
// turns to come, in order, and an answer handed to the request that waits for
// it (an answer to any other request is let go, as the real CLI does). A
// request is waited on before it is printed, so no answer, however quick,
// arrives before anyone listens. A JSON-RPC server's requests that are no
// turn are served as they are read.

import { createInterface } from 'node:readline';
import type { Reply, StdinLine } from './render.js';

export interface Stdin {
  /** The next input, or null once stdin has closed and none is left. */
  nextInput(): Promise<string | null>;
  /** The reply to request `ref`, or `ifClosed` when stdin closes first (or has). */
  answer(ref: string, ifClosed: Reply): Promise<Reply>;
  readonly closed: boolean;
}

/** A JSON-RPC server's own: what it prints and says as it reads, and what it does when stdin closes. */
export interface ServerOut {
  print(lines: string[]): void;
  warn(stderr: string): void;
  closed(): void;
}

/** Reads stdin from now on: `read` says what each line is; a fatal one goes to `fatal`, what a server serves at once to `server`. */
export function readStdin(read: (line: string) => StdinLine, fatal: (stderr: string) => void, server?: ServerOut): Stdin {
  const inputs: string[] = [];
  let closed = false;
  let wake: (() => void) | null = null;
  let waiting: { ref: string; settle: (reply: Reply | null) => void } | null = null;
  const settle = (reply: Reply | null): void => {
    const w = waiting;
    waiting = null;
    w?.settle(reply);
  };

  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => {
    const got = read(line);
    if (got === null) return;
    if (got.kind === 'fatal') fatal(got.stderr);
    else if (got.kind === 'served') {
      if (got.stderr !== undefined) server?.warn(got.stderr);
      server?.print(got.lines);
    } else if (got.kind === 'input') {
      // The answer to the request that started the turn goes before anything of the turn.
      if (got.reply) server?.print(got.reply);
      inputs.push(got.text);
      wake?.();
    } else if (waiting?.ref === got.ref) settle(got.reply);
  });
  rl.on('close', () => {
    closed = true;
    wake?.();
    settle(null);
    server?.closed();
  });

  return {
    get closed() {
      return closed;
    },
    async nextInput() {
      for (;;) {
        const text = inputs.shift();
        if (text !== undefined) return text;
        if (closed) return null;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    },
    answer(ref, ifClosed) {
      if (closed) return Promise.resolve(ifClosed);
      return new Promise((resolve) => (waiting = { ref, settle: (reply) => resolve(reply ?? ifClosed) }));
    },
  };
}
