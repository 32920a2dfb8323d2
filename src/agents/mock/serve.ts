// The mock agent as a JSON-RPC server (Codex's app-server, ACP): it prints
// nothing of its own accord. Its renderer's `server.read` serves each
// request as it is read (the handshake, the session opened) and hands over
// each turn orcr starts, run here in order with the plans the other formats
// use; the scenario says what a turn is. As the real servers do, it exits 0
// the moment stdin closes, whatever it is doing (a turn, a request waiting).

import { askingTurn, emit, exitAfterFlush, fatal, sleep, writeLine } from './emit.js';
import { planAskTurn, planLoopTurn, planTurn, type Scenario } from './plan.js';
import type { Renderer, Serving } from './render.js';
import type { Rng } from './rng.js';
import { readStdin, type Stdin } from './stdin.js';

export interface ServeOptions {
  scenario: Scenario;
  delay: number;
  rng: Rng;
}

type Turn = (text: string, index: number) => Promise<void>;

export async function serve(r: Renderer, server: Serving, opts: ServeOptions): Promise<void> {
  // Slow to come up: nothing is read, so nothing is answered, until then.
  if (opts.scenario === 'slow-start') await sleep(opts.delay * 10);
  if (opts.scenario === 'auth') server.loggedOut?.();
  const stdin = readStdin(server.read, fatal, {
    print: (lines) => lines.forEach((l) => void writeLine(l)),
    warn: (text) => process.stderr.write(text + '\n'),
    closed: () => void exitAfterFlush(0),
  });
  const turn = turnOf(r, server, opts, stdin);
  let index = 0;
  for (let text = await stdin.nextInput(); text !== null; text = await stdin.nextInput()) await turn(text, index++);
  return exitAfterFlush(0);
}

/** What one turn orcr started is, by scenario. */
function turnOf(r: Renderer, server: Serving, opts: ServeOptions, stdin: Stdin): Turn {
  const { rng, delay } = opts;
  switch (opts.scenario) {
    case 'ask':
    case 'ask-question': {
      const asking = r.asking;
      if (!asking) throw new Error('this format never asks');
      const question = opts.scenario === 'ask-question';
      return (text, i) => askingTurn(asking, planAskTurn(rng, i, text, question && i === 0), stdin, delay);
    }
    case 'crash':
      // Its first turn dies half-way: a run given one turn (a one-shot run) sees the crash too.
      return async (text, i) => {
        const lines = r.turn(planTurn(rng, i, text));
        await emit(lines.slice(0, Math.max(1, Math.floor(lines.length / 2))), delay);
        return exitAfterFlush(3);
      };
    case 'limit':
      return () => emit(r.limit(), delay);
    case 'auth':
      return () => emit(r.auth().lines, delay);
    case 'loop':
      return async (text, i) => {
        for (const lines of server.loop(planLoopTurn(rng, i, text))) await emit(lines, Math.max(delay, 1));
      };
    default:
      return (text, i) => emit(r.turn(planTurn(rng, i, text)), delay);
  }
}
