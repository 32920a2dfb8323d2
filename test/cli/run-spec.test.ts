// One schema for a run spec: a bad value reads the same whether it came from
// an `orcr run` flag, a `run --from` line or a socket client's run.enqueue.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { until, useHomes, type TestHome } from '../support/harness.js';
import type { PublicRun } from '../../src/server/view.js';

const home = useHomes();

/** One request on a raw socket (hello first), as any client could send it; the reply's error message. */
async function enqueueError(h: TestHome, specs: unknown, extra: Record<string, unknown> = {}): Promise<string> {
  const socket = net.createConnection(path.join(h.dir, 'orcr.sock'));
  let got = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (got += d));
  socket.write(JSON.stringify({ id: 1, method: 'hello', params: { version: 1 } }) + '\n');
  socket.write(JSON.stringify({ id: 2, method: 'run.enqueue', params: { specs, ...extra } }) + '\n');
  try {
    await until(() => got.split('\n').length >= 3, 'the replies to hello and run.enqueue', 10_000, 10);
  } finally {
    socket.destroy();
  }
  const reply = JSON.parse(got.split('\n')[1]!) as { error?: { code: string; message: string } };
  expect(reply.error?.code).toBe('usage');
  return reply.error!.message;
}

interface Case {
  /** The field as a --from line names it, and as a socket spec names it. */
  line: string;
  socket?: string;
  value: unknown;
  /** The flags that give the same bad value, and the flag as typed. */
  flag?: { args: string[]; name: string; raw: string };
  message: string;
}

const long = 'n'.repeat(201);
const CASES: Case[] = [
  { line: 'max_turns', value: 'x', flag: { args: ['--max-turns', 'x'], name: '--max-turns', raw: 'x' }, message: 'must be a whole number' },
  { line: 'max_turns', value: 1.5, flag: { args: ['--max-turns', '1.5'], name: '--max-turns', raw: '1.5' }, message: 'must be a whole number' },
  { line: 'max_turns', value: -1, flag: { args: ['--max-turns=-1'], name: '--max-turns', raw: '-1' }, message: 'must not be negative' },
  { line: 'max_tokens', value: 'lots', flag: { args: ['--max-tokens', 'lots'], name: '--max-tokens', raw: 'lots' }, message: 'must be a whole number' },
  { line: 'max_cost', socket: 'max_cost_usd', value: 'cheap', flag: { args: ['--max-cost', 'cheap'], name: '--max-cost', raw: 'cheap' }, message: 'must be a number of US dollars' },
  { line: 'max_cost_usd', value: -2, flag: { args: ['--max-cost=-2'], name: '--max-cost', raw: '-2' }, message: 'must not be negative' },
  { line: 'timeout', socket: 'timeout_ms', value: '30', flag: { args: ['--timeout', '30'], name: '--timeout', raw: '30' }, message: 'must be a duration such as 500ms, 30s, 2m or 1h' },
  { line: 'idle_after', socket: 'idle_after_ms', value: 'soon', flag: { args: ['--idle-after', 'soon'], name: '--idle-after', raw: 'soon' }, message: 'must be a duration such as 500ms, 30s, 2m or 1h' },
  { line: 'protocol', value: 'xml', flag: { args: ['--protocol', 'xml'], name: '--protocol', raw: 'xml' }, message: 'must be one of jsonl, claude, codex, gemini, plain' },
  { line: 'loop', value: 'sometimes', flag: { args: ['--loop', 'sometimes'], name: '--loop', raw: 'sometimes' }, message: 'must be one of warn, terminate, off' },
  { line: 'name', value: '', flag: { args: ['-n', ''], name: '-n', raw: '' }, message: 'must not be empty' },
  { line: 'name', value: 'a\nb', flag: { args: ['--name', 'a\nb'], name: '--name', raw: 'a\nb' }, message: 'must not contain control characters (newline, tab, escape, …)' },
  { line: 'name', value: 'x\u001b]52;c;aGk=\u0007', flag: { args: ['-n', 'x\u001b]52;c;aGk=\u0007'], name: '-n', raw: 'x\u001b]52;c;aGk=\u0007' }, message: 'must not contain control characters (newline, tab, escape, …)' },
  { line: 'name', value: 'c1\u009b2J', flag: { args: ['-n', 'c1\u009b2J'], name: '-n', raw: 'c1\u009b2J' }, message: 'must not contain control characters (newline, tab, escape, …)' },
  { line: 'name', value: long, flag: { args: ['-n', long], name: '-n', raw: long }, message: 'must be at most 200 characters' },
  { line: 'workload', value: 'a\tb', flag: { args: ['-w', 'a\tb'], name: '-w', raw: 'a\tb' }, message: 'must not contain control characters (newline, tab, escape, …)' },
  { line: 'provider', value: ' ', flag: { args: ['-a', ' '], name: '-a', raw: ' ' }, message: 'must not be empty' },
  { line: 'cwd', value: '/no/such/dir', flag: { args: ['--cwd', '/no/such/dir'], name: '--cwd', raw: '/no/such/dir' }, message: 'must be an existing directory' },
  { line: 'interactive', value: 'yes', message: 'must be true or false' },
  { line: 'env', value: { A: 1 }, message: 'must map variable names (not empty, no "=") to strings' },
  { line: 'env', value: { 'A=B': 'x' }, message: 'must map variable names (not empty, no "=") to strings' },
  { line: 'command', value: [], message: 'must be a non-empty array of strings (the program and its arguments)' },
  { line: 'prompt', value: 5, message: 'must be a string' },
];

