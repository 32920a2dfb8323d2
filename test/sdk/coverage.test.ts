// Every method the supervisor's socket serves is reachable through the SDK,
// and the SDK's error codes are the supervisor's: a method or a code added
// on one side only fails here. Which SDK function makes which method is read
// from the SDK's source (support/sdk-calls.ts), not from a list kept by hand.

import { describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { METHOD_NAMES, REMOTE_ERROR_CODES } from '../../src/client/methods.js';
import { ensureHome } from '../../src/config/home.js';
import { connect, Orcr, OrcrError } from '../../src/sdk/index.js';
import { toOrcrError } from '../../src/sdk/errors.js';
import { ERROR_EXIT, RemoteError } from '../../src/protocol/errors.js';
import { METHODS, type MethodSpec } from '../../src/protocol/methods.js';
import { useHomes } from '../support/harness.js';
import { sdkCalls } from '../support/sdk-calls.js';

const home = useHomes();

/** The function at a path of the SDK: "loops.create" is orcr.loops.create, "Orcr.open" the class's own, "connect" the module's. */
function at(orcr: Orcr, dotted: string): unknown {
  if (dotted === 'connect') return connect;
  let v: unknown = dotted.startsWith('Orcr.') ? Orcr : orcr;
  for (const part of dotted.replace(/^Orcr\./, '').split('.')) v = (v as Record<string, unknown>)?.[part];
  return v;
}

// Read once: building the program takes seconds.
const made = sdkCalls();

describe('the SDK covers the socket', () => {
  it('has read the SDK: the functions it found make the methods they name', () => {
    expect(made.get('loop.create')).toEqual(['loops.create']);
    expect(made.get('run.list')).toEqual(['list']);
    // Through src/client: run and runMany queue by its enqueue, wait by its wait, subscribe by its follow.
    expect(made.get('run.enqueue')).toEqual(expect.arrayContaining(['run', 'runMany']));
    expect(made.get('run.wait')).toEqual(expect.arrayContaining(['wait', 'waitAll']));
    expect(made.get('subscribe')).toEqual(['subscribe']);
    expect(made.get('hello')).toContain('connect');
  });

  it('each method of the table is made by an SDK function, and the supervisor serves each one (an unknown method is refused: the probe can fail)', async () => {
    const none = METHOD_NAMES.filter((m) => made.get(m)!.length === 0);
    expect(none, 'methods no SDK function makes').toEqual([]);
    const h = home();
    const orcr = await connect({ home: h.dir });
    const c = await Client.connect(ensureHome(h.dir), { autoStart: false });
    try {
      for (const [m, fns] of made) for (const fn of fns) expect(typeof at(orcr, fn), `${m} → ${fn}`).toBe('function');
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

  it('a tool the method table offers calls an SDK function that makes its method (orcr mcp calls it by that path)', () => {
    const offered = METHOD_NAMES.flatMap((m) => {
      const spec: MethodSpec = METHODS[m];
      return spec.tool ? [[m, spec.tool.sdk] as const] : [];
    });
    expect(offered.length).toBeGreaterThan(0);
    for (const [m, fn] of offered) expect(made.get(m), `${m}'s tool calls ${fn}`).toContain(fn);
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
