// Every method the supervisor's socket serves is reachable through the SDK,
// and the SDK's error codes are the supervisor's: a method or a code added
// on one side only fails here.

import { describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { METHOD_NAMES, REMOTE_ERROR_CODES } from '../../src/client/methods.js';
import { ensureHome } from '../../src/config/home.js';
import { connect, Orcr, OrcrError } from '../../src/sdk/index.js';
import { SDK_METHODS } from '../../src/sdk/coverage.js';
import { toOrcrError } from '../../src/sdk/errors.js';
import { ERROR_EXIT, RemoteError } from '../../src/protocol/errors.js';
import { useHomes } from '../support/harness.js';

const home = useHomes();

/** The function at a dotted path of the SDK ("loops.create" is orcr.loops.create). */
function at(orcr: Orcr, dotted: string): unknown {
  if (dotted === 'connect') return Orcr.connect;
  let v: unknown = orcr;
  for (const part of dotted.split('.')) v = (v as Record<string, unknown>)?.[part];
  return v;
}

describe('the SDK covers the socket', () => {
  it('each method of the table has an SDK function, and the supervisor serves each one (an unknown method is refused: the probe can fail)', async () => {
    const h = home();
    const orcr = await connect({ home: h.dir });
    const c = await Client.connect(ensureHome(h.dir), { autoStart: false });
    try {
      for (const m of METHOD_NAMES) expect(typeof at(orcr, SDK_METHODS[m]), `${m} → ${SDK_METHODS[m]}`).toBe('function');
      expect(Object.keys(SDK_METHODS).sort()).toEqual([...METHOD_NAMES].sort());
      // Called with no params: a method the supervisor serves answers or refuses its params, never "unknown method".
      const call = (m: string): Promise<unknown> => (c.call as (m: string, p: object) => Promise<unknown>)(m, {}).catch((e: unknown) => e);
      const unknown = await call('run.nope');
      expect(unknown).toMatchObject({ code: 'usage', message: 'unknown method "run.nope"' });
      for (const m of METHOD_NAMES) {
        if (m === 'server.stop' || m === 'hello') continue; // hello was the connect; stopping would end the probe
        const r = await call(m);
        expect(r instanceof RemoteError ? r.message : 'answered', m).not.toMatch(/^unknown method/);
      }
    } finally {
      c.close();
      orcr.close();
    }
  });

  it("the SDK's error codes are the supervisor's, each with the CLI's exit code (wait_timeout 3, conflict 4)", () => {
    expect([...REMOTE_ERROR_CODES].sort()).toEqual(Object.keys(ERROR_EXIT).sort());
    for (const code of REMOTE_ERROR_CODES) {
      const e = toOrcrError(new RemoteError(code, 'x'));
      expect(e).toBeInstanceOf(OrcrError);
      expect(e, code).toMatchObject({ code, exitCode: ERROR_EXIT[code] });
    }
    expect(toOrcrError(new RemoteError('wait_timeout', 'x'))).toMatchObject({ exitCode: 3 });
    expect(toOrcrError(new RemoteError('conflict', 'x'))).toMatchObject({ exitCode: 4 });
  });
});
