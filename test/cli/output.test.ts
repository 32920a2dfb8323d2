// What reaches a terminal: no control sequence an agent printed (human
// output strips them, --json keeps them escaped), tables laid out by display
// width with and without colour, no float noise, and why a run waits.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { script, until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';
import type { PublicRun } from '../../src/protocol/views.js';

/** Homes whose supervisor runs in this process; what the CLI prints is still the spawned CLI's. */
const home = useLiveHomes();

/** A jsonl agent printing the given lines verbatim (each already one line), then exiting 0; `gate` waits for a file. */
function agent(h: { dir: string }, name: string, lines: string[], gate?: string): string {
  const body = lines.map((l) => `printf '%s\\n' '${l.replace(/'/g, `'\\''`)}'`).join('\n');
  const wait = gate ? `while [ ! -f "${path.join(h.dir, gate)}" ]; do sleep 0.02; done\n` : '';
  return script(h, name, `#!/bin/sh\n${body}\n${wait}exit 0\n`);
}

// An OSC 52 clipboard write, a title change, a screen clear and an 8-bit CSI.
const HOSTILE = 'copy \u001b]52;c;cm0gLXJmIH4=\u0007 title \u001b]0;pwned\u0007 clear \u001b[2J\u001b[H c1 \u009b31m end';
const TOOL = 'Bash\u001b]0;t\u0007\u001b[2J';

/** ESC, BEL and every other C0 control but newline; DEL and C1. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('bytes reaching the terminal', () => {
  it('show, ps, logs, events and wait strip what an agent printed; --json round-trips it exactly', async () => {
    const h = await home();
    const file = agent(h, 'evil.sh', [
      JSON.stringify({ type: 'ready' }),
      JSON.stringify({ type: 'turn_start' }),
      JSON.stringify({ type: 'tool', name: TOOL, input: { command: HOSTILE } }),
      JSON.stringify({ type: 'text', text: HOSTILE }),
      JSON.stringify({ type: 'turn_end' }),
      `raw ${HOSTILE}`,
      JSON.stringify({ type: 'result', ok: true }),
    ]);
    await h.run(['-n', 'evil', '--protocol', 'jsonl', '--', file]);
    expect(await h.wait('evil')).toBe('evil completed');

    const show = await h.cli(['show', 'evil']);
    expect(show.stdout).toMatch(/^last text\s+copy\s+title\s+clear\s+c1\s+end$/m);
    expect(show.stdout).toMatch(/^last tool\s+Bash$/m);
    const logs = await h.cli(['logs', 'evil']);
    expect(logs.stdout).toMatch(/^raw copy +title +clear +c1 +end$/m);
    for (const [what, text] of [
      ['show', show.stdout],
      ['ps', (await h.cli(['ps', '--all'])).stdout],
      ['logs', logs.stdout],
      ['events', (await h.cli(['events'])).stdout.replace(/\t/g, ' ')],
    ]) {
      expect(text, what).not.toMatch(CONTROL);
    }

    const showJson = await h.cli(['show', 'evil', '--json']);
    expect(showJson.stdout).not.toMatch(CONTROL);
    const run = JSON.parse(showJson.stdout) as PublicRun;
    expect(run.last_text).toBe(HOSTILE);
    expect(run.last_tool).toBe(TOOL);
    const entries = JSON.parse((await h.cli(['logs', 'evil', '--json'])).stdout) as { kind: string; text?: string; name?: string; line?: string }[];
    expect(entries.find((e) => e.kind === 'text')?.text).toBe(HOSTILE);
    expect(entries.find((e) => e.kind === 'tool')?.name).toBe(TOOL);
    expect(entries.find((e) => e.kind === 'output' && e.line?.startsWith('raw'))?.line).toBe(`raw ${HOSTILE}`);
    const ps = (await h.cli(['ps', '--all', '--json'])).stdout;
    // JSON.stringify leaves C1, DEL and U+2028/9 raw: they come escaped.
    expect(ps).not.toMatch(/[\u007f-\u009f\u2028\u2029]/);
    expect(ps).toContain('\\u009b31m');
  });

  it('an error that echoes what a user typed shows no escape sequence', async () => {
    const h = await home();
    await h.startSupervisor();
    const r = await h.cli(['show', 'x\u001b]0;pwned\u0007\u001b[2Jy']);
    expect(r.code).toBe(6);
    // Shown escaped, as JSON writes it: what was typed, and none of it obeyed.
    expect(r.stderr).toBe('orcr: no run "x\\u001b]0;pwned\\u0007\\u001b[2Jy"\n');
    const j = await h.cli(['show', 'x\u009b2Jy', '--json']);
    expect(j.stdout).not.toMatch(/\u009b/);
    expect(JSON.parse(j.stdout).error.message).toBe('no run "x\\u009b2Jy"');
  });
});

/** Display width of our test names: CJK and the emoji take two columns. */
const width = (s: string): number => [...s].reduce((w, c) => w + (c.codePointAt(0)! >= 0x1100 ? 2 : 1), 0);
const unpaint = (s: string): string => s.replace(/\u001b\[[0-9;]*m/g, '');

/** Display columns where each cell starts: column 0, and any non-space after two or more spaces. */
function cellStarts(line: string): number[] {
  const starts: number[] = [];
  let col = 0;
  let spaces = 0;
  for (const c of line) {
    if (c !== ' ' && (col === 0 || spaces >= 2)) starts.push(col);
    spaces = c === ' ' ? spaces + 1 : 0;
    col += width(c);
  }
  return starts;
}

describe('tables by display width', () => {
  it('ps lines up CJK and emoji names, with and without colour', async () => {
    const h = await home({ concurrency: { max: 1 } });
    await h.run(['-n', '世界-1', '--', 'sleep', '30']);
    await h.run(['-n', '🚀-agent', '--', 'true']);
    await h.run(['-n', 'abc', '--', 'true']);
    await until(async () => (await h.show('世界-1')).status === 'working', 'the first run to work');
    const plain = (await h.cli(['ps'])).stdout.trimEnd().split('\n');
    const { NO_COLOR: _, ...env } = h.env;
    const painted = (await h.cli(['ps'], { env: { ...env, FORCE_COLOR: '1' } })).stdout.trimEnd().split('\n');
    expect(painted.join('\n')).toContain('\u001b[32m');
    expect(plain.join('\n')).not.toContain('\u001b');
    for (const lines of [plain, painted.map(unpaint)]) {
      expect(lines).toHaveLength(4);
      expect(lines[0]).toMatch(/^NAME +ID +STATUS +PROVIDER\/WORKLOAD +TURNS +TOKENS +COST +ELAPSED$/);
      const header = cellStarts(lines[0]!);
      for (const row of lines.slice(1)) expect(cellStarts(row), row).toEqual(header);
      // A queued run says what it waits for, in its status cell.
      expect(lines.find((l) => l.startsWith('🚀-agent'))).toMatch(/ queued#1 global 1\/1 /);
    }
  });
});

describe('numbers and reasons in human output', () => {
  it('show reads budgets as used / limit, costs have no float noise, and a queued run says why', async () => {
    const h = await home({
      concurrency: { max: 1 },
      providers: { coster: { price: { input_per_mtok: 0.1, output_per_mtok: 0.3 } } },
    });
    const file = agent(
      h,
      'coster.sh',
      [
        JSON.stringify({ type: 'ready' }),
        JSON.stringify({ type: 'turn_start' }),
        JSON.stringify({ type: 'usage', input_tokens: 12_345, output_tokens: 101 }),
        JSON.stringify({ type: 'turn_end' }),
        JSON.stringify({ type: 'turn_start' }),
        JSON.stringify({ type: 'usage', input_tokens: 7, output_tokens: 3 }),
        JSON.stringify({ type: 'turn_end' }),
      ],
      'go',
    );
    await h.run([
      '-n',
      'c',
      '-a',
      'coster',
      '--protocol',
      'jsonl',
      '--max-turns',
      '10',
      '--max-tokens',
      '100000',
      '--max-cost',
      '1',
      '--timeout',
      '45m',
      '--',
      file,
    ]);
    await h.run(['-n', 'later', '--', 'true']);
    const show = (await h.cli(['show', 'c'])).stdout;
    expect(show).toMatch(/^turns +\d+ \/ 10$/m);
    expect(show).toMatch(/^tokens +[\d.]+k? \/ 100k \(in [\d.]+k?, out \d+, cached 0\)$/m);
    expect(show).toMatch(/^cost +\$\d+(\.\d{1,6})? \/ \$1$/m);
    expect(show).toMatch(/^elapsed +\S+ \/ 45m(00s)?$/m);

    const later = (await h.cli(['show', 'later'])).stdout;
    expect(later).toMatch(/^status +queued#1 global 1\/1$/m);
    expect(later).toMatch(/^waiting +global 1\/1$/m);
    expect(later).toMatch(/^elapsed +-$/m);

    fs.writeFileSync(path.join(h.dir, 'go'), '');
    expect(await h.waitCode('c', 'later')).toBe(0);
    const done = (await h.cli(['show', 'c'])).stdout;
    // 12,352 tokens in at $0.1/M and 104 out at $0.3/M: $0.0012664 — 4 decimals, or 6 under a cent.
    expect(done).toMatch(/^cost +\$0\.001266 \/ \$1$/m);
    expect(done).toMatch(/^tokens +12\.5k \/ 100k \(in 12\.4k, out 104, cached 0\)$/m);
    expect(done).toMatch(/^turns +2 \/ 10$/m);
    for (const text of [done, (await h.cli(['ps', '--all'])).stdout, (await h.cli(['events'])).stdout, (await h.cli(['stats'])).stdout]) {
      expect(text).not.toMatch(/\d\.\d{7,}/);
    }
    expect((await h.cli(['ps', '--all'])).stdout).toMatch(/^c +\S+ +ended:completed +coster\/default +2 +12\.5k +<\$0\.01 /m);
  });

  it('stats names holders, shows reserved slots, holds as "in 4m…", fleet use, warnings and a rejected config; so does server status', async () => {
    const h = await home({
      concurrency: { max: 2, providers: { acme: 5 }, workloads: { review: { reserved: 1, priority: 7 } } },
      budgets: { fleet: { max_tokens: 100_000 } },
    });
    const limited = agent(
      h,
      'limited.sh',
      [
        JSON.stringify({ type: 'ready' }),
        JSON.stringify({ type: 'turn_start' }),
        JSON.stringify({ type: 'usage', input_tokens: 1200, output_tokens: 34 }),
        JSON.stringify({ type: 'blocked', kind: 'limit', retry_after_s: 250 }),
      ],
      'never',
    );
    await h.run(['-n', '世界-holder', '-a', 'acme', '-w', 'review', '--protocol', 'jsonl', '--', limited]);
    await until(async () => (await h.show('世界-holder')).status === 'blocked', 'the run to be blocked');
    await h.run(['-n', 'held-back', '-a', 'acme', '--', 'true']);

    const stats = (await h.cli(['stats'])).stdout;
    const lines = stats.split('\n');
    expect(lines[0]).toMatch(/^CAP +ACTIVE\/LIMIT +RESERVED +PRIORITY +QUEUED +OLDEST WAIT +HOLD +HOLDERS$/);
    expect(lines.find((l) => l.startsWith('global '))).toMatch(/^global +1\/2 +1 +- +1 +\S+ +- +世界-holder$/);
    expect(lines.find((l) => l.startsWith('provider:acme '))).toMatch(/^provider:acme +1\/2 +- +- +1 +\S+ +in 4m\d{1,2}s +世界-holder$/);
    expect(lines.find((l) => l.startsWith('workload:review '))).toMatch(/^workload:review +1\/2 +1 +7 +0 +- +- +世界-holder$/);
    const header = cellStarts(lines[0]!);
    for (const l of lines.slice(1, lines.indexOf(''))) expect(cellStarts(l), l).toEqual(header);
    expect(stats).toMatch(/^fleet \(all time\): tokens 1\.2k \/ 100k, cost \$0$/m);
    expect(stats).toMatch(/^warning: .*concurrency\.providers\.acme \(5\) is above concurrency\.max \(2\); clamped to 2$/m);
    expect((await h.cli(['ps'])).stdout).toMatch(/^held-back +\S+ +queued#1 hold acme 4m\d{1,2}s +/m);

    // A bad edit is refused and said so, in stats and server status alike.
    h.writeConfig({ concurrency: { max: 'lots' } });
    const rejected = await until(async () => {
      const s = (await h.cli(['stats'])).stdout;
      return /^config rejected at /m.test(s) && s;
    }, 'the rejected config to show in stats');
    expect(rejected).toMatch(/^config rejected at \S+, the previous config stays in force: .*concurrency\.max/m);
    const status = (await h.cli(['server', 'status'])).stdout;
    expect(status).toMatch(/^running: pid \d+/);
    expect(status).toMatch(/^warning: .*concurrency\.providers\.acme/m);
    expect(status).toMatch(/^config rejected at \S+, the previous config stays in force: .*concurrency\.max/m);
  });
});
