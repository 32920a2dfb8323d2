// Secret values kept off the command line, where every local user can read
// them in /proc/PID/cmdline while the CLI runs: `-e KEY` takes the value from
// the caller's environment (as docker does), `--env-from FILE` from a file.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, NODE, until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

/** Homes whose supervisor runs in this process; what the CLI prints is still the spawned CLI's. */
const home = useLiveHomes();

type Shown = { env: Record<string, string>; env_keys: string[] };

describe('-e KEY and --env-from', () => {
  it("-e KEY takes the value from the caller's environment; an unset one is a usage error naming it", async () => {
    const h = await home();
    const out = path.join(h.dir, 'seen');
    const r = await h.cli(['run', '-n', 'k', '-e', 'TOKEN', '-e', 'EMPTY', '--', 'sh', '-c', `echo "$TOKEN" > ${out}`], {
      env: { ...h.env, TOKEN: 's3cr3t', EMPTY: '' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await h.wait('k')).toBe('k completed');
    expect(fs.readFileSync(out, 'utf8')).toBe('s3cr3t\n');
    // Recorded as the run's own variables, as -e KEY=VALUE is.
    const shown = await h.json<Shown>(['show', 'k', '--env']);
    expect(shown.env).toEqual({ TOKEN: 's3cr3t', EMPTY: '' });

    const unset = await h.cli(['run', '-e', 'NOT_SET_ANYWHERE', '--', 'true']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toBe('orcr: -e NOT_SET_ANYWHERE: the variable is not set in this environment (export it, give -e KEY=VALUE, or use --env-from)\n');
    expect((await h.cli(['run', '-e', '=x', '--', 'true'])).stderr).toBe('orcr: -e needs KEY=VALUE or KEY, got "=x"\n');
  });

  it('--env-from reads KEY=VALUE lines (comments, blank lines, CRLF, "=" in a value); -e wins over it; a bad line names its number', async () => {
    const h = await home();
    const file = path.join(h.dir, 'secrets.env');
    fs.writeFileSync(file, '# the deploy keys\n\nTOKEN=s3cr3t\r\n  URL=https://x/?a=b&c=d\nQUOTED="kept as written"\nEMPTY=\nOVER=file\n');
    const other = path.join(h.dir, 'more.env');
    fs.writeFileSync(other, 'MORE=yes');
    const r = await h.cli(['run', '-n', 'f', '--env-from', file, '--env-from', other, '-e', 'OVER=flag', '--', 'true']);
    expect(r.stderr).toBe('');
    expect((await h.json<Shown>(['show', 'f', '--env'])).env).toEqual({
      TOKEN: 's3cr3t',
      URL: 'https://x/?a=b&c=d',
      QUOTED: '"kept as written"',
      EMPTY: '',
      OVER: 'flag',
      MORE: 'yes',
    });

    // A bad line: its number, never its text (it may hold a secret); nothing is queued.
    fs.writeFileSync(file, 'GOOD=1\n# fine\nTOKEN s3cr3t\n');
    const bad = await h.cli(['run', '-n', 'bad', '--env-from', file, '--', 'true']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`orcr: --env-from ${file}:3: not KEY=VALUE (each line is KEY=VALUE, a # comment, or blank)\n`);
    expect(bad.stderr).not.toContain('s3cr3t');
    fs.writeFileSync(file, 'GOOD=1\nexport TOKEN=s3cr3t\n');
    expect((await h.cli(['run', '--env-from', file, '--', 'true'])).stderr).toBe(
      `orcr: --env-from ${file}:2: "export TOKEN" is not a variable name (letters, digits and _, not starting with a digit)\n`,
    );
    const missing = await h.cli(['run', '--env-from', path.join(h.dir, 'nope.env'), '--', 'true']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`orcr: --env-from "${path.join(h.dir, 'nope.env')}": cannot read it: no such file\n`);
    expect((await h.ps({ all: true })).map((x) => (x as { name: string }).name)).toEqual(['f']);
    // Not with --from: each line carries its own env.
    expect((await h.cli(['run', '--from', '-', '--env-from', file], { input: '' })).stderr).toMatch(
      /^orcr: --from takes no other run flags \(got --env-from\)/,
    );
  });

  it('reads the env file from a pipe (as --env-from <(pass show …) gives it); the command line shows its name, never the values', async () => {
    const h = await home();
    await h.startSupervisor();
    // A FIFO holds the CLI at the read, long enough to look at its /proc entry.
    const fifo = path.join(h.dir, 'env.fifo');
    const mk = spawn('mkfifo', [fifo]);
    await new Promise((r) => mk.on('exit', r));
    const child = spawn(NODE, [CLI, 'run', '-n', 'piped', '--env-from', fifo, '-e', 'FROM_ENV', '--', 'true'], {
      env: { ...h.env, FROM_ENV: 'env-secret' },
      stdio: 'ignore',
    });
    // A non-blocking open for writing succeeds only once a reader has the FIFO open: the CLI is at the read.
    const fd =
      (await until(
        async () => {
          try {
            return fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK) + 1;
          } catch {
            return 0;
          }
        },
        'the CLI to open the env file',
        15_000,
      )) - 1;
    const cmdline = fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8');
    expect(cmdline).toContain(fifo);
    fs.writeSync(fd, 'TOKEN=file-secret\n');
    fs.closeSync(fd);
    await new Promise((r) => child.on('exit', r));
    expect(cmdline).not.toContain('file-secret');
    expect(cmdline).not.toContain('env-secret');
    expect((await h.json<Shown>(['show', 'piped', '--env'])).env).toEqual({ TOKEN: 'file-secret', FROM_ENV: 'env-secret' });
  });

  it('--env-file, which node reads for itself, is pointed at --env-from', async () => {
    const h = await home();
    const file = path.join(h.dir, 'x.env');
    fs.writeFileSync(file, 'A=1\n');
    const r = await h.cli(['run', '--env-file', file, '--', 'true']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'orcr: orcr reads KEY=VALUE files with --env-from FILE (node takes a --env-file argument for itself, before orcr sees it)',
    );
  });

  it('--help says which forms keep a value off the command line', async () => {
    const h = await home();
    const run = (await h.cli(['run', '--help'])).stdout;
    expect(run).toMatch(/-e KEY /);
    expect(run).toMatch(/--env-from FILE/);
    expect(run).toMatch(/\/proc/);
    expect((await h.cli(['send', '--help'])).stdout).toMatch(/\/proc/);
  });
});
