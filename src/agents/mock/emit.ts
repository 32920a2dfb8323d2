// How the mock agent prints: a line at a time, paced, waiting for a slow
// reader; a turn that asks, each request printed once its answer is listened
// for; and an exit that loses no buffered line.

import type { TurnPlan } from './plan.js';
import type { Asking, Reply } from './render.js';
import type { Stdin } from './stdin.js';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One write per line; waits for the pipe to drain so a slow reader is not flooded. */
export function writeLine(line: string): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(line + '\n')) resolve();
    else process.stdout.once('drain', resolve);
  });
}

export async function emit(lines: readonly string[], delay: number): Promise<void> {
  for (const line of lines) {
    await writeLine(line);
    await sleep(delay);
  }
}

export async function exitAfterFlush(code: number): Promise<never> {
  // process.exit can drop buffered pipe output; write an empty chunk and wait for it.
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

/** A line its CLI could not read: it says so and exits 1 at once. */
export function fatal(stderr: string): void {
  process.stderr.write(stderr + '\n');
  void exitAfterFlush(1);
}

/** A turn that asks before its tools: each request printed once its answer is listened for, and its reply handed back. */
export async function askingTurn(asking: Asking, plan: TurnPlan, stdin: Stdin, delay: number): Promise<void> {
  const steps = asking.turn(plan);
  let reply: Reply | undefined;
  for (let step = steps.next(); !step.done; step = steps.next(reply)) {
    await emit(step.value.lines, delay);
    reply = undefined;
    const ask = step.value.ask;
    if (!ask) continue;
    if (stdin.closed) {
      reply = asking.closed;
      continue;
    }
    const replied = stdin.answer(ask.ref, asking.closed);
    await emit([ask.line], delay);
    reply = await replied;
  }
}
