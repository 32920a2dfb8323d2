// One schema for a run spec: a bad value reads the same whether it came from
// an `orcr run` flag, a `run --from` line or a socket client's run.enqueue.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { until, useHomes, type TestHome } from '../support/harness.js';
import { PROTOCOLS } from '../../src/agents/registry.js';
import type { PublicRun } from '../../src/protocol/views.js';

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
const FORM = 'must be a duration such as 500ms, 30s, 1m30s, 2h or 3d';
const NOT_ZERO = 'must be more than 0 (0 would stop it at once; leave it out for no limit)';
const CASES: Case[] = [
  { line: 'max_turns', value: 'x', flag: { args: ['--max-turns', 'x'], name: '--max-turns', raw: 'x' }, message: 'must be a whole number' },
  { line: 'max_turns', value: 1.5, flag: { args: ['--max-turns', '1.5'], name: '--max-turns', raw: '1.5' }, message: 'must be a whole number' },
  { line: 'max_turns', value: -1, flag: { args: ['--max-turns=-1'], name: '--max-turns', raw: '-1' }, message: 'must not be negative' },
  { line: 'max_tokens', value: 'lots', flag: { args: ['--max-tokens', 'lots'], name: '--max-tokens', raw: 'lots' }, message: 'must be a whole number' },
  {
    line: 'max_cost',
    socket: 'max_cost_usd',
    value: 'cheap',
    flag: { args: ['--max-cost', 'cheap'], name: '--max-cost', raw: 'cheap' },
    message: 'must be a number of US dollars',
  },
  { line: 'max_cost_usd', value: -2, flag: { args: ['--max-cost=-2'], name: '--max-cost', raw: '-2' }, message: 'must not be negative' },
  // The same number, negative, with a space: orcr's message, not the argument parser's "ambiguous".
  { line: 'max_turns', value: -1, flag: { args: ['--max-turns', '-1'], name: '--max-turns', raw: '-1' }, message: 'must not be negative' },
  { line: 'max_cost', socket: 'max_cost_usd', value: -1, flag: { args: ['--max-cost', '-1'], name: '--max-cost', raw: '-1' }, message: 'must not be negative' },
  { line: 'max_tokens', value: -0.5, flag: { args: ['--max-tokens', '-.5'], name: '--max-tokens', raw: '-.5' }, message: 'must be a whole number' },
  {
    line: 'timeout',
    socket: 'timeout_ms',
    value: '30',
    flag: { args: ['--timeout', '30'], name: '--timeout', raw: '30' },
    message: `${FORM} (a number needs a unit)`,
  },
  {
    line: 'timeout',
    socket: 'timeout_ms',
    value: '30m1h',
    flag: { args: ['--timeout', '30m1h'], name: '--timeout', raw: '30m1h' },
    message: `${FORM} (largest unit first, each unit once)`,
  },
  {
    line: 'timeout',
    socket: 'timeout_ms',
    value: '99y',
    flag: { args: ['--timeout', '99y'], name: '--timeout', raw: '99y' },
    message: `${FORM} (unknown unit "y")`,
  },
  { line: 'timeout', socket: 'timeout_ms', value: '-1s', flag: { args: ['--timeout', '-1s'], name: '--timeout', raw: '-1s' }, message: 'must not be negative' },
  {
    line: 'timeout',
    socket: 'timeout_ms',
    value: '400d',
    flag: { args: ['--timeout=400d'], name: '--timeout', raw: '400d' },
    message: 'must be at most 365d (a year)',
  },
  { line: 'idle_after', socket: 'idle_after_ms', value: 'soon', flag: { args: ['--idle-after', 'soon'], name: '--idle-after', raw: 'soon' }, message: FORM },
  // 0 would stop the run at once: refused, whichever way it is written.
  { line: 'timeout', socket: 'timeout_ms', value: '0s', flag: { args: ['--timeout', '0s'], name: '--timeout', raw: '0s' }, message: NOT_ZERO },
  {
    line: 'turn_timeout',
    socket: 'turn_timeout_ms',
    value: '0ms',
    flag: { args: ['--turn-timeout', '0ms'], name: '--turn-timeout', raw: '0ms' },
    message: NOT_ZERO,
  },
  { line: 'idle_after', socket: 'idle_after_ms', value: 0, flag: { args: ['--idle-after', '0m'], name: '--idle-after', raw: '0m' }, message: NOT_ZERO },
  { line: 'timeout', socket: 'timeout_ms', value: -5, message: 'must not be negative' },
  {
    line: 'protocol',
    value: 'xml',
    flag: { args: ['--protocol', 'xml'], name: '--protocol', raw: 'xml' },
    message: `must be one of ${PROTOCOLS.join(', ')}`,
  },
  {
    line: 'loop',
    value: 'sometimes',
    flag: { args: ['--loop', 'sometimes'], name: '--loop', raw: 'sometimes' },
    message: 'must be one of warn, terminate, off',
  },
  { line: 'name', value: '', flag: { args: ['-n', ''], name: '-n', raw: '' }, message: 'must not be empty' },
  {
    line: 'name',
    value: 'a\nb',
    flag: { args: ['--name', 'a\nb'], name: '--name', raw: 'a\nb' },
    message: 'must not contain control characters (newline, tab, escape, …)',
  },
  {
    line: 'name',
    value: 'x\u001b]52;c;aGk=\u0007',
    flag: { args: ['-n', 'x\u001b]52;c;aGk=\u0007'], name: '-n', raw: 'x\u001b]52;c;aGk=\u0007' },
    message: 'must not contain control characters (newline, tab, escape, …)',
  },
  {
    line: 'name',
    value: 'c1\u009b2J',
    flag: { args: ['-n', 'c1\u009b2J'], name: '-n', raw: 'c1\u009b2J' },
    message: 'must not contain control characters (newline, tab, escape, …)',
  },
  { line: 'name', value: long, flag: { args: ['-n', long], name: '-n', raw: long }, message: 'must be at most 200 characters' },
  {
    line: 'workload',
    value: 'a\tb',
    flag: { args: ['-w', 'a\tb'], name: '-w', raw: 'a\tb' },
    message: 'must not contain control characters (newline, tab, escape, …)',
  },
  { line: 'provider', value: ' ', flag: { args: ['-a', ' '], name: '-a', raw: ' ' }, message: 'must not be empty' },
  {
    line: 'cwd',
    value: '/no/such/dir',
    flag: { args: ['--cwd', '/no/such/dir'], name: '--cwd', raw: '/no/such/dir' },
    message: 'must be an existing directory',
  },
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
      expect(
        errs.filter((l) => l === expected),
        expected,
      ).toHaveLength(1);
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

  it('a call looks for a program once per cwd and PATH: a fan-out of one is queued, one not found where its spec starts refuses the call', async () => {
    const h = home();
    const sub = path.join(h.dir, 'sub');
    fs.mkdirSync(sub);
    fs.writeFileSync(path.join(sub, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    const tool = { cwd: sub, command: ['./tool'] };
    h.cli(['ps']);
    // ./tool is found under sub for the first two, and looked for again under the home for the third.
    expect(await enqueueError(h, [tool, tool, { cwd: h.dir, command: ['./tool'] }])).toMatch(/^cannot run .*\.\/tool.*: .*tool: no such file$/);
    const onPath = (dir: string): { cwd: string; command: string[]; env: { PATH: string } } => ({ cwd: sub, command: ['tool'], env: { PATH: dir } });
    expect(await enqueueError(h, [onPath(sub), onPath(sub), onPath('/nowhere')])).toMatch(/tool: command not found in PATH$/);
    expect(h.cli(['ps', '--all']).stdout).not.toMatch(/tool/);
    const lines = Array.from({ length: 3 }, () => JSON.stringify(tool)).join('\n');
    expect(h.cli(['run', '--from', '-'], { input: lines }).code).toBe(0);
  });

  it('queues good specs from flags and lines with the values given, durations and the cost alias converted', () => {
    const h = home({ providers: { p: { price: { input_per_mtok: 1, output_per_mtok: 1 } } } });
    const sub = path.join(h.dir, 'sub');
    fs.mkdirSync(sub);
    const flags = h.json<PublicRun>([
      'run',
      '-n',
      'flags',
      '-a',
      'p',
      '--max-turns',
      '3',
      '--max-cost',
      '0.5',
      '--timeout',
      '2m',
      '--cwd',
      sub,
      '--',
      'sleep',
      '5',
    ]);
    expect(flags.cwd).toBe(sub);
    expect(flags.budget.turns.limit).toBe(3);
    expect(flags.budget.cost_usd.limit).toBe(0.5);
    expect(flags.budget.time_ms.limit).toBe(120_000);
    const file = path.join(h.dir, 'runs.jsonl');
    fs.writeFileSync(
      file,
      JSON.stringify({ name: 'line', provider: 'p', command: ['sleep', '5'], cwd: '.', timeout: '90s', max_cost: 0.25, max_tokens: 100 }) + '\n',
    );
    const r = h.cli(['run', '--from', file]);
    expect(r.code, r.stderr).toBe(0);
    const line = h.json<PublicRun>(['show', 'line']);
    expect(line.budget.time_ms.limit).toBe(90_000);
    expect(line.budget.cost_usd.limit).toBe(0.25);
    expect(line.budget.tokens.limit).toBe(100);
    // A relative cwd in a line is taken from where orcr runs (here: where the tests run).
    expect(line.cwd).toBe(process.cwd());
    h.cli(['kill', 'flags', 'line']);
  });

  it('a bad duration reads the same at every input that takes one: run flags, --from, gc, wait, loop, config.json', () => {
    const h = home();
    for (const [text, problem] of [
      ['99y', `${FORM} (unknown unit "y")`],
      ['30m1h', `${FORM} (largest unit first, each unit once)`],
      ['-1s', 'must not be negative'],
      ['400d', 'must be at most 365d (a year)'],
    ] as const) {
      const said = `${problem}, got ${JSON.stringify(text)}`;
      const verbs: [string[], string][] = [
        [['run', '--timeout', text, '--', 'true'], '--timeout'],
        [['run', `--turn-timeout=${text}`, '--', 'true'], '--turn-timeout'],
        [['gc', '--older-than', text], '--older-than'],
        [['gc', `--older-than=${text}`], '--older-than'],
        [['wait', '--all', '--timeout', text], '--timeout'],
        [['loop', 'create', 'l', '* * * * *', '--timeout', text, '--', 'true'], '--timeout'],
      ];
      for (const [args, flag] of verbs) {
        const r = h.cli(args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr, args.join(' ')).toBe(`orcr: ${flag} ${said}\n`);
      }
      const line = h.cli(['run', '--from', '-'], { input: JSON.stringify({ command: ['true'], idle_after: text }) });
      expect(line.stderr.split('\n')[0]).toBe(`orcr: stdin:1: "idle_after" ${said}`);
      h.writeConfig({ budgets: { run: { timeout: text } } });
      const cfg = h.cli(['stats']);
      expect(cfg.code).toBe(2);
      expect(cfg.stderr).toContain(`config.json: budgets.run.timeout: ${said}`);
      fs.rmSync(path.join(h.dir, 'config.json'));
    }
    // 0 where it means "now" is taken: a wait that polls, a gc of every ended run; a loop's --timeout 0 is refused.
    expect(h.cli(['wait', '--all', '--timeout', '0s']).code).toBe(0);
    expect(h.cli(['gc', '--older-than', '0s', '--dry-run']).code).toBe(0);
    const loop0 = h.cli(['loop', 'create', 'l', '* * * * *', '--timeout', '0s', '--', 'true']);
    expect(loop0.stderr).toBe(`orcr: --timeout ${NOT_ZERO}, got "0s"\n`);
    expect(loop0.code).toBe(2);
  });

  it('a negative number reads the same with a space and with "=", for every numeric flag', () => {
    const h = home();
    for (const [args, said] of [
      [['logs', 'x', '--tail', '-3'], '--tail must not be negative, got "-3"'],
      [['events', '--since', '-1'], '--since must not be negative, got "-1"'],
      [['loop', 'create', 'l', '* * * * *', '--max-concurrency', '-1', '--', 'true'], '--max-concurrency must be 1 or more, got "-1"'],
      [['run', '--max-cost', '-1', '--', 'true'], '--max-cost must not be negative, got "-1"'],
    ] satisfies [string[], string][]) {
      const i = args.findIndex((a) => a.startsWith('--') && a !== '--' && args[args.indexOf(a) + 1]?.startsWith('-'));
      const joined = [...args.slice(0, i), `${args[i]}=${args[i + 1]}`, ...args.slice(i + 2)];
      for (const form of [args, joined]) {
        const r = h.cli([...form]);
        expect(r.stderr, form.join(' ')).toBe(`orcr: ${said}\n`);
        expect(r.code).toBe(2);
      }
    }
    // A value that is not a number still gets the parser's word: -p needs its prompt, not the next flag.
    const r = h.cli(['run', '-p', '--max-turns', '3', '--', 'true']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/-p.*ambiguous|argument missing/i);
  });
});
