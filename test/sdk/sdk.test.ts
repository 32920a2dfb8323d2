// The SDK against a real supervisor: the README's example run as a program
// of the built package, typed errors, one bad spec queuing nothing, and
// events resumed by seq.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, OrcrError, type EventItem } from '../../src/sdk/index.js';
import { CLI, MOCK_AGENT, NODE, ROOT, until, useHomes, type TestHome } from '../support/harness.js';
import { remote, useStartedHomes } from '../support/in-process.js';
import { eventTypes, holdingRun } from '../support/slot-lending.js';

/** Homes whose supervisor the SDK (or a spawned CLI) starts: a process of its own. */
const home = useHomes();
/** Homes whose supervisor runs in this process, started before the SDK connects (most tests). */
const liveHome = useStartedHomes();

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  main: string;
  types: string;
  exports: { '.': { types: string; default: string } };
};

/** The first ```js block after a heading of the README. */
function example(heading: string): string {
  const at = README.indexOf(heading);
  expect(at, heading).toBeGreaterThanOrEqual(0);
  const m = README.slice(at).match(/```js\n([\s\S]*?)```/);
  expect(m, `a js block under ${heading}`).not.toBeNull();
  return m![1]!;
}

/** The claude preset replaced by the mock agent speaking Claude's format: the example runs as written. */
const MOCK_CLAUDE = {
  providers: { claude: { command: [NODE, MOCK_AGENT, '--format', 'claude', '--turns', '1', '--delay', '10'], protocol: 'claude', interactive_input: false } },
};

