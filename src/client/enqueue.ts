// Queueing checked run specs, for every client that does (`orcr run`, the
// SDK's run): the request measured first, naming the part that is big (a
// prompt read from a file, a fan-out's many specs), then one run.enqueue.
//
// The client names every run (a uuid each) before sending. A connection
// that drops before the answer (the supervisor crashed or was killed) left
// the runs queued or not: the same request goes again on a new connection
// (the session connects again, starting a supervisor if none runs), and the
// supervisor answers with the runs already made under those uuids, or
// queues them now — never twice (measured before: 1 in 640 enqueues under
// SIGKILL churn made a duplicate, and every drop said only "went away").

import crypto from 'node:crypto';
import { ConnectionLost } from './client.js';
import { checkFrame } from './frame.js';
import type { Caller, Params, Result } from './methods.js';

/** Tries of one request across dropped connections (each new connection may start a supervisor). */
const TRIES = 4;

/** `fanOut`: the specs came as a list (`--from`, runMany), so a big request is "the N run specs". */
export function enqueueSpecs(
  c: Caller,
  specs: Params<'run.enqueue'>['specs'],
  callerEnv: Record<string, string>,
  fanOut: boolean,
): Promise<Result<'run.enqueue'>> {
  const params = { specs: [...specs], caller_env: callerEnv, uuids: specs.map(() => crypto.randomUUID()) };
  const prompt = specs.length === 1 ? (specs[0]!.prompt ?? '') : '';
  checkFrame('run.enqueue', params, fanOut ? `the ${specs.length} run specs` : prompt.length > 1024 * 1024 ? 'the prompt' : 'the run spec');
  return sendAgain(() => c.call('run.enqueue', params));
}

async function sendAgain<T>(send: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await send();
    } catch (e) {
      if (!(e instanceof ConnectionLost) || tries >= TRIES) throw e;
    }
  }
}
