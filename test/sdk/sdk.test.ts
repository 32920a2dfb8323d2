// The SDK against a real supervisor: the README's example run as a program
// of the built package, typed errors, one bad spec queuing nothing, and
// events resumed by seq.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, OrcrError, type EventItem } from '../../src/sdk/index.js';
import { MOCK_AGENT, NODE, ROOT, useHomes } from '../support/harness.js';

const home = useHomes();

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { main: string; types: string; exports: { '.': { types: string; default: string } } };

/** The first ```js block after a heading of the README. */
function example(heading: string): string {
  const at = README.indexOf(heading);
  expect(at, heading).toBeGreaterThanOrEqual(0);
  const m = README.slice(at).match(/```js\n([\s\S]*?)```/);
  expect(m, `a js block under ${heading}`).not.toBeNull();
  return m![1]!;
}

/** The claude preset replaced by the mock agent speaking Claude's format: the example runs as written. */
const MOCK_CLAUDE = { providers: { claude: { command: [NODE, MOCK_AGENT, '--format', 'claude', '--turns', '1', '--delay', '10'], protocol: 'claude', interactive_input: false } } };

describe('the SDK', () => {
  it('the package points at the built SDK and its types', () => {
    expect(pkg.exports['.'].default).toBe(`./${pkg.main}`);
    expect(pkg.exports['.'].types).toBe(`./${pkg.types}`);
    expect(fs.existsSync(path.join(ROOT, pkg.main)), `${pkg.main}: build first`).toBe(true);
    expect(fs.readFileSync(path.join(ROOT, pkg.types), 'utf8')).toMatch(/export declare function connect/);
  });

  it("the README's fan-out-and-wait example runs as written, against the built package", () => {
    const h = home({ concurrency: { max: 2 }, ...MOCK_CLAUDE });
    const code = example('## A program drives orcr: the SDK');
    expect(code).toContain("from 'orcr'");
    const file = path.join(h.dir, 'example.mjs');
    fs.writeFileSync(file, code.replace("from 'orcr'", `from ${JSON.stringify(path.join(ROOT, pkg.exports['.'].default))}`));
    const r = spawnSync(NODE, [file], { cwd: h.dir, env: h.env, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(['review src/a.ts: completed', 'review src/b.ts: completed', 'review src/c.ts: completed', ''].join('\n'));
    const runs = h.json<{ name: string; provider: string; workload: string; exit_reason: string }[]>(['ps', '--all']);
    expect(runs.map((x) => [x.name, x.provider, x.workload, x.exit_reason])).toEqual([
      ['review src/a.ts', 'claude', 'review', 'completed'],
      ['review src/b.ts', 'claude', 'review', 'completed'],
      ['review src/c.ts', 'claude', 'review', 'completed'],
    ]);
  });

  it("fails with the CLI's code and exit code; one bad spec queues nothing; runs carry the caller's environment", async () => {
    const h = home();
    const orcr = await connect({ home: h.dir, callerEnv: { PATH: process.env.PATH!, MARK: 'given' } });
    try {
      const missing = await orcr.show('nope').catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(OrcrError);
      expect(missing).toMatchObject({ code: 'not_found', exitCode: 6, message: 'no run "nope"' });

      const bad = await orcr.runMany([{ name: 'ok', command: ['true'] }, { command: ['true'], timeout: 'soon' }]).catch((e: unknown) => e);
      expect(bad).toMatchObject({ code: 'usage', exitCode: 2, message: 'spec 2: "timeout" must be a duration such as 500ms, 30s, 1m30s, 2h or 3d, got "soon"' });
      expect(await orcr.list({ all: true })).toEqual([]);

      const run = await orcr.run({ name: 'env', command: ['sh', '-c', 'echo "$MARK $EXTRA"'], env: { EXTRA: 'added' } });
      expect(await orcr.wait(run)).toEqual([{ uuid: run.uuid, name: 'env', token: 'completed' }]);
      expect(await orcr.logs('env')).toEqual(['given added']);
      expect((await orcr.show(run, { env: true })).env).toEqual({ EXTRA: 'added' });
      expect((await orcr.send(run, 'hi').catch((e: unknown) => e)) as OrcrError).toMatchObject({ code: 'not_idle', exitCode: 4 });
      expect(await orcr.kill([run, 'gone'])).toMatchObject([{ name: 'env', action: 'already_ended' }, { ref: 'gone', action: 'not_found' }]);
    } finally {
      orcr.close();
    }
  });

  it('subscribe replays from a seq, goes on live, and resumes from the last seq handled', async () => {
    const h = home();
    const orcr = await connect({ home: h.dir });
    try {
      const first = await orcr.run({ name: 'one', command: ['true'] });
      await orcr.wait(first);
      const seen: EventItem[] = [];
      let second: { uuid: string } | null = null;
      for await (const item of orcr.subscribe()) {
        seen.push(item);
        // Past the replay of the first run's end: make a live one, and stop at its end.
        if (item.event.run === first.uuid && item.event.type === 'ended') second = await orcr.run({ name: 'two', command: ['true'] });
        if (second && item.event.run === second.uuid && item.event.type === 'ended') break;
      }
      const seqs = seen.map((s) => s.event.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(seen.find((s) => s.event.run === second!.uuid && s.event.type === 'ended')!.run).toMatchObject({ name: 'two', status: 'ended' });

      // Resume after the first run's events: exactly what came after, in order.
      const resumeAt = seen.find((s) => s.event.run === first.uuid && s.event.type === 'ended')!.event.seq;
      const again: number[] = [];
      for await (const { event } of orcr.subscribe({ since: resumeAt })) {
        again.push(event.seq);
        if (event.seq === seqs.at(-1)) break;
      }
      expect(again).toEqual(seqs.filter((s) => s > resumeAt));
    } finally {
      orcr.close();
    }
  });
});
