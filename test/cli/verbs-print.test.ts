// What the read verbs print, as a newcomer reads it: every hold in stats, one
// identifier per column in events (replayed or followed), a gc dry run that
// agrees with the gc after it, and show, server status and spend in the
// same words and number formats as the rest.

import { describe, expect, it } from 'vitest';
import { lineReader, script, until, useHomes, type TestHome } from '../support/harness.js';
import type { PublicRun } from '../../src/protocol/views.js';

const home = useHomes();

/** A jsonl agent that hits a usage limit (retry in an hour) and exits. */
function limited(h: TestHome): string {
  return script(h, 'limited.sh', `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"blocked","kind":"limit","retry_after_s":3600}'\nexit 1\n`);
}

describe('stats', () => {
  it('lists a provider hold with its countdown even when that provider has no cap of its own', async () => {
    const h = home({ concurrency: { max: 4 } });
    h.json(['run', '-n', 'hit', '-a', 'claude', '--protocol', 'jsonl', '--', limited(h)]);
    await until(() => h.json<{ holds: Record<string, number> }>(['stats']).holds.claude, 'the hold on claude');
    const stats = h.cli(['stats']).stdout;
    expect(stats).not.toMatch(/^provider:claude /m);
    expect(stats).toMatch(/^hold: provider claude, lifted in (59m\d{1,2}s|1h) \(orcr provider resume claude lifts it now\)$/m);
    expect(h.cli(['provider', 'resume', 'claude']).code).toBe(0);
    expect(h.cli(['stats']).stdout).not.toMatch(/^hold:/m);
  });
});

describe('events', () => {
  it('replayed and followed, a run is shown the same way: its short id and its name, one per column; --json is unchanged', async () => {
    const h = home();
    h.cli(['stats']);
    const follow = h.spawn(['events', '--follow']);
    const live = lineReader(follow);
    try {
      const run = h.json<PublicRun>(['run', '-n', 'shown', '--', 'true']);
      expect(h.cli(['wait', 'shown']).code).toBe(0);
      await live.waitFor((l) => l.some((x) => x.split('\t')[2] === 'ended'), 'the ended event, live');
      const replay = h.cli(['events']).stdout.trimEnd().split('\n');
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
    const json = h.json<{ seq: number; run: string | null; type: string }[]>(['events']);
    expect(Object.keys(json[0]!).sort()).toEqual(['data', 'run', 'seq', 'ts', 'type']);
  });
});

describe('gc', () => {
  it('a dry run counts what the gc after it removes: runs, events and bytes, in text and --json', async () => {
    const h = home();
    for (const n of ['a', 'b', 'c']) h.json(['run', '-n', n, '--', 'sh', '-c', 'echo some output; echo more >&2']);
    expect(h.cli(['wait', 'a', 'b', 'c']).code).toBe(0);
    const live = h.json<PublicRun>(['run', '-n', 'live', '--', 'sleep', '300']);
    // Working before the dry run: nothing is journaled between it and the gc.
    await until(() => h.json<PublicRun>(['show', 'live']).status === 'working', 'the live run to work');
    type Gc = { runs: number; events: number; bytes: number; dry_run: boolean };
    const dry = h.json<Gc>(['gc', '--older-than', '0s', '--dry-run']);
    const dryText = h.cli(['gc', '--older-than', '0s', '--dry-run']).stdout;
    const done = h.json<Gc>(['gc', '--older-than', '0s']);
    expect(dry.dry_run).toBe(true);
    expect(done.dry_run).toBe(false);
    expect(dry.runs).toBe(3);
    expect(dry.events).toBeGreaterThan(3 * 4);
    expect({ runs: dry.runs, events: dry.events, bytes: dry.bytes }).toEqual({ runs: done.runs, events: done.events, bytes: done.bytes });
    const kb = (dry.bytes / 1024).toFixed(1);
    expect(dryText).toMatch(new RegExp(`^would remove 3 ended runs older than 0ms and ${dry.events} events \\(${kb.replace('.', '\\.')} KB of journal rows and run directories\\)$`, 'm'));
    expect(h.json<PublicRun>(['show', live.uuid]).status).toBe('working');
    h.cli(['kill', 'live']);
  });
});

describe('show, server status, spend', () => {
  it('show says what an ended run whose protocol was never detected was read as; --env shows values without the hint', () => {
    const h = home();
    h.json(['run', '-n', 'plain', '-e', 'A=1', '-e', 'B=two', '--', 'true']);
    expect(h.cli(['wait', 'plain']).code).toBe(0);
    const show = h.cli(['show', 'plain']).stdout;
    expect(show).toMatch(/^protocol +none detected \(its output read as plain text\)$/m);
    expect(show).toMatch(/^env +A, B \(values: show --env\)$/m);
    const withEnv = h.cli(['show', 'plain', '--env']).stdout;
    expect(withEnv).not.toMatch(/values: show --env/);
    expect(withEnv).toMatch(/^env +A=1$/m);
    expect(withEnv).toMatch(/^env +B=two$/m);
    expect(h.json<PublicRun>(['show', 'plain']).protocol).toBeNull();
  });

  it('server status tells active runs from queued ones, in words that agree in number', async () => {
    const h = home({ concurrency: { max: 1 } });
    h.cli(['stats']);
    expect(h.cli(['server', 'status']).stdout).toMatch(/, 0 active runs, 0 queued$/m);
    h.json(['run', '-n', 'one', '--', 'sleep', '300']);
    await until(() => h.json<PublicRun>(['show', 'one']).status === 'working', 'the first run to work');
    h.json(['run', '-n', 'two', '--', 'sleep', '300']);
    expect(h.cli(['server', 'status']).stdout).toMatch(/, 1 active run, 1 queued$/m);
    expect(h.json<{ active: number; queued: number }>(['server', 'status'])).toMatchObject({ active: 1, queued: 1 });
    h.cli(['kill', 'one', 'two']);
  });

  it('spend prints numbers as stats does (12.3k tokens, $1.75) and says which runs it counts', () => {
    const h = home({ budgets: { fleet: { max_cost_usd: 10, max_tokens: 1_000_000 } } });
    const agent = script(h, 'spender.sh', `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"usage","input_tokens":25388,"output_tokens":0,"cost_usd":1.75}'\necho '{"type":"turn_end"}'\n`);
    h.json(['run', '-n', 's', '-a', 'alpha', '--protocol', 'jsonl', '--', agent]);
    expect(h.cli(['wait', 's']).code).toBe(0);
    const spend = h.cli(['spend']).stdout;
    const stats = h.cli(['stats']).stdout;
    expect(stats).toMatch(/tokens 25\.4k \/ 1M, cost \$1\.75 \/ \$10/);
    expect(spend).toMatch(/^spend over all time \(every run in the journal\)$/m);
    expect(spend).toMatch(/^fleet tokens: 25\.4k of 1M$/m);
    expect(spend).toMatch(/^fleet cost: \$1\.75 of \$10$/m);
    expect(spend).toMatch(/^alpha +1 +25\.4k +\$1\.75$/m);
    expect(spend).toMatch(/^last hour: 25\.4k tokens, \$1\.75$/m);
    expect(spend).not.toMatch(/25388|runs live in/);
  });

  it('spend over a rolling window names the window and the runs it counts', () => {
    const h = home({ budgets: { fleet: { max_cost_usd: 10, window: '1h' } } });
    expect(h.cli(['spend']).stdout).toMatch(/^spend over the last 1h \(runs live in it, each with its whole usage\)$/m);
  });
});
