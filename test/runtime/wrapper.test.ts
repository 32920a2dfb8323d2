// The wrapper's signals and its wait loop, with the real /bin/sh (dash here)
// and real agents: an agent with input starts with INT and QUIT at default
// (dash's `cmd &` would leave them ignored), the wrapper itself keeps
// ignoring TERM, INT and HUP, and it ends when the agent ends, even when
// `kill -0` would find a stranger at the agent's old pid.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLaunch, launch, prepareRunDir, readRunStatus, signalGroup, wrapperArgs, type LaunchSpec } from '../../src/runtime/launcher.js';
import { alive, until, useRunDirs } from '../support/harness.js';
import { itWhen } from '../support/skip.js';

const SIG = { HUP: 1, INT: 2, QUIT: 3, TERM: 15 } as const;
// python3 is on every machine `npm install` works on (node-gyp needs it to
// build the native addons from source), so this is not an optional skip.
const NEEDS_PYTHON = spawnSync('python3', ['-c', 'pass']).status === 0 ? null : 'python3 not found (node-gyp needs it to build the native addons)';

const home = useRunDirs('orcr-wrap-');

function spec(h: string, argv: string[], stdinFifo: boolean): LaunchSpec {
  return { dir: path.join(h, 'run'), argv, cwd: h, env: { PATH: process.env.PATH }, stdinFifo };
}

/** The signals a /proc/PID/status line (SigIgn, SigCgt) lists, by number. */
function mask(status: string, field: string): Set<number> {
  const hex = new RegExp(`^${field}:\\s*([0-9a-f]+)$`, 'm').exec(status)?.[1];
  if (hex === undefined) throw new Error(`no ${field} in ${status}`);
  const bits = BigInt(`0x${hex}`);
  const out = new Set<number>();
  for (let n = 1; n <= 64; n++) if ((bits >> BigInt(n - 1)) & 1n) out.add(n);
  return out;
}

const out = (h: string): string => fs.readFileSync(path.join(h, 'run', 'out'), 'utf8');

describe('signals the agent starts with', () => {
  it.each([false, true])('INT, QUIT, TERM and HUP are not ignored (stdin FIFO: %s)', async (fifo) => {
    const h = home();
    // cat is exec'd as the agent itself: it reports the dispositions it was given.
    const l = launch(spec(h, ['cat', '/proc/self/status'], fifo));
    expect(await until(() => readRunStatus(path.join(h, 'run')).exit !== null, 'the agent to end')).toBe(true);
    expect(readRunStatus(path.join(h, 'run')).exit).toBe(0);
    const ignored = mask(out(h), 'SigIgn');
    for (const [name, n] of Object.entries(SIG)) expect(ignored.has(n), `${name} ignored`).toBe(false);
    expect(l.pid).toBeGreaterThan(0);
  });

  it.each([false, true])('the wrapper itself ignores TERM, INT and HUP (stdin FIFO: %s)', async (fifo) => {
    const h = home();
    const l = launch(spec(h, ['/bin/sh', '-c', 'echo up; exec sleep 30'], fifo));
    await until(() => out(h).includes('up'), 'the agent to start');
    const ignored = mask(fs.readFileSync(`/proc/${l.pid}/status`, 'utf8'), 'SigIgn');
    for (const n of [SIG.TERM, SIG.INT, SIG.HUP]) expect(ignored.has(n)).toBe(true);
    // Signals to the group end the agent, never the wrapper before it records the status.
    signalGroup(l.pid, 'SIGINT');
    expect(await until(() => readRunStatus(path.join(h, 'run')).exit, 'the exit status after SIGINT')).toBe(130);
    await until(() => !alive(l.pid), 'the wrapper to end');
  });

  it('a program whose path contains "=" still gets its argv intact and INT at default', async () => {
    const h = home();
    const bin = path.join(h, 'a=b');
    fs.mkdirSync(bin);
    const agent = path.join(bin, 'agent');
    fs.writeFileSync(agent, '#!/bin/sh\nprintf "%s\\n" "$@"\nexec grep -E "^SigIgn" /proc/self/status\n', { mode: 0o755 });
    const args = ['-i', 'A=B', '--', '$(echo no)', '*', 'two words', '--default-signal=TERM'];
    launch(spec(h, [agent, ...args], true));
    await until(() => readRunStatus(path.join(h, 'run')).exit !== null, 'the agent to end');
    const lines = out(h).split('\n');
    expect(lines.slice(0, args.length)).toEqual(args);
    expect(mask(lines[args.length]!, 'SigIgn').has(SIG.INT)).toBe(false);
  });

  for (const fifo of [false, true])
    itWhen(NEEDS_PYTHON, `SIGINT to the group ends a Python agent (stdin FIFO: ${fifo})`, async () => {
      const h = home();
      // Python installs its KeyboardInterrupt handler only when INT was not ignored at start.
      const l = launch(spec(h, ['python3', '-c', 'import signal, sys, time; print(signal.getsignal(signal.SIGINT), flush=True); time.sleep(60)'], fifo));
      await until(() => out(h).includes('\n'), 'python to start');
      expect(out(h)).toContain('default_int_handler');
      signalGroup(l.pid, 'SIGINT');
      // KeyboardInterrupt: a traceback and exit status 1 (or 130 on newer Pythons).
      const exit = await until(() => readRunStatus(path.join(h, 'run')).exit, 'python to end on SIGINT');
      expect([1, 130]).toContain(exit);
    });
});

describe('the wait loop (stdin FIFO)', () => {
  it('ends as soon as the agent ends, with its exit status recorded first', async () => {
    const h = home();
    const l = launch(spec(h, ['/bin/sh', '-c', 'exit 5'], true));
    await until(() => !alive(l.pid), 'the wrapper to end', 5_000, 10);
    expect(readRunStatus(path.join(h, 'run'))).toMatchObject({ pid: l.pid, exit: 5 });
  });

  it('USR1 closes the input, and more USR1s while the agent finishes cost nothing', async () => {
    const h = home();
    const l = launch(spec(h, ['/bin/sh', '-c', 'echo ready; cat >/dev/null; echo eof; sleep 0.3; exit 4'], true));
    await until(() => out(h).includes('ready'), 'the agent to start');
    process.kill(l.pid, 'SIGUSR1');
    await until(() => out(h).includes('eof'), "EOF on the agent's input");
    process.kill(l.pid, 'SIGUSR1');
    process.kill(l.pid, 'SIGUSR1');
    expect(alive(l.pid)).toBe(true); // still waiting for the agent
    expect(await until(() => readRunStatus(path.join(h, 'run')).exit, 'the exit status')).toBe(4);
    await until(() => !alive(l.pid), 'the wrapper to end', 5_000, 10);
  });

  it("does not spin when kill -0 finds a stranger at the agent's old pid", async () => {
    const h = home();
    const s = spec(h, ['/bin/sh', '-c', 'exit 3'], true);
    const program = checkLaunch(s);
    prepareRunDir(s.dir);
    const args = wrapperArgs(s, program);
    // A shell function shadows the kill builtin: every `kill -0` succeeds, as
    // it does once the reaped agent's pid is reused by another process.
    args[1] = `kill() { return 0; }\n${args[1]}`;
    const child = spawn('/bin/sh', args, { cwd: h, stdio: 'ignore', detached: true });
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        signalGroup(child.pid!, 'SIGKILL');
        reject(new Error('the wrapper is still running 5 s after its agent ended'));
      }, 5_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(0);
    expect(readRunStatus(s.dir)).toMatchObject({ pid: child.pid, exit: 3 });
  });
});
