// `orcr logs` as a transcript: --pretty reads the run as a conversation (the
// prompt and each send where they were asked, tool calls on one line with
// their results folded, turn ends with usage and cost), through the real CLI
// and supervisor; piped output stays the raw lines unless --pretty is asked.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, MOCK_AGENT, NODE, ROOT, script, until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

/** Homes whose supervisor runs in this process; what the CLI prints is still the spawned CLI's. */
const home = useLiveHomes();

// ESC, BEL and every other C0 control but newline; DEL and C1.
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/** A one-shot agent printing a recorded Claude Code session (stream-json), then exiting 0. */
function claudeAgent(h: { dir: string }, extra: string[] = []): string {
  const lines = fs.readFileSync(path.join(ROOT, 'test/fixtures/claude/two-turns.jsonl'), 'utf8').split('\n').filter(Boolean);
  const body = [...lines, ...extra].map((l) => `printf '%s\\n' '${l.replace(/'/g, `'\\''`)}'`).join('\n');
  return script(h, 'claude.sh', `#!/bin/sh\n${body}\nexit 0\n`);
}

describe('orcr logs --pretty', () => {
  it('shows the prompt, the text, each tool call on one line with its result folded, and turn ends with usage and cost', async () => {
    const h = await home();
    const agent = claudeAgent(h);
    await h.run(['-n', 'tx', '--protocol', 'claude', '-p', 'Make the tests pass', '--', agent]);
    // The session has an api_retry (a 429 the agent retries itself): the run is blocked (limit) for a moment.
    // A wait goes on through that now (a one-shot run on a limit is continued, not ended); the transcript is read once the run has ended.
    await until(async () => (await h.show('tx')).status === 'ended', 'the run to end');
    expect(await h.wait('tx')).toBe('tx completed');
    const pretty = await h.cli(['logs', 'tx', '--pretty']);
    expect(pretty.code, pretty.stderr).toBe(0);
    const rows = pretty.stdout.split('\n');
    expect(rows[0]).toBe('› Make the tests pass');
    expect(rows).toContain("  I'll run the test suite first.");
    expect(rows).toContain('⏺ Bash npm test');
    expect(rows).toContain('  ⎿ > vitest run (+2 lines)');
    expect(rows).toContain('⏺ Edit /w/repo/src/math.test.ts');
    expect(pretty.stdout).toMatch(/^── turn 1 done · 3118 in · 287 out · 44502 cached · \$0\.0413 /m);
    expect(pretty.stdout).toMatch(/^── turn 2 done .*\$0\.0346 /m);
    // Piped, no colour: nothing a terminal would obey.
    expect(pretty.stdout).not.toMatch(CONTROL);
    // --tail counts entries.
    expect((await h.cli(['logs', 'tx', '--pretty', '--tail', '1'])).stdout).toMatch(/^── turn 2 done[^\n]*\n$/);
  });

  it('piped, logs prints the lines as written (as --raw does); --pretty with --raw or --json is refused', async () => {
    const h = await home();
    const agent = claudeAgent(h);
    await h.run(['-n', 'tx', '--protocol', 'claude', '-p', 'go', '--', agent]);
    await until(async () => (await h.show('tx')).status === 'ended', 'the run to end');
    const raw = fs.readFileSync(path.join(h.dir, 'runs', (await h.show('tx')).uuid, 'out'), 'utf8');
    expect((await h.cli(['logs', 'tx'])).stdout).toBe(raw);
    expect((await h.cli(['logs', 'tx', '--raw'])).stdout).toBe(raw);
    expect((await h.cli(['logs', 'tx', '--pretty', '--raw'])).code).toBe(2);
    expect((await h.cli(['logs', 'tx', '--pretty', '--json'])).code).toBe(2);
  });

  it('colours rows only when asked (FORCE_COLOR), never with NO_COLOR, and strips what an agent printed either way', async () => {
    const h = await home();
    const hostile = JSON.stringify({
      type: 'assistant',
      message: { id: 'm9', content: [{ type: 'text', text: 'x \u001b]52;c;cm0=\u0007 y \u001b[2J z \u009b31m' }] },
    });
    const agent = claudeAgent(h, [hostile]);
    await h.run(['-n', 'tx', '--protocol', 'claude', '--', agent]);
    await until(async () => (await h.show('tx')).status === 'ended', 'the run to end');
    // The harness turns colour off for every test: this one turns it back on.
    const colourEnv = { ...h.env };
    delete colourEnv.NO_COLOR;
    const forced = (await h.cli(['logs', 'tx', '--pretty'], { env: { ...colourEnv, FORCE_COLOR: '1' } })).stdout;
    expect(forced).toContain('\u001b[33m⏺ Bash npm test\u001b[0m');
    expect(forced).toMatch(/^ {2}x +y +z *$/m);
    // Only the colours orcr added: SGR sequences, nothing else.
    expect(forced.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(CONTROL);
    const plain = (await h.cli(['logs', 'tx', '--pretty'], { env: { ...colourEnv, FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout;
    expect(plain).not.toMatch(CONTROL);
  });

  it('shows each send where it was asked (recorded by the supervisor with the output size before it)', async () => {
    const h = await home();
    await h.run([
      '-n',
      'chat',
      '--interactive',
      '--protocol',
      'claude',
      '-p',
      'first ask',
      '--',
      NODE,
      MOCK_AGENT,
      '--format',
      'claude',
      '--scenario',
      'interactive',
      '--delay',
      '20',
    ]);
    expect(await h.wait('chat')).toBe('chat turn_complete');
    expect((await h.cli(['send', 'chat', 'second ask'])).code).toBe(0);
    expect(await h.wait('chat')).toBe('chat turn_complete');
    const rows = (await h.cli(['logs', 'chat', '--pretty'])).stdout.split('\n');
    const prompt = rows.indexOf('› first ask');
    const send = rows.indexOf('› second ask');
    const firstTurn = rows.findIndex((r) => r.startsWith('── turn 1 '));
    const secondTurn = rows.findIndex((r) => r.startsWith('── turn 2 '));
    expect(prompt).toBe(0);
    expect(firstTurn).toBeGreaterThan(prompt);
    expect(send).toBeGreaterThan(firstTurn);
    expect(secondTurn).toBeGreaterThan(send);
  });
});

describe('orcr logs --follow of a run that has ended', () => {
  it('prints what there is and returns at once, raw or pretty (it used to reconnect in a loop for ever, at full speed)', async () => {
    const h = await home();
    const agent = claudeAgent(h);
    await h.run(['-n', 'done', '--protocol', 'claude', '-p', 'Make the tests pass', '--', agent]);
    await until(async () => (await h.show('done')).status === 'ended', 'the run to end');
    expect(await h.wait('done')).toBe('done completed');
    for (const mode of ['--raw', '--pretty']) {
      // Asynchronous: a synchronous spawn would block the supervisor in this process that it asks.
      const child = spawn(NODE, [CLI, 'logs', 'done', '--follow', mode], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const r = await new Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
        child.on('close', (status, signal) => {
          clearTimeout(timer);
          resolve({ status, signal, stdout, stderr });
        }),
      );
      expect(r.signal, `logs --follow ${mode} did not return`).toBeNull();
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(mode === '--raw' ? '"type":"result"' : '⏺ Bash npm test');
    }
  });
});
