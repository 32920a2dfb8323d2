// Queueing checked run specs, for every client that does (`orcr run`, the
// SDK's run): the request measured first, naming the part that is big (a
// prompt read from a file, a fan-out's many specs), then one run.enqueue.

import { checkFrame } from './frame.js';
import type { Caller, Params, Result } from './methods.js';

/** `fanOut`: the specs came as a list (`--from`, runMany), so a big request is "the N run specs". */
export function enqueueSpecs(c: Caller, specs: Params<'run.enqueue'>['specs'], callerEnv: Record<string, string>, fanOut: boolean): Promise<Result<'run.enqueue'>> {
  const params = { specs: [...specs], caller_env: callerEnv };
  const prompt = specs.length === 1 ? (specs[0]!.prompt ?? '') : '';
  checkFrame('run.enqueue', params, fanOut ? `the ${specs.length} run specs` : prompt.length > 1024 * 1024 ? 'the prompt' : 'the run spec');
  return c.call('run.enqueue', params);
}
