// Prompts and input from files and stdin: `-p @FILE`, `-p -`, `send RUN -`,
// delivered whole to a stand-in agent; above the socket's frame limit the
// CLI refuses before sending.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_FRAME_BYTES } from '../../src/protocol/wire.js';
import { parseRunArgs } from '../../src/cli/run-args.js';
import { NODE, script, until, useHomes } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

/** Homes whose supervisor runs in this process; what the CLI reads from files and stdin is still the spawned CLI's. */
const home = useLiveHomes();
/** Homes no supervisor ever starts on: the CLI refuses before it sends anything. */
const spawned = useHomes();

/** A jsonl agent that writes the text of its first input line to `argv[2]`, then ends its turn and exits. */
const ONE_SHOT = `
const fs = require('fs');
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
say({ type: 'ready' });
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  const nl = buf.indexOf('\\n');
  if (nl < 0) return;
  fs.writeFileSync(process.argv[2], JSON.parse(buf.slice(0, nl)).text);
  say({ type: 'turn_start' });
  say({ type: 'turn_end' });
  say({ type: 'result', ok: true });
  process.exit(0);
});
`;

/** An interactive jsonl agent: idle after a first empty turn; each input's text is written to `argv[2]` + its number. */
const INTERACTIVE = `
const fs = require('fs');
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
say({ type: 'ready' });
say({ type: 'turn_start' });
say({ type: 'turn_end' });
let buf = '';
let n = 0;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let nl;
  while ((nl = buf.indexOf('\\n')) >= 0) {
    const msg = JSON.parse(buf.slice(0, nl));
    buf = buf.slice(nl + 1);
    say({ type: 'turn_start' });
    fs.writeFileSync(process.argv[2] + '.' + ++n, msg.text);
    say({ type: 'turn_end' });
  }
});
process.stdin.on('end', () => process.exit(0));
`;

/** Text that JSON and the FIFO must carry exactly: quotes, backslashes, tabs, newlines, CJK, emoji. */
function bigText(bytes: number): string {
  const unit = 'line "quoted" \\ back\tslash 世界 🚀 ü\n';
  return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
}

const sha = (s: string | Buffer): string => crypto.createHash('sha256').update(s).digest('hex');

function taker(h: { dir: string; writeConfig(config: unknown): void }): string {
  const agent = script(h, 'taker.cjs', ONE_SHOT);
  const got = path.join(h.dir, 'got');
  // No {prompt} in the command: the prompt is the agent's first input line, never argv.
  h.writeConfig({ providers: { taker: { command: [NODE, agent, got], protocol: 'jsonl' } } });
  return got;
}