/** What the user sees after ", got": the value as JSON, controls escaped, cut at 80 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value).replace(/[\u007f-\u009f]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  return text.length <= 80 ? text : text.slice(0, 79) + '…';
}

describe('run spec: one schema, the same words everywhere', () => {
  it('every bad value reads the same through a flag, a --from line and a raw run.enqueue', async () => {
    const h = home();
    // Flags: checked before anything is sent, named as typed, no usage text after.
    for (const c of CASES) {
      if (!c.flag) continue;
      const r = h.cli(['run', ...c.flag.args, '--', 'true']);
      expect(r.code, c.flag.args.join(' ')).toBe(2);
      expect(r.stderr).toBe(`orcr: ${c.flag.name} ${c.message}, got ${shown(c.flag.raw)}\n`);
    }
    expect(fs.existsSync(path.join(h.dir, 'orcr.db')), 'a bad flag starts no supervisor').toBe(false);

    // --from: one file with every bad line, plus good lines, a comment and a blank line.
    const lines = ['# the good line first', JSON.stringify({ name: 'good', command: ['true'] }), ''];
    const where = new Map<Case, number>();
    for (const c of CASES) {
      lines.push(JSON.stringify({ command: ['true'], [c.line]: c.value }));
      where.set(c, lines.length);
    }
    const file = path.join(h.dir, 'runs.jsonl');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const r = h.cli(['run', '--from', file]);
    expect(r.code).toBe(2);
    const errs = r.stderr.trimEnd().split('\n');
    for (const c of CASES) {
      const expected = `orcr: ${file}:${where.get(c)}: "${c.line}" ${c.message}, got ${shown(c.value)}`;
      expect(errs.filter((l) => l === expected), expected).toHaveLength(1);
    }
    expect(errs).toHaveLength(CASES.length + 1);
    expect(errs.at(-1)).toBe(`orcr: nothing was queued (${CASES.length} bad lines in ${file})`);
    expect(r.stderr).not.toMatch(/usage:/);
    expect(r.stdout).toBe('');

    // The socket: the same schema on the server, the same words.
    h.cli(['ps']);
    for (const c of CASES) {
      const key = c.socket ?? c.line;
      const message = await enqueueError(h, [{ command: ['true'], cwd: h.dir, [key]: c.value }]);
      expect(message).toBe(`spec 1: "${key}" ${c.message}, got ${shown(c.value)}`);
    }
    expect(h.json<unknown[]>(['ps', '--all'])).toEqual([]);
  });

  it('refuses unknown fields, a line without a command or provider, both cost spellings, and specs that are not objects', async () => {
    const h = home();
    const file = path.join(h.dir, 'runs.jsonl');
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ nmae: 'typo', command: ['true'] }),
        JSON.stringify({ name: 'nothing-to-run' }),
        JSON.stringify({ command: ['true'], max_cost: 1, max_cost_usd: 1 }),
        JSON.stringify({ command: ['true'], caller_env: { A: 'b' } }),
        '[1, 2]',
        '{"name": ',
      ].join('\n'),
    );
    const r = h.cli(['run', '--from', file, '--json']);
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('usage');
    expect(error.message.split('\n')).toEqual([
      `${file}:1: unknown field "nmae"`,
      `${file}:2: needs "command" (argv) or "provider" (a preset)`,
      `${file}:3: "max_cost" and "max_cost_usd" are the same field: give one`,
      // The CLI fills caller_env itself: a line may not.
      `${file}:4: unknown field "caller_env"`,
      `${file}:5: each line must be a JSON object, got [1,2]`,
      expect.stringMatching(new RegExp(`^${file}:6: not valid JSON: `)),
      `nothing was queued (6 bad lines in ${file})`,
    ]);

    h.cli(['ps']);
    expect(await enqueueError(h, [{ cwd: h.dir, command: ['true'], nmae: 'x' }])).toBe('spec 1: unknown field "nmae"');
    expect(await enqueueError(h, [{ cwd: h.dir, command: ['true'] }, 7])).toBe('spec 2: must be a JSON object, got 7');
    expect(await enqueueError(h, [{ cwd: 'relative', command: ['true'] }])).toBe('spec 1: "cwd" must be an absolute path, got "relative"');
    expect(await enqueueError(h, [])).toBe('"specs" must be a non-empty array of run specs');
    // caller_env (the CLI sends its own environment once per request; a spec may carry its own) takes strings only, like env.
    expect(await enqueueError(h, [{ cwd: h.dir, command: ['true'], caller_env: { PATH: 1 } }])).toBe(
      'spec 1: "caller_env" must map variable names (not empty, no "=") to strings, got {"PATH":1}',
    );
    expect(await enqueueError(h, [{ cwd: h.dir, command: ['true'] }], { caller_env: { PATH: 1 } })).toBe(
      '"caller_env" must map variable names (not empty, no "=") to strings, got {"PATH":1}',
    );
  });

  it('queues good specs from flags and lines with the values given, durations and the cost alias converted', () => {
    const h = home({ providers: { p: { price: { input_per_mtok: 1, output_per_mtok: 1 } } } });
    const sub = path.join(h.dir, 'sub');
    fs.mkdirSync(sub);
    const flags = h.json<PublicRun>([
      'run', '-n', 'flags', '-a', 'p', '--max-turns', '3', '--max-cost', '0.5', '--timeout', '2m', '--cwd', sub, '--', 'sleep', '5',
    ]);
    expect(flags.cwd).toBe(sub);
    expect(flags.budget.turns!.limit).toBe(3);
    expect(flags.budget.cost_usd!.limit).toBe(0.5);
    expect(flags.budget.time_ms!.limit).toBe(120_000);
    const file = path.join(h.dir, 'runs.jsonl');
    fs.writeFileSync(file, JSON.stringify({ name: 'line', provider: 'p', command: ['sleep', '5'], cwd: '.', timeout: '90s', max_cost: 0.25, max_tokens: 100 }) + '\n');
    const r = h.cli(['run', '--from', file]);
    expect(r.code, r.stderr).toBe(0);
    const line = h.json<PublicRun>(['show', 'line']);
    expect(line.budget.time_ms!.limit).toBe(90_000);
    expect(line.budget.cost_usd!.limit).toBe(0.25);
    expect(line.budget.tokens!.limit).toBe(100);
    // A relative cwd in a line is taken from where orcr runs (here: where the tests run).
    expect(line.cwd).toBe(process.cwd());
    h.cli(['kill', 'flags', 'line']);
  });
});
