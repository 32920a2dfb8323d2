// The wrapper's status file (its pid, then the agent's exit status) and the
// files a run makes: the real /bin/sh wrapper, real processes.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { launch, prepareRunDirAsync, readExitStatus, readRunStatus } from '../../src/runtime/launcher.js';
import { until, useRunDirs } from '../support/harness.js';

const tmp = useRunDirs('orcr-launch-');

describe('readRunStatus', () => {
  it('reads the pid, then the exit status once its line is whole', () => {
    const d = tmp();
    expect(readRunStatus(d)).toMatchObject({ pid: null, exit: null });
    fs.writeFileSync(path.join(d, 'status'), '4242\n');
    expect(readRunStatus(d)).toMatchObject({ pid: 4242, exit: null });
    fs.appendFileSync(path.join(d, 'status'), 'exit 1');
    expect(readRunStatus(d)).toMatchObject({ pid: 4242, exit: null }); // half a line: not yet
    fs.appendFileSync(path.join(d, 'status'), '37\n');
    expect(readRunStatus(d)).toMatchObject({ pid: 4242, exit: 137 });
    expect(readExitStatus(d)).toBe(137);
  });

  it('reads the pid and exit files of run directories made before the status file', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'pid'), '99\n');
    expect(readRunStatus(d)).toMatchObject({ pid: 99, exit: null });
    fs.writeFileSync(path.join(d, 'exit'), '0');
    expect(readRunStatus(d).exit).toBeNull();
    fs.writeFileSync(path.join(d, 'exit'), '0\n');
    expect(readRunStatus(d)).toMatchObject({ pid: 99, exit: 0 });
  });
});

describe('the wrapper', () => {
  it.each([false, true])('records its pid and the exit status; a run makes three files (stdin FIFO: %s)', async (fifo) => {
    const home = tmp();
    const dir = path.join(home, 'run');
    await prepareRunDirAsync(dir);
    const l = launch({ dir, argv: ['/bin/sh', '-c', 'echo out; echo err >&2; exit 3'], cwd: home, env: { PATH: process.env.PATH }, stdinFifo: fifo });
    const exit = await until(() => readRunStatus(dir).exit, 'the exit status');
    expect(exit).toBe(3);
    expect(readRunStatus(dir).pid).toBe(l.pid);
    expect(fs.readFileSync(path.join(dir, 'out'), 'utf8')).toBe('out\n');
    expect(fs.readFileSync(path.join(dir, 'err'), 'utf8')).toBe('err\n');
    expect(fs.readdirSync(dir).sort()).toEqual(fifo ? ['err', 'in', 'out', 'status'] : ['err', 'out', 'status']);
  });

  it.each([false, true])('SIGUSR1 (close input) never costs the exit status (stdin FIFO: %s)', async (fifo) => {
    const home = tmp();
    const dir = path.join(home, 'run');
    const l = launch({ dir, argv: ['/bin/sh', '-c', 'echo ready; read x; sleep 0.3; exit 4'], cwd: home, env: { PATH: process.env.PATH }, stdinFifo: fifo });
    // As the supervisor does: input is closed at a turn's end, so after the agent has said something.
    await until(() => fs.readFileSync(path.join(dir, 'out'), 'utf8').includes('ready'), 'the agent to start');
    process.kill(l.pid, 'SIGUSR1');
    expect(await until(() => readRunStatus(dir).exit, 'the exit status')).toBe(4);
  });

  it('a relaunch in the same directory starts its status over', async () => {
    const home = tmp();
    const dir = path.join(home, 'run');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'status'), '1234\nexit 9\n');
    const l = launch({ dir, argv: ['/bin/true'], cwd: home, env: { PATH: process.env.PATH }, stdinFifo: false });
    await until(() => readRunStatus(dir).exit === 0, 'the new exit status');
    expect(readRunStatus(dir)).toMatchObject({ pid: l.pid, exit: 0 });
  });
});