describe('the SDK', () => {
  it('the package points at the built SDK and its types', () => {
    expect(pkg.exports['.'].default).toBe(`./${pkg.main}`);
    expect(pkg.exports['.'].types).toBe(`./${pkg.types}`);
    expect(fs.existsSync(path.join(ROOT, pkg.main)), `${pkg.main}: build first`).toBe(true);
    expect(fs.readFileSync(path.join(ROOT, pkg.types), 'utf8')).toMatch(/export declare function connect/);
  });

  it("the README's fan-out-and-wait example runs as written, against the built package", async () => {
    const h = home({ concurrency: { max: 2 }, ...MOCK_CLAUDE });
    const code = example('## A program drives orcr: the SDK');
    expect(code).toContain("from 'orcr'");
    const file = path.join(h.dir, 'example.mjs');
    fs.writeFileSync(file, code.replace("from 'orcr'", `from ${JSON.stringify(path.join(ROOT, pkg.exports['.'].default))}`));
    const r = spawnSync(NODE, [file], { cwd: h.dir, env: h.env, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(['review src/a.ts: completed', 'review src/b.ts: completed', 'review src/c.ts: completed', ''].join('\n'));
    const sup = remote(h.dir);
    const runs = await sup.ps({ all: true });
    sup.disconnect();
    expect(runs.map((x) => [x.name, x.provider, x.workload, x.exit_reason])).toEqual([
      ['review src/a.ts', 'claude', 'review', 'completed'],
      ['review src/b.ts', 'claude', 'review', 'completed'],
      ['review src/c.ts', 'claude', 'review', 'completed'],
    ]);
  });

  it("fails with the CLI's code and exit code; one bad spec queues nothing; runs carry the caller's environment", async () => {
    const h = await liveHome();
    const orcr = await connect({ home: h.dir, callerEnv: { PATH: process.env.PATH!, MARK: 'given' } });
    try {
      const missing = await orcr.show('nope').catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(OrcrError);
      expect(missing).toMatchObject({ code: 'not_found', exitCode: 6, message: 'no run "nope"' });

      const bad = await orcr
        .runMany([
          { name: 'ok', command: ['true'] },
          { command: ['true'], timeout: 'soon' },
        ])
        .catch((e: unknown) => e);
      expect(bad).toMatchObject({
        code: 'usage',
        exitCode: 2,
        message: 'spec 2: "timeout" must be a duration such as 500ms, 30s, 1m30s, 2h or 3d, got "soon"',
      });
      expect(await orcr.list({ all: true })).toEqual([]);

      const run = await orcr.run({ name: 'env', command: ['sh', '-c', 'echo "$MARK $EXTRA"'], env: { EXTRA: 'added' } });
      expect(await orcr.wait(run)).toEqual([{ uuid: run.uuid, name: 'env', token: 'completed' }]);
      expect(await orcr.logs('env')).toEqual(['given added']);
      expect((await orcr.show(run, { env: true })).env).toEqual({ EXTRA: 'added' });
      expect((await orcr.send(run, 'hi').catch((e: unknown) => e)) as OrcrError).toMatchObject({ code: 'not_idle', exitCode: 4 });
      expect(await orcr.kill([run, 'gone'])).toMatchObject([
        { name: 'env', action: 'already_ended' },
        { ref: 'gone', action: 'not_found' },
      ]);
    } finally {
      orcr.close();
    }
  });

  it('subscribe replays from a seq, goes on live, and resumes from the last seq handled', async () => {
    const h = await liveHome();
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
      // Replayed items carry their run's current row, as live ones carry theirs.
      const replayed = seen.filter((s) => s.event.run === first.uuid);
      expect(replayed.length).toBeGreaterThan(2);
      for (const s of replayed) expect(s.run).toMatchObject({ uuid: first.uuid, name: 'one', status: 'ended' });
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

/** `orcr server stop`, with this process's event loop running meanwhile (as a program's does while someone else stops the supervisor). */
function stopServer(h: TestHome): Promise<number | null> {
  const child = spawn(NODE, [CLI, 'server', 'stop'], { env: h.env, stdio: 'ignore' });
  return new Promise((r) => child.once('exit', r));
}

describe('the SDK behaves as the CLI', () => {
  it('a program that is itself a run lends its slot to the children it waits on, as `orcr wait` does', async () => {
    const h = await liveHome({ concurrency: { max: 1 } });
    const parent = await holdingRun(h, 'parent');
    const orcr = await connect({ home: h.dir, callerEnv: { PATH: process.env.PATH!, ORCR_RUN: parent.uuid } });
    try {
      const kids = await orcr.runMany([
        { name: 'c1', command: ['sh', '-c', 'echo one'] },
        { name: 'c2', command: ['sh', '-c', 'echo two'] },
      ]);
      expect(kids.map((k) => [k.parent, k.status])).toEqual([
        [parent.uuid, 'queued'],
        [parent.uuid, 'queued'],
      ]);
      // Before the fix both stayed queued behind their own parent: `pending` at the timeout.
      expect((await orcr.wait(kids, { timeout: '30s' })).map((s) => s.token)).toEqual(['completed', 'completed']);
      expect(await eventTypes(h, parent.uuid)).toEqual(expect.arrayContaining(['slot_lent', 'slot_taken_back']));
    } finally {
      orcr.close();
    }
  });

  it('a wait given an AbortSignal stops when it is aborted, and its supervisor-side wait is dropped', async () => {
    const h = await liveHome({ concurrency: { max: 1 } });
    const parent = await holdingRun(h, 'parent');
    const orcr = await connect({ home: h.dir, callerEnv: { PATH: process.env.PATH!, ORCR_RUN: parent.uuid } });
    try {
      const kid = await orcr.run({ name: 'kid', command: ['sleep', '600'] });
      const ac = new AbortController();
      const waiting = orcr.wait(kid, { signal: ac.signal }).catch((e: unknown) => e);
      await until(async () => (await eventTypes(h, parent.uuid)).includes('slot_lent'), 'the wait to lend the slot');
      ac.abort();
      expect(await waiting).toMatchObject({ name: 'AbortError' });
      await until(async () => (await eventTypes(h, parent.uuid)).includes('slot_taken_back'), 'the slot back');
      // Aborted before it starts: refused at once, nothing sent.
      expect(await orcr.wait(kid, { signal: AbortSignal.abort() }).catch((e: unknown) => e)).toMatchObject({ name: 'AbortError' });
      await orcr.kill(kid, { force: true });
    } finally {
      orcr.close();
    }
  });

  it('after `orcr server stop` the next call connects again, starting a supervisor (or, without autoStart, says none runs)', async () => {
    const h = home();
    const orcr = await connect({ home: h.dir });
    const manual = await connect({ home: h.dir, autoStart: false });
    try {
      await orcr.run({ name: 'a', command: ['true'] });
      expect(await stopServer(h)).toBe(0);
      expect(h.serverPid()).toBeNull();
      const noStart = await manual.list({ all: true }).catch((e: unknown) => e);
      expect(noStart).toMatchObject({ code: 'unavailable', exitCode: 7, message: expect.stringContaining('no supervisor is running') });
      expect(h.serverPid()).toBeNull();
      expect((await orcr.list({ all: true })).map((r) => r.name)).toEqual(['a']);
      expect(h.serverPid()).not.toBeNull();
      expect((await manual.show('a')).name).toBe('a');
    } finally {
      orcr.close();
      manual.close();
    }
  });

  it('a request over 8 MiB in UTF-8 is a usage error before it is sent (as the CLI says), and the connection stays', async () => {
    const h = await liveHome();
    const orcr = await connect({ home: h.dir });
    try {
      const big = await orcr.run({ name: 'big', command: ['true'], prompt: 'é'.repeat(4.5 * 1024 * 1024) }).catch((e: unknown) => e);
      expect(big).toBeInstanceOf(OrcrError);
      expect(big).toMatchObject({ code: 'usage', exitCode: 2, message: expect.stringMatching(/^the prompt: too large to send: the request would be 9 MiB/) });
      const many = await orcr
        .runMany(Array.from({ length: 3 }, (_, i) => ({ name: `m${i}`, command: ['true'], prompt: 'x'.repeat(3 * 1024 * 1024) })))
        .catch((e: unknown) => e);
      expect(many).toMatchObject({ code: 'usage', message: expect.stringMatching(/^the 3 run specs: too large to send/) });
      const run = await orcr.run({ name: 'small', command: ['true'] });
      const sent = await orcr.send(run, 'x'.repeat(9 * 1024 * 1024)).catch((e: unknown) => e);
      expect(sent).toMatchObject({ code: 'usage', message: expect.stringMatching(/^the text: too large to send/) });
      expect((await orcr.list({ all: true })).map((r) => r.name)).toEqual(['small']);
    } finally {
      orcr.close();
    }
  });

  it('logs and list check their options as the CLI checks its flags', async () => {
    const h = await liveHome();
    const orcr = await connect({ home: h.dir });
    try {
      const run = await orcr.run({ name: 'r', command: ['sh', '-c', 'echo 1; echo 2'] });
      await orcr.wait(run);
      expect(await orcr.logs(run, { tail: 1 })).toEqual(['2']);
      for (const tail of [1.5, -3])
        expect(await orcr.logs(run, { tail }).catch((e: unknown) => e)).toMatchObject({ code: 'usage', message: `"tail" must be a whole number, got ${tail}` });
      expect(await orcr.list({ status: 'bogus' as 'ended' }).catch((e: unknown) => e)).toMatchObject({
        code: 'usage',
        message: '"status" must be one of queued, starting, working, idle, blocked, ended, got "bogus"',
      });
    } finally {
      orcr.close();
    }
  });

  it('subscribe({ since }) after gc removed those events says so (OrcrError pruned), as events --follow does', async () => {
    const h = await liveHome();
    const orcr = await connect({ home: h.dir });
    try {
      const old = await orcr.run({ name: 'old', command: ['true'] });
      await orcr.wait(old);
      expect((await h.json<{ runs: number }>(['gc', '--older-than', '0s'])).runs).toBe(1);
      const first = (await h.events<{ seq: number }>())[0]!.seq;
      expect(first).toBeGreaterThan(1);
      const pruned = await orcr
        .subscribe({ since: 0 })
        .next()
        .catch((e: unknown) => e);
      expect(pruned).toBeInstanceOf(OrcrError);
      expect(pruned).toMatchObject({
        code: 'pruned',
        firstSeq: first,
        message: `events 1–${first - 1} were removed by retention (retention.ended, orcr gc); subscribe({ since: ${first - 1} }) follows from ${first}`,
      });
      // From where the log begins: no error, and the gc event is there (an event of no run: run null).
      for await (const item of orcr.subscribe({ since: first - 1 })) {
        expect(item.event.seq).toBe(first);
        expect(item.event.type).toBe('gc');
        expect(item.run).toBeNull();
        break;
      }
    } finally {
      orcr.close();
    }
  });
});