describe('prompts from files and stdin', () => {
  it('-p @FILE, -p - and -p @@TEXT give the agent exactly that prompt', async () => {
    const h = await home();
    const got = taker(h);
    const file = path.join(h.dir, 'prompt.md');
    const text = 'Review this:\n\n  "a" \\ b\t世界 🚀\n';
    fs.writeFileSync(file, text);
    for (const [args, input, expected] of [
      [['-p', `@${file}`], undefined, text],
      [['-p', '-'], text + 'from stdin', text + 'from stdin'],
      [['-p', '@@mention'], undefined, '@mention'],
      [['-p', 'plain words'], undefined, 'plain words'],
    ] as const) {
      fs.rmSync(got, { force: true });
      const r = await h.cli(['run', '-n', 'p', '-a', 'taker', ...args], { input });
      expect(r.code, r.stderr).toBe(0);
      expect(await h.wait('p')).toBe('p completed');
      expect(fs.readFileSync(got, 'utf8')).toBe(expected);
    }
  });

  it('a missing or unreadable prompt file is a usage error naming it, and nothing is queued', () => {
    const h = spawned();
    taker(h);
    const missing = h.cli(['run', '-a', 'taker', '-p', '@no-such-file.md']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('orcr: -p @FILE: cannot read "no-such-file.md": no such file (write @@ for a prompt that starts with "@")\n');
    const dir = h.cli(['run', '-a', 'taker', '--prompt', `@${h.dir}`]);
    expect(dir.code).toBe(2);
    expect(dir.stderr).toContain(`--prompt @FILE: cannot read ${JSON.stringify(h.dir)}: it is a directory`);
    const empty = h.cli(['run', '-a', 'taker', '-p', '@']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/-p @FILE needs a file name after "@"/);
    expect(fs.existsSync(path.join(h.dir, 'orcr.db'))).toBe(false);
  });

  it("-p - reads stdin only where the caller offers it (the TUI's stdin is its keyboard)", () => {
    expect(() => parseRunArgs(['-a', 'x', '-p', '-'], '/')).toThrow(/^-p -: cannot read standard input: there is no standard input to read here$/);
    expect(parseRunArgs(['-a', 'x', '-p', '-'], '/', { stdin: () => 'typed' }).prompt).toBe('typed');
  });

  it('a 1 MB prompt from -p @FILE reaches a one-shot agent whole on its stdin', async () => {
    const h = await home();
    const got = path.join(h.dir, 'got');
    // A plain preset takes no input after its prompt: the prompt is all of its stdin, then EOF.
    h.writeConfig({ providers: { catter: { command: ['sh', '-c', `cat > ${got}`], protocol: 'plain' } } });
    const text = bigText(1024 * 1024);
    const file = path.join(h.dir, 'big.md');
    fs.writeFileSync(file, text);
    const r = await h.cli(['run', '-n', 'big', '-a', 'catter', '-p', `@${file}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(await h.wait('big')).toBe('big completed');
    const received = fs.readFileSync(got);
    expect(received.length).toBe(Buffer.byteLength(text));
    expect(sha(received)).toBe(sha(text));
  });

  // Through the agent's input FIFO: far more than the pipe's 64 KiB at once.
  it('a 1 MB prompt from -p @FILE reaches an agent that takes input whole (its first input line)', async () => {
    const h = await home();
    const got = taker(h);
    const text = bigText(1024 * 1024);
    const file = path.join(h.dir, 'big.md');
    fs.writeFileSync(file, text);
    const r = await h.cli(['run', '-n', 'big', '-a', 'taker', '-p', `@${file}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(await h.wait('big')).toBe('big completed');
    const received = fs.readFileSync(got);
    expect(received.length).toBe(Buffer.byteLength(text));
    expect(sha(received)).toBe(sha(text));
  });

  it('send RUN - gives an interactive agent 200 KB from stdin, whole', async () => {
    const h = await home();
    const agent = script(h, 'chat.cjs', INTERACTIVE);
    const got = path.join(h.dir, 'input');
    await h.run(['-n', 'chat', '--interactive', '--protocol', 'jsonl', '--', NODE, agent, got]);
    expect(await h.wait('chat')).toBe('chat turn_complete');
    const text = bigText(200 * 1024);
    const s = await h.cli(['send', 'chat', '-'], { input: text });
    expect(s.code, s.stderr).toBe(0);
    expect(await h.wait('chat')).toBe('chat turn_complete');
    const received = await until(() => fs.existsSync(`${got}.1`) && fs.readFileSync(`${got}.1`), 'the agent to write its input');
    expect(received.length).toBe(Buffer.byteLength(text));
    expect(sha(received)).toBe(sha(text));
  });

  it('send RUN - hands 200 KB from stdin to the supervisor whole (its input_sent event counts every byte)', async () => {
    const h = await home();
    const agent = script(h, 'chat.cjs', INTERACTIVE);
    await h.run(['-n', 'chat', '--interactive', '--protocol', 'jsonl', '--', NODE, agent, path.join(h.dir, 'input')]);
    expect(await h.wait('chat')).toBe('chat turn_complete');
    const text = bigText(200 * 1024);
    const s = await h.cli(['send', 'chat', '-', '--json'], { input: text });
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ name: 'chat', input_seq: 1 });
    const sent = (await h.events<{ type: string; data: { bytes: number } }>()).find((e) => e.type === 'input_sent');
    expect(sent?.data.bytes).toBe(Buffer.byteLength(JSON.stringify({ type: 'input', text }) + '\n'));
    await h.kill(['chat']);
  });

  it('send RUN - reads the text from stdin (a short text: the FIFO takes it in one write)', async () => {
    const h = await home();
    const agent = script(h, 'chat.cjs', INTERACTIVE);
    const got = path.join(h.dir, 'input');
    await h.run(['-n', 'chat', '--interactive', '--protocol', 'jsonl', '--', NODE, agent, got]);
    expect(await h.wait('chat')).toBe('chat turn_complete');
    const text = bigText(16 * 1024);
    const s = await h.cli(['send', 'chat', '-'], { input: text });
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout.trim()).toBe('chat input 1');
    const received = await until(() => fs.existsSync(`${got}.1`) && fs.readFileSync(`${got}.1`, 'utf8'), 'the agent to write its input');
    expect(received).toBe(text);
    // Words after the run are still the text, joined by spaces; a lone "-" is the only stdin marker.
    expect(await h.wait('chat')).toBe('chat turn_complete');
    expect((await h.cli(['send', 'chat', 'two', 'words'])).code).toBe(0);
    expect(await until(() => fs.existsSync(`${got}.2`) && fs.readFileSync(`${got}.2`, 'utf8'), 'the second input')).toBe('two words');
    await h.kill(['chat']);
  });

  it('above the socket frame limit, run and send refuse before sending, naming what is too big', async () => {
    const cold = spawned();
    taker(cold);
    const huge = path.join(cold.dir, 'huge.md');
    fs.writeFileSync(huge, 'x'.repeat(MAX_FRAME_BYTES + 1));
    const r = cold.cli(['run', '-a', 'taker', '-p', `@${huge}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^orcr: the prompt: too large to send: the request would be 8(\.\d)? MiB \(\d+ bytes as JSON\), and the supervisor takes at most 8 MiB \(8388608 bytes\) in one request\n$/,
    );
    expect(fs.existsSync(path.join(cold.dir, 'orcr.db')), 'nothing was sent').toBe(false);

    const h = await home();
    taker(h);
    const file = path.join(h.dir, 'fits.md');
    // Just under the limit goes through (the request, not the prompt alone, is what counts).
    const fits = 'y'.repeat(MAX_FRAME_BYTES - 64 * 1024);
    fs.writeFileSync(file, fits);
    const ok = await h.cli(['run', '-n', 'fits', '-a', 'taker', '-p', `@${file}`, '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).name).toBe('fits');

    const s = await h.cli(['send', 'fits', '-'], { input: 'z'.repeat(MAX_FRAME_BYTES) });
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/^orcr: the text: too large to send: /);
    const sj = await h.cli(['send', 'fits', '-', '--json'], { input: 'z'.repeat(MAX_FRAME_BYTES) });
    expect(JSON.parse(sj.stdout).error.code).toBe('usage');
  });

  it('a fan-out too large for one request is refused whole, before anything is sent', () => {
    const h = spawned();
    const prompt = 'x'.repeat(3000);
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ name: `n${i}`, command: ['true'], prompt })).join('\n');
    const r = h.cli(['run', '--from', '-'], { input: lines });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^orcr: the 3000 run specs: too large to send: the request would be 8\.\d MiB/);
    expect(fs.existsSync(path.join(h.dir, 'orcr.db')), 'nothing was sent').toBe(false);
  });
});
