// The CLI is a shell over the SDK: what a verb prints with --json is what the
// SDK's method answers, and the behaviour they share (paging, wait --all from
// inside a run, error codes) is the same code, checked here from both ends.

import { describe, expect, it } from 'vitest';
import { connect, OrcrError, type RunEvent } from '../../src/sdk/index.js';
import { holdingRun } from '../support/slot-lending.js';
import { useLiveHomes } from '../support/in-process.js';

/** Homes whose supervisor runs in this process; the --json output compared is still the spawned CLI's. */
const home = useLiveHomes();

describe('the CLI and the SDK answer alike', () => {
  it('ps, show, events, wait, kill and stats: the --json output is the SDK answer', async () => {
    const h = await home();
    await h.startSupervisor();
    const orcr = await connect({ home: h.dir });
    try {
      const [a, b] = await orcr.runMany([
        { name: 'a', command: ['true'] },
        { name: 'b', command: ['sh', '-c', 'echo hi'] },
      ]);
      expect(await h.json(['wait', 'a', 'b'])).toEqual((await orcr.wait([a!, b!])).map(({ name, uuid, token }) => ({ name, uuid, token })));
      expect(await h.json(['ps', '--all'])).toEqual(await orcr.list({ all: true }));
      expect(await h.json(['show', 'b'])).toEqual(await orcr.show('b'));
      const events: RunEvent[] = [];
      for await (const { event } of orcr.events({ since: 0 })) events.push(event);
      expect(await h.json(['events'])).toEqual(events);
      expect(await h.json(['events', '--since', String(events[2]!.seq)])).toEqual(events.slice(3));
      expect(await h.json(['kill', 'a', 'nope'], [6])).toEqual(await orcr.kill(['a', 'nope']));
      const { caps } = await orcr.stats();
      expect((await h.json<{ caps: unknown }>(['stats'])).caps).toEqual(caps);
      // One error, one code and exit code, from either end.
      const missing = (await orcr.show('nope').catch((e: unknown) => e)) as OrcrError;
      const cli = await h.cli(['show', 'nope', '--json']);
      expect(cli.code).toBe(missing.exitCode);
      expect(JSON.parse(cli.stdout)).toEqual({ error: { code: missing.code, message: missing.message } });
    } finally {
      orcr.close();
    }
  });

  it("the SDK's waitAll from inside a run leaves out that run, as `orcr wait --all` does", async () => {
    const h = await home();
    await h.startSupervisor();
    const parent = await holdingRun(h, 'parent');
    const orcr = await connect({ home: h.dir, callerEnv: { PATH: process.env.PATH!, ORCR_RUN: parent.uuid } });
    try {
      // Long enough to be active when the wait begins, on a loaded machine too.
      await orcr.run({ name: 'kid', command: ['sleep', '3'] });
      expect((await orcr.waitAll({ timeout: '30s' })).map((s) => `${s.name} ${s.token}`)).toEqual(['kid completed']);
      // From outside, --all is every active run: the parent too.
      const outside = await connect({ home: h.dir });
      expect((await outside.waitAll({ timeout: '200ms' })).map((s) => `${s.name} ${s.token}`)).toEqual(['parent pending']);
      outside.close();
      await orcr.kill(parent, { force: true });
    } finally {
      orcr.close();
    }
  });
});
