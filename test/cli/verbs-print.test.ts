// What the read verbs print, as a newcomer reads it: every hold in stats, one
// identifier per column in events (replayed or followed), a gc dry run that
// agrees with the gc after it, and show, server status and spend in the
// same words and number formats as the rest.

import { describe, expect, it } from 'vitest';
import { lineReader, script, until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

/** Homes whose supervisor runs in this process; what the verbs print is the spawned CLI's. */
const home = useLiveHomes();

/** A jsonl agent that hits a usage limit (retry in an hour) and exits. */
function limited(h: { dir: string }): string {
  return script(h, 'limited.sh', `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"blocked","kind":"limit","retry_after_s":3600}'\nexit 1\n`);
}

describe('stats', () => {
  it('lists a provider hold with its countdown even when that provider has no cap of its own', async () => {
    const h = await home({ concurrency: { max: 4 } });
    await h.run(['-n', 'hit', '-a', 'claude', '--protocol', 'jsonl', '--', limited(h)]);
    await until(async () => (await h.stats<{ holds: Record<string, number> }>()).holds.claude, 'the hold on claude');
    const stats = (await h.cli(['stats'])).stdout;
    expect(stats).not.toMatch(/^provider:claude /m);
    expect(stats).toMatch(/^hold: provider claude, lifted in (59m\d{1,2}s|1h) \(orcr provider resume claude lifts it now\)$/m);
    expect((await h.cli(['provider', 'resume', 'claude'])).code).toBe(0);
    expect((await h.cli(['stats'])).stdout).not.toMatch(/^hold:/m);
  });
});

describe('events', () => {
  it('replayed and followed, a run is shown the same way: its short id and its name, one per column; --json is unchanged', async () => {
    const h = await home();
    await h.startSupervisor();
    const follow = h.spawn(['events', '--follow']);
    const live = lineReader(follow);
    try {
      const run = await h.run(['-n', 'shown', '--', 'true']);
      expect(await h.waitCode('shown')).toBe(0);
      await live.waitFor((l) => l.some((x) => x.split('\t')[2] === 'ended'), 'the ended event, live');
      const replay = (await h.cli(['events'])).stdout.trimEnd().split('\n');
      const ofRun = replay.filter((l) => l.split('\t')[3] !== '-');
      expect(ofRun.length).toBeGreaterThanOrEqual(4);
      for (const l of ofRun) expect(l.split('\t').slice(3, 5)).toEqual([run.uuid.slice(0, 8), 'shown']);
      // An event of no run: a dash in both columns.
      const started = replay.find((l) => l.split('\t')[2] === 'supervisor_started')!;
      expect(started.split('\t').slice(3, 5)).toEqual(['-', '-']);
      // Every line the follower printed live is the line the replay prints for that seq.
      const bySeq = new Map(replay.map((l) => [l.split('\t')[0], l]));
      const liveOfRun = live.lines.filter((l) => l.split('\t')[3] !== '-');
      expect(liveOfRun.length).toBeGreaterThanOrEqual(4);
      for (const l of liveOfRun) expect(l).toBe(bySeq.get(l.split('\t')[0]));
    } finally {
      follow.kill();
    }
    const json = await h.events<{ seq: number; run: string | null; type: string }>();
    expect(Object.keys(json[0]!).sort()).toEqual(['data', 'run', 'seq', 'ts', 'type']);
  });
});

describe('gc', () => {
  it('a dry run counts what the gc after it removes: runs, events and bytes, in text and --json', async () => {
    const h = await home();
    for (const n of ['a', 'b', 'c']) await h.run(['-n', n, '--', 'sh', '-c', 'echo some output; echo more >&2']);
    expect(await h.waitCode('a', 'b', 'c')).toBe(0);
    const live = await h.run(['-n', 'live', '--', 'sleep', '300']);
    // Working before the dry run: nothing is journaled between it and the gc.
    await until(async () => (await h.show('live')).status === 'working', 'the live run to work');
    type Gc = { runs: number; events: number; bytes: number; dry_run: boolean };
    const dry = await h.json<Gc>(['gc', '--older-than', '0s', '--dry-run']);
    const dryText = (await h.cli(['gc', '--older-than', '0s', '--dry-run'])).stdout;
    const done = await h.json<Gc>(['gc', '--older-than', '0s']);
    expect(dry.dry_run).toBe(true);
    expect(done.dry_run).toBe(false);
    expect(dry.runs).toBe(3);
    expect(dry.events).toBeGreaterThan(3 * 4);
    expect({ runs: dry.runs, events: dry.events, bytes: dry.bytes }).toEqual({ runs: done.runs, events: done.events, bytes: done.bytes });
    const kb = (dry.bytes / 1024).toFixed(1);
    expect(dryText).toMatch(
      new RegExp(
        `^would remove 3 ended runs older than 0ms and ${dry.events} events \\(${kb.replace('.', '\\.')} KB of journal rows and run directories\\)$`,
        'm',
      ),
    );
    expect((await h.show(live.uuid)).status).toBe('working');
    await h.kill(['live']);
  });
});

describe('show, server status, spend', () => {
  it('show says what an ended run whose protocol was never detected was read as; --env shows values without the hint', async () => {
    const h = await home();
    await h.run(['-n', 'plain', '-e', 'A=1', '-e', 'B=two', '--', 'true']);
    expect(await h.waitCode('plain')).toBe(0);
    const show = (await h.cli(['show', 'plain'])).stdout;
    expect(show).toMatch(/^protocol +none detected \(its output read as plain text\)$/m);
    expect(show).toMatch(/^env +A, B \(values: show --env\)$/m);
    const withEnv = (await h.cli(['show', 'plain', '--env'])).stdout;
    expect(withEnv).not.toMatch(/values: show --env/);
    expect(withEnv).toMatch(/^env +A=1$/m);
    expect(withEnv).toMatch(/^env +B=two$/m);
    expect((await h.show('plain')).protocol).toBeNull();
  });

  it('server status tells active runs from queued ones, in words that agree in number', async () => {
    const h = await home({ concurrency: { max: 1 } });
    await h.startSupervisor();
    expect((await h.cli(['server', 'status'])).stdout).toMatch(/, 0 active runs, 0 queued$/m);
    await h.run(['-n', 'one', '--', 'sleep', '300']);
    await until(async () => (await h.show('one')).status === 'working', 'the first run to work');
    await h.run(['-n', 'two', '--', 'sleep', '300']);
    expect((await h.cli(['server', 'status'])).stdout).toMatch(/, 1 active run, 1 queued$/m);
    expect(await h.call<{ active: number; queued: number }>('server.status')).toMatchObject({ active: 1, queued: 1 });
    await h.kill(['one', 'two']);
  });

  it('spend prints numbers as stats does (12.3k tokens, $1.75) and says which runs it counts', async () => {
    const h = await home({ budgets: { fleet: { max_cost_usd: 10, max_tokens: 1_000_000 } } });
    const agent = script(
      h,
      'spender.sh',
      `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"usage","input_tokens":25388,"output_tokens":0,"cost_usd":1.75}'\necho '{"type":"turn_end"}'\n`,
    );
    await h.run(['-n', 's', '-a', 'alpha', '--protocol', 'jsonl', '--', agent]);
    expect(await h.waitCode('s')).toBe(0);
    const spend = (await h.cli(['spend'])).stdout;
    const stats = (await h.cli(['stats'])).stdout;
    expect(stats).toMatch(/tokens 25\.4k \/ 1M, cost \$1\.75 \/ \$10/);
    expect(spend).toMatch(/^spend over all time \(every run in the journal\)$/m);
    expect(spend).toMatch(/^fleet tokens: 25\.4k of 1M$/m);
    expect(spend).toMatch(/^fleet cost: \$1\.75 of \$10$/m);
    expect(spend).toMatch(/^alpha +1 +25\.4k +\$1\.75$/m);
    expect(spend).toMatch(/^last hour: 25\.4k tokens, \$1\.75$/m);
    expect(spend).not.toMatch(/25388|runs live in/);
  });

  it('spend over a rolling window names the window and the runs it counts', async () => {
    const h = await home({ budgets: { fleet: { max_cost_usd: 10, window: '1h' } } });
    expect((await h.cli(['spend'])).stdout).toMatch(/^spend over the last 1h \(runs live in it, each with its whole usage\)$/m);
  });
});
