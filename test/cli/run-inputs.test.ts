// What a run inherits and what reaches it: the caller's environment, checks
// made at `orcr run` rather than at launch, names that stay unambiguous, and
// an interactive agent started without a prompt.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { homePaths } from '../../src/config/home.js';
import { script, until, useHomes } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

/** Homes whose supervisor runs in this process (most tests). */
const home = useLiveHomes();
/** Homes whose supervisor is a process of its own, started by the spawned CLI: to kill it, or to see the CLI refuse a config. */
const spawned = useHomes();
const esc = (t: string): string => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('a run inherits its caller', () => {
  it("starts with the environment of the `orcr run` that made it, PATH included, not the first client's", async () => {
    const h = spawned();
    const out = path.join(h.dir, 'seen');
    // The first client starts the supervisor with FOO=first.
    expect(h.cli(['stats'], { env: { ...h.env, FOO: 'first' } }).code).toBe(0);
    const bin = path.join(h.dir, 'bin');
    fs.mkdirSync(bin);
    script(h, 'bin/only-on-my-path', `#!/bin/sh\necho "FOO=$FOO BAR=$BAR" > ${out}\n`);
    const r = h.cli(['run', '-n', 'env', '-e', 'BAR=dash-e', '--', 'only-on-my-path'], {
      env: { ...h.env, FOO: 'second', PATH: `${bin}:${process.env.PATH}` },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(h.cli(['wait', 'env']).stdout.trim()).toBe('env completed');
    expect(fs.readFileSync(out, 'utf8').trim()).toBe('FOO=second BAR=dash-e');
  });

  it("refuses at `orcr run` a command not on the caller's PATH, or a cwd that is not a directory (exit 2, named)", async () => {
    const h = await home();
    const missing = await h.cli(['run', '--', 'no-such-program-xyz']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no-such-program-xyz');
    expect(missing.stderr).toMatch(/not found/);
    const file = path.join(h.dir, 'a-file');
    fs.writeFileSync(file, '');
    const notDir = await h.cli(['run', '--cwd', file, '--', 'true']);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toContain(file);
    // Through the socket too (fan-out lines are checked the same way).
    const fan = await h.cli(['run', '--from', '-'], { input: `{"command":["true"]}\n{"command":["no-such-program-xyz"]}\n` });
    expect(fan.code).toBe(2);
    expect(fan.stderr).toContain('no-such-program-xyz');
    // Nothing was queued.
    expect(await h.ps({ all: true })).toEqual([]);
  });
});

describe('a run that execve would refuse is refused at enqueue (it would fail at admission with E2BIG)', () => {
  const MiB = 'x'.repeat(1024 * 1024);
  const LIMIT = 'one argument or NAME=value must be less than 128 KiB on Linux (MAX_ARG_STRLEN); give large input on stdin or in a file';

  it('one string over 128 KiB, a variable or an argument of a --from line, is named with its line and field; nothing queued', async () => {
    const h = await home();
    const lines = [
      JSON.stringify({ name: 'ok', command: ['true'] }),
      JSON.stringify({ command: ['true'], env: { BIG: MiB } }),
      JSON.stringify({ command: ['echo', 'a', MiB] }),
    ].join('\n');
    const r = await h.cli(['run', '--from', '-'], { input: lines });
    expect(r.code).toBe(2);
    const errs = r.stderr.split('\n');
    expect(errs[0]).toMatch(new RegExp(`^orcr: stdin:2: "env" has a variable "BIG" of 1 MiB: ${esc(LIMIT)}, got \\{"BIG":"x+…$`));
    expect(errs[1]).toMatch(new RegExp(`^orcr: stdin:3: "command" has an argument \\(3\\) of 1 MiB: ${esc(LIMIT)}, got \\["echo","a","x+…$`));
    expect(errs[2]).toBe('orcr: nothing was queued (2 bad lines in stdin)');
    // (A flag cannot carry that much: the shell's own execve of orcr refuses it first.)
    // 128 KiB less the NUL is the most one string may hold.
    expect((await h.cli(['run', '-n', 'edge', '-e', `E=${'z'.repeat(128 * 1024 - 3)}`, '--', 'true'])).code).toBe(0);
    expect(await h.wait('edge')).toBe('edge completed');
    expect((await h.ps({ all: true })).map((x) => x.name)).toEqual(['edge']);
  });

  it('strings each within 128 KiB but more than ARG_MAX together are refused, naming the total and the line', async () => {
    const h = await home();
    const many = Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`V${i}`, 'v'.repeat(100 * 1024)]));
    const r = await h.cli(['run', '--from', '-'], {
      input: JSON.stringify({ name: 'fine', command: ['true'] }) + '\n' + JSON.stringify({ command: ['true'], env: many }),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^orcr: stdin:2: "command" and "env" with your environment come to 2\.\d MiB, and a program here can be started with at most \d+(\.\d)? (KiB|MiB) of them \(ARG_MAX/,
    );
    // The supervisor checks it too, for any client (a spec named by its place), with the environment the run will have.
    await h.cli(['ps']);
    const c = await Client.connect(homePaths(h.dir), { autoStart: false });
    try {
      const err = await c
        .call('run.enqueue', {
          specs: [
            { command: ['true'], cwd: h.dir },
            { command: ['true'], cwd: h.dir },
          ],
          caller_env: { PATH: process.env.PATH!, ...many },
        })
        .catch((e: Error) => e);
      expect((err as Error).message).toMatch(
        /^spec 1: the command and the environment \(the caller's, plus "env"\) come to 2\.\d MiB, and a program here can be started with at most/,
      );
    } finally {
      c.close();
    }
    expect(await h.ps({ all: true })).toEqual([]);
  });

  it("a preset's {prompt} puts the prompt in argv: one over 128 KiB is refused at enqueue, naming it", async () => {
    const h = await home({ providers: { argvy: { command: ['echo', '{prompt}'] } } });
    const file = path.join(h.dir, 'prompt.txt');
    fs.writeFileSync(file, 'p'.repeat(200 * 1024));
    const r = await h.cli(['run', '-a', 'argvy', '-p', `@${file}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`orcr: the command of provider "argvy" with the prompt in it ({prompt}) has an argument (2) of 200 KiB: ${LIMIT}\n`);
    // On stdin (a preset without {prompt}, or beside a command) a prompt has no such limit.
    expect((await h.cli(['run', '-n', 'stdin', '-p', `@${file}`, '--', 'wc', '-c'])).code).toBe(0);
    expect(await h.wait('stdin')).toBe('stdin completed');
  });
});

describe('a prompt beside an explicit command', () => {
  it('reaches a one-shot command on stdin, followed by EOF', async () => {
    const h = await home();
    const out = path.join(h.dir, 'got');
    await h.run(['-n', 'reader', '-p', 'hello there', '--', 'sh', '-c', `cat > ${out}`]);
    expect((await h.cli(['wait', 'reader', '--timeout', '20s'])).stdout.trim()).toBe('reader completed');
    expect(fs.readFileSync(out, 'utf8')).toBe('hello there\n');
  });

  it('reaches an agent that takes input (jsonl) as its first input line', async () => {
    const h = await home();
    const out = path.join(h.dir, 'got');
    const agent = script(
      h,
      'first-line.sh',
      `#!/bin/sh\necho '{"type":"ready"}'\nIFS= read -r line\nprintf '%s\\n' "$line" > ${out}\necho '{"type":"result","ok":true}'\n`,
    );
    await h.run(['-n', 'agent', '--protocol', 'jsonl', '-p', 'do it', '--', agent]);
    expect((await h.cli(['wait', 'agent', '--timeout', '20s'])).stdout.trim()).toBe('agent completed');
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual({ type: 'input', text: 'do it' });
  });
});

describe('prompts never travel in argv', () => {
  it.each([
    [
      'codex-exec',
      '{"type":"thread.started","thread_id":"t1"}\n{"type":"turn.started"}\n{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"done"}}\n{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}',
    ],
    [
      'gemini',
      '{"type":"init","session_id":"s1","model":"m"}\n{"type":"message","role":"assistant","content":"done"}\n{"type":"result","status":"success","stats":{"total_tokens":2,"input_tokens":1,"output_tokens":1}}',
    ],
  ])('the %s preset gets its prompt on stdin, and ps/show/events carry no prompt text', async (agent, transcript) => {
    const h = await home();
    const bin = path.join(h.dir, 'bin');
    fs.mkdirSync(bin);
    const argvFile = path.join(h.dir, 'argv');
    const stdinFile = path.join(h.dir, 'stdin');
    // A stand-in for the real CLI: records its argv and stdin, then speaks its format.
    script(h, `bin/${agent.replace(/-exec$/, '')}`, `#!/bin/sh\nprintf '%s\\n' "$@" > ${argvFile}\ncat > ${stdinFile}\ncat <<'EOF'\n${transcript}\nEOF\n`);
    const secret = 'SECRET-PROMPT-' + 'x'.repeat(200_000);
    const promptFile = path.join(h.dir, 'prompt.txt');
    fs.writeFileSync(promptFile, secret);
    const env = { ...h.env, PATH: `${bin}:${process.env.PATH}` };
    // 200 KB: more than one argv string may hold (128 KiB).
    const r = await h.cli(['run', '-n', 'p', '-a', agent, '-p', secret.slice(0, 100), '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const w = await h.cli(['wait', 'p', '--timeout', '20s'], { env });
    expect(w.stdout.trim(), (await h.cli(['show', 'p'], { env })).stdout + fs.readdirSync(path.join(h.dir, 'runs')).join()).toBe('p completed');
    expect(fs.readFileSync(stdinFile, 'utf8')).toBe(secret.slice(0, 100) + '\n');
    expect(fs.readFileSync(argvFile, 'utf8')).not.toContain('SECRET');
    for (const args of [
      ['show', 'p', '--json'],
      ['ps', '--all', '--json'],
      ['events', '--json'],
      ['show', 'p'],
      ['ps', '--all'],
    ]) {
      expect((await h.cli(args, { env })).stdout).not.toContain('SECRET');
    }
  });

  it("a config preset's {prompt} is the user's choice: argv gets it, the command shown keeps the placeholder", async () => {
    const h = await home({ providers: { echoer: { command: ['sh', '-c', 'echo "$1"', 'sh', '{prompt}'] } } });
    await h.run(['-n', 'e', '-a', 'echoer', '-p', 'SECRET-hi']);
    expect(await h.wait('e')).toBe('e completed');
    expect((await h.cli(['logs', 'e'])).stdout.trim()).toBe('SECRET-hi');
    const run = await h.show('e');
    expect(run.command).toEqual(['sh', '-c', 'echo "$1"', 'sh', '{prompt}']);
  });
});

describe('names stay unambiguous', () => {
  it("refuses a name an active run holds, and one that reads as another run's uuid prefix", async () => {
    const h = await home({ concurrency: { max: 1 } });
    const first = await h.run(['-n', 'twin', '--', 'sleep', '30']);
    const again = await h.cli(['run', '-n', 'twin', '--', 'true']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('"twin"');
    const fan = await h.cli(['run', '--from', '-'], { input: '{"name":"pair","command":["true"]}\n{"name":"pair","command":["true"]}\n' });
    expect(fan.code).toBe(2);
    const prefix = await h.cli(['run', '-n', first.uuid.slice(0, 6), '--', 'true']);
    expect(prefix.code).toBe(2);
    expect(prefix.stderr).toMatch(/uuid/);
    // Once the holder has ended, the name is free again.
    await h.cli(['kill', 'twin']);
    await until(async () => (await h.ps()).length === 0, 'the run to end');
    expect((await h.cli(['run', '-n', 'twin', '--', 'true'])).code).toBe(0);
  });
});

describe('an interactive run started without a prompt', () => {
  const READY_AGENT = `#!/bin/sh
echo '{"type":"ready"}'
while IFS= read -r line; do
  echo '{"type":"turn_start"}'
  echo '{"type":"text","text":"got it"}'
  echo '{"type":"turn_end"}'
done
`;

  it('is idle once its agent is ready, and accepts send', async () => {
    const h = await home();
    const agent = script(h, 'ready.sh', READY_AGENT);
    await h.run(['-n', 'chat', '--interactive', '--protocol', 'jsonl', '--', agent]);
    expect((await h.cli(['wait', 'chat', '--timeout', '20s'])).stdout.trim()).toBe('chat turn_complete');
    expect(await h.show('chat')).toMatchObject({ status: 'idle', turns: 0 });
    const sent = await h.cli(['send', 'chat', 'hello']);
    expect(sent.code, sent.stderr).toBe(0);
    expect((await h.cli(['wait', 'chat', '--timeout', '20s'])).stdout.trim()).toBe('chat turn_complete');
    expect(await h.show('chat')).toMatchObject({ turns: 1, last_text: 'got it' });
  });

  it('with an agent that says nothing before its first input (Claude Code stream-json), is idle as soon as it runs', async () => {
    const h = await home();
    // Like \`claude -p --input-format stream-json\`: silent until the first user message.
    const agent = script(
      h,
      'claude.sh',
      `#!/bin/sh
while IFS= read -r line; do
  echo '{"type":"system","subtype":"init","session_id":"s1"}'
  echo '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":3,"output_tokens":1}}}'
  echo '{"type":"result","subtype":"success","is_error":false,"result":"hi","total_cost_usd":0.001,"usage":{"input_tokens":3,"output_tokens":2}}'
done
`,
    );
    await h.run(['-n', 'quiet', '--interactive', '--protocol', 'claude', '--', agent]);
    const first = (await h.cli(['wait', 'quiet', '--timeout', '20s'])).stdout.trim();
    expect(
      first,
      JSON.stringify(await h.show('quiet')) + JSON.stringify((await h.events<{ type: string; data: unknown }>()).map((e) => [e.type, e.data])),
    ).toBe('quiet turn_complete');
    expect((await h.cli(['send', 'quiet', 'hello'])).code).toBe(0);
    expect((await h.cli(['wait', 'quiet', '--timeout', '20s'])).stdout.trim()).toBe('quiet turn_complete');
    expect(await h.show('quiet')).toMatchObject({ turns: 1, last_text: 'hi' });
  });
});

describe('input of any size', () => {
  it('a 1 MB send reaches an interactive agent whole, after the pipe fills many times over', async () => {
    const h = await home();
    const got = path.join(h.dir, 'got');
    // A stand-in that reads slowly: the pipe (64 KiB) fills, and the rest must follow as it drains.
    const agent = script(
      h,
      'slow-reader.mjs',
      `#!${process.execPath}
import fs from 'node:fs';
import readline from 'node:readline';
console.log(JSON.stringify({ type: 'ready' }));
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  const text = JSON.parse(line).text;
  fs.writeFileSync(${JSON.stringify(got)}, text);
  console.log(JSON.stringify({ type: 'turn_start' }));
  console.log(JSON.stringify({ type: 'turn_end' }));
}
`,
    );
    await h.run(['-n', 'big', '--interactive', '--protocol', 'jsonl', '--', agent]);
    expect((await h.cli(['wait', 'big', '--timeout', '20s'])).stdout.trim()).toBe('big turn_complete');
    const text = 'abcdefghij'.repeat(100_000) + '\u00e9\u4e16';
    const c = await Client.connect(homePaths(h.dir), { autoStart: false });
    try {
      await c.call('run.send', { ref: 'big', text });
    } finally {
      c.close();
    }
    expect((await h.cli(['wait', 'big', '--timeout', '30s'])).stdout.trim()).toBe('big turn_complete');
    expect(fs.readFileSync(got, 'utf8')).toBe(text);
    expect(await h.show('big')).toMatchObject({ input_seq: 1, turns: 1 });
  });
});

describe('numbers users read', () => {
  it('JSON has whole milliseconds and costs without float noise', async () => {
    const h = await home({ budgets: { run: { max_cost_usd: 10 } }, providers: { a: { price: { input_per_mtok: 1, output_per_mtok: 1 } } } });
    const agent = script(
      h,
      'costly.sh',
      `#!/bin/sh
echo '{"type":"turn_start"}'
echo '{"type":"usage","input_tokens":1,"output_tokens":1,"cost_usd":0.1}'
echo '{"type":"usage","input_tokens":1,"output_tokens":1,"cost_usd":0.2}'
echo '{"type":"turn_end"}'
echo '{"type":"result","ok":true}'
`,
    );
    await h.run(['-n', 'a', '-a', 'a', '--protocol', 'jsonl', '--', agent]);
    expect(await h.wait('a')).toBe('a completed');
    const run = await h.show('a');
    expect(run.cost_usd).toBe(0.3);
    expect(run.budget.cost_usd.used).toBe(0.3);
    expect(run.budget.cost_usd.fraction).toBe(0.03);
    expect(Number.isInteger(run.budget.time_ms.used)).toBe(true);
    for (const e of await h.events()) {
      expect(Number.isInteger(e.ts)).toBe(true);
      expect(JSON.stringify(e.data)).not.toMatch(/\d\.\d{7,}/);
    }
  });
});
