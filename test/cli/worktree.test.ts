// Run worktrees against real git repositories made here: isolation between
// two agents, diff, finish (merge, keep, discard, a conflict), gc, prune of
// what an interrupted creation leaves, and bad input refused at `orcr run`.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PublicRun } from '../../src/protocol/views.js';
import { CLI, NODE, until, useHomes } from '../support/harness.js';
import { GIT_IDENTITY, initRepo } from '../support/git.js';
import { useLiveHomes, useServedHomes, type LiveHome, type Remote } from '../support/in-process.js';

/** Homes whose supervisor runs in this process (most tests); what the CLI prints is still the spawned CLI's. */
const home = useLiveHomes();
/** Homes whose supervisor is a process of its own, to SIGKILL it. */
const served = useServedHomes();
/** Homes whose supervisor the spawned CLI starts, with the PATH it is given. */
const spawned = useHomes();
const GIT_ENV = { ...process.env, ...GIT_IDENTITY };
// The supervisor runs in this process (this file's own worker): its git, its
// agents and the CLIs spawned here all see the test's identity, as they did
// when every supervisor was started by a CLI with that environment.
const before: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const [k, v] of Object.entries(GIT_IDENTITY)) {
    before[k] = process.env[k];
    process.env[k] = v;
  }
});
afterAll(() => {
  for (const [k, v] of Object.entries(before)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) fs.rmSync(t, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
}

/** A repository on branch main with one commit of f.txt. */
function repo(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-repo-')));
  temps.push(dir);
  return initRepo(dir, { 'f.txt': 'one\ntwo\n', '.gitignore': '.env\n' });
}

/** A home whose supervisor commits as the test's author (a finish may commit an agent's work): the process's environment has it. */
function worktreeHome(config: Record<string, unknown> = {}): Promise<LiveHome> {
  return home(config);
}

/** What `orcr run --worktree EXTRA -n NAME --cwd DIR -- sh -c SH --json` queues. */
function runIn(h: Remote, dir: string, name: string, sh: string, extra: string[] = []): Promise<PublicRun> {
  return h.run(['--worktree', ...extra, '-n', name, '--cwd', dir, '--', 'sh', '-c', sh]);
}

async function ended(h: Remote, name: string): Promise<PublicRun> {
  return until(async () => {
    const r = await h.show(name);
    return r.status === 'ended' && r.worktree?.added !== undefined ? r : null;
  }, `${name} ended`);
}

describe('run worktrees', () => {
  it('two agents edit the same file in two worktrees without seeing each other; diff, --stat, ps and show carry the changes', async () => {
    const h = await worktreeHome();
    const r = repo();
    const t = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-sync-'));
    temps.push(t);
    const agent = (me: string, other: string) =>
      `echo ${me} >> f.txt && touch ${t}/${me} && while [ ! -f ${t}/${other} ]; do sleep 0.02; done; cat f.txt > ${t}/seen-${me}; echo new > n.txt`;
    const a = await runIn(h, r, 'a', agent('a', 'b'));
    const b = await runIn(h, r, 'b', agent('b', 'a'));
    expect(a.worktree).toMatchObject({ branch: 'orcr/a', base: 'HEAD', state: 'planned' });
    expect(await h.waitCode('a', 'b')).toBe(0);
    expect(fs.readFileSync(path.join(t, 'seen-a'), 'utf8')).toBe('one\ntwo\na\n');
    expect(fs.readFileSync(path.join(t, 'seen-b'), 'utf8')).toBe('one\ntwo\nb\n');
    // The repository itself is untouched.
    expect(fs.readFileSync(path.join(r, 'f.txt'), 'utf8')).toBe('one\ntwo\n');
    const wa = path.join(h.dir, 'worktrees', `${path.basename(r)}-a`);
    expect(fs.existsSync(path.join(wa, 'n.txt'))).toBe(true);
    expect(git(r, 'branch', '--list', 'orcr/*')).toMatch(/orcr\/a[\s\S]*orcr\/b/);

    const shown = await until(async () => {
      const s = await h.show('a');
      return s.worktree?.added === 2 ? s : null;
    }, 'counts after the end');
    expect(shown.worktree).toMatchObject({ added: 2, removed: 0, files: 2, state: 'ready', path: wa });
    const diff = await h.cli(['diff', 'a']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/\+a\n/);
    expect(diff.stdout).toMatch(/\+new/);
    expect(diff.stdout).not.toMatch(/\+b\n/);
    const stat = await h.cli(['diff', 'a', '--stat']);
    expect(stat.stdout).toMatch(/f\.txt \| 1 \+/);
    expect(stat.stdout).toMatch(/n\.txt \| 1 \+/);
    expect((await h.cli(['ps', '--all'])).stdout).toMatch(/CHANGES[\s\S]*\+2 −0 orcr\/a/);
    expect((await h.cli(['show', 'b'])).stdout).toMatch(/changes\s+\+2 −0 in 2 files/);
    void b;
  });

  it('finish --merge, --keep-branch and --discard; a conflicting merge changes nothing', async () => {
    const h = await worktreeHome();
    const r = repo();
    await runIn(h, r, 'm', 'echo merged >> f.txt && git add f.txt && git commit -q -m m');
    await runIn(h, r, 'k', 'echo kept > k.txt');
    await runIn(h, r, 'd', 'echo dropped > d.txt');
    await runIn(h, r, 'c', 'printf "one\\nTHEIRS\\n" > f.txt');
    expect(await h.waitCode('m', 'k', 'd', 'c'), (await h.cli(['ps', '--all'])).stdout + (await h.cli(['logs', 'm', '--stderr'])).stdout).toBe(0);

    const m = await h.cli(['worktree', 'finish', 'm', '--merge']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toMatch(/merged orcr\/m into main/);
    expect(fs.readFileSync(path.join(r, 'f.txt'), 'utf8')).toBe('one\ntwo\nmerged\n');
    expect(git(r, 'branch', '--list', 'orcr/m')).toBe('');
    expect(fs.existsSync((await h.show('m')).worktree!.path)).toBe(false);
    expect((await h.show('m')).worktree!.state).toBe('merged');

    const k = await h.cli(['worktree', 'finish', 'k', '--keep-branch']);
    expect(k.code, k.stderr).toBe(0);
    expect(git(r, 'show', 'orcr/k:k.txt')).toBe('kept');
    expect(fs.existsSync((await h.show('k')).worktree!.path)).toBe(false);

    expect((await h.cli(['worktree', 'finish', 'd', '--discard'])).code).toBe(0);
    expect(git(r, 'branch', '--list', 'orcr/d')).toBe('');

    // c changed the line m's merge changed too: a conflict, and nothing moves.
    const head = git(r, 'rev-parse', 'HEAD');
    const cw = (await h.show('c')).worktree!.path;
    const c = await h.cli(['worktree', 'finish', 'c', '--merge']);
    expect(c.code).toBe(4);
    expect(c.stderr).toMatch(/conflicts in f\.txt; the merge was aborted/);
    expect(git(r, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(r, 'status', '--porcelain')).toBe('');
    expect(fs.readFileSync(path.join(cw, 'f.txt'), 'utf8')).toBe('one\nTHEIRS\n');
    expect(git(cw, 'status', '--porcelain')).toBe('M f.txt');
    expect(git(cw, 'rev-parse', 'HEAD')).toBe((await h.show('c')).worktree!.base_commit);
    expect((await h.show('c')).worktree!.state).toBe('ready');
  });

  it('gc removes the worktree of an ended run with nothing on its branch, keeps and lists a dirty one (--force removes it)', async () => {
    const h = await worktreeHome();
    const r = repo();
    await runIn(h, r, 'clean', 'true');
    await runIn(h, r, 'dirty', 'echo x > x.txt');
    expect(await h.waitCode('clean', 'dirty')).toBe(0);
    await ended(h, 'dirty');
    const gc = await h.cli(['gc', '--older-than', '1h']);
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.stdout).toMatch(/removed worktree .*-clean/);
    expect(gc.stdout).toMatch(/kept worktree .*-dirty: it has uncommitted changes/);
    expect(git(r, 'branch', '--list', 'orcr/clean')).toBe('');
    expect(fs.existsSync((await h.show('dirty')).worktree!.path)).toBe(true);
    // A run whose worktree stays keeps its row, whatever its age.
    expect((await h.json<{ runs: number }>(['gc', '--older-than', '0s'])).runs).toBe(1);
    expect((await h.cli(['show', 'dirty'])).code).toBe(0);
    expect((await h.cli(['gc', '--older-than', '1h', '--force'])).stdout).toMatch(/removed worktree .*-dirty/);
    expect(git(r, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('prune removes what an interrupted creation left: a worktree and branch nobody journaled, a folder git had not finished', async () => {
    const h = await worktreeHome();
    const r = repo();
    const dir = path.join(h.dir, 'worktrees');
    fs.mkdirSync(dir, { recursive: true });
    // Killed after `git worktree add`, before the journal heard of it.
    git(r, 'worktree', 'add', '-q', '-b', 'orcr/lost', path.join(dir, 'repo-lost'), 'HEAD');
    // Killed while git was still making the folder.
    fs.mkdirSync(path.join(dir, 'repo-half'));
    // A dirty orphan is listed, not removed.
    git(r, 'worktree', 'add', '-q', '-b', 'orcr/dirty', path.join(dir, 'repo-dirty'), 'HEAD');
    fs.writeFileSync(path.join(dir, 'repo-dirty', 'work.txt'), 'mine\n');
    const p = await h.cli(['worktree', 'prune']);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/removed worktree .*repo-lost \(branch orcr\/lost\)/);
    expect(p.stdout).toMatch(/removed worktree .*repo-half/);
    expect(p.stdout).toMatch(/kept worktree .*repo-dirty: it has uncommitted changes/);
    expect(fs.readdirSync(dir)).toEqual(['repo-dirty']);
    expect(git(r, 'branch', '--list', 'orcr/lost')).toBe('');
    expect((await h.cli(['worktree', 'prune', '--force'])).stdout).toMatch(/removed worktree .*repo-dirty/);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect((await h.cli(['worktree', 'prune'])).stdout).toMatch(/no orphaned worktrees/);
  });

  it('a run killed before its worktree was made into use leaves nothing that prune does not take', async () => {
    // The setup command holds the launch: the run is killed while its worktree exists but its agent never started.
    const t = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-sync-'));
    temps.push(t);
    const h = await worktreeHome({ worktree: { setup: ['sh', '-c', `touch ${t}/in-setup; while [ ! -f ${t}/go ]; do sleep 0.02; done`] } });
    const r = repo();
    await runIn(h, r, 'held', 'true');
    await until(() => fs.existsSync(path.join(t, 'in-setup')), 'setup started');
    expect((await h.cli(['kill', 'held'])).code).toBe(0);
    fs.writeFileSync(path.join(t, 'go'), '');
    const run = await until(async () => {
      const x = await h.show('held');
      return x.status === 'ended' ? x : null;
    }, 'held ended');
    expect(run.exit_reason).toBe('canceled');
    expect((await h.cli(['worktree', 'prune'])).code).toBe(0);
    expect(fs.existsSync(run.worktree!.path)).toBe(false);
    expect(git(r, 'branch', '--list', 'orcr/held')).toBe('');
  });

  it('the supervisor SIGKILLed at each step of making a worktree (planned and queued; made, its setup running): the next one makes it whole from its plan, and nothing is left after', async () => {
    const t = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-sync-'));
    temps.push(t);
    // The setup holds the launch until `go`, and counts its starts.
    const h = served({
      concurrency: { max: 1 },
      worktree: { setup: ['sh', '-c', `echo x >> ${t}/setups; touch ${t}/in-setup; while [ ! -f ${t}/go ]; do sleep 0.02; done`] },
    });
    await h.start();
    const r = repo();
    // Step 1: planned and journaled, queued behind a holder: nothing made yet.
    await h.run(['-n', 'holder', '--', 'sleep', '300']);
    const planned = await runIn(h, r, 'planned', 'echo done > out.txt');
    expect(planned.status).toBe('queued');
    await h.killSupervisor();
    expect(fs.existsSync(planned.worktree!.path)).toBe(false);
    // Step 2: made, its setup running (the holder goes, the run launches).
    await h.start();
    expect((await h.cli(['kill', 'holder'])).code).toBe(0);
    await until(() => fs.existsSync(path.join(t, 'in-setup')), 'setup started');
    expect(fs.existsSync(planned.worktree!.path)).toBe(true);
    await h.killSupervisor();
    // The next supervisor finds a run that never got its agent: it makes the worktree again from its plan.
    fs.rmSync(path.join(t, 'in-setup'));
    await h.start();
    expect((await h.show('planned')).name).toBe('planned');
    await until(async () => fs.existsSync(path.join(t, 'in-setup')) || (await h.show('planned')).status === 'ended', 'a second setup, or an end');
    fs.writeFileSync(path.join(t, 'go'), '');
    const done = await ended(h, 'planned');
    // Made again from its plan by the next supervisor: the setup ran twice, the agent once, in a whole worktree.
    expect(done.exit_reason).toBe('completed');
    expect(fs.readFileSync(path.join(t, 'setups'), 'utf8').trim().split('\n')).toHaveLength(2);
    expect(fs.readFileSync(path.join(done.worktree!.path, 'out.txt'), 'utf8').trim()).toBe('done');
    expect((await h.cli(['worktree', 'finish', 'planned', '--discard'])).code).toBe(0);
    expect((await h.cli(['worktree', 'prune'])).code).toBe(0);
    // Nothing is left: no folder, no branch, no stray git worktree entry.
    expect(fs.existsSync(done.worktree!.path)).toBe(false);
    expect(git(r, 'branch', '--list', 'orcr/planned')).toBe('');
    expect(git(r, 'worktree', 'list').split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('a supervisor with no git on its PATH refuses --worktree at `orcr run` (exit 2, saying so) and makes nothing', () => {
    // Everything of /usr/bin and /bin but git, as a PATH.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-nogit-'));
    temps.push(bin);
    for (const dir of ['/usr/bin', '/bin']) {
      for (const f of fs.readdirSync(dir)) {
        if (f === 'git' || fs.existsSync(path.join(bin, f))) continue;
        fs.symlinkSync(path.join(dir, f), path.join(bin, f));
      }
    }
    // The supervisor's own PATH: one the spawned CLI starts.
    const h = spawned();
    Object.defineProperty(h, 'env', { get: () => ({ ...GIT_ENV, ORCR_HOME: h.dir, NO_COLOR: '1' }) });
    const r = repo();
    const env = { ...h.env, PATH: bin };
    // The first verb starts the supervisor, with this PATH.
    const out = h.cli(['run', '--worktree', '-n', 'nogit', '--cwd', r, '--', 'true'], { env });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/git is not installed \(no "git" on the supervisor's PATH\)/);
    expect(h.cli(['ps', '--all', '--json'], { env }).stdout.trim()).toBe('[]');
    expect(git(r, 'branch', '--list', 'orcr/nogit')).toBe('');
  });

  it('under umask 000 the folder orcr makes to hold worktrees is its own (0700), not open to everyone', () => {
    const h = spawned();
    const r = repo();
    const env = { ...GIT_ENV, ORCR_HOME: h.dir, NO_COLOR: '1' };
    const umask0 = (args: string[]) => spawnSync('/bin/sh', ['-c', 'umask 000; exec "$@"', 'sh', NODE, CLI, ...args], { env, encoding: 'utf8' });
    const out = umask0(['run', '--worktree', '-n', 'loose', '--cwd', r, '--', 'true']);
    expect(out.status, out.stderr).toBe(0);
    expect(umask0(['wait', 'loose']).status).toBe(0);
    expect(fs.statSync(path.join(h.dir, 'worktrees')).mode & 0o777).toBe(0o700);
    umask0(['server', 'stop']);
  });

  it('.worktreeinclude files are copied in; a failing setup ends the run failed with its output and leaves nothing', async () => {
    const h = await worktreeHome({ worktree: { setup: ['sh', '-c', 'test -f .env && echo "setup says no" && exit 3'] } });
    const r = repo();
    fs.writeFileSync(path.join(r, '.env'), 'SECRET=1\n');
    fs.writeFileSync(path.join(r, '.worktreeinclude'), '.env\n');
    await runIn(h, r, 's', 'true');
    const run = await until(async () => {
      const x = await h.show('s');
      return x.status === 'ended' ? x : null;
    }, 's ended');
    expect(run.exit_reason).toBe('failed');
    expect(run.exit_detail).toMatch(/worktree setup exit 3: setup says no/);
    expect(fs.existsSync(run.worktree!.path)).toBe(false);
    expect(git(r, 'branch', '--list', 'orcr/s')).toBe('');

    const ok = await worktreeHome({ worktree: { setup: ['sh', '-c', 'cp .env seen-env'] } });
    await runIn(ok, r, 'e', 'cat seen-env > out.txt');
    expect(await ok.waitCode('e')).toBe(0);
    const wt = (await ok.show('e')).worktree!.path;
    expect(fs.readFileSync(path.join(wt, 'out.txt'), 'utf8')).toBe('SECRET=1\n');
  });

  it('refuses at `orcr run` (exit 2): not a repository, a base that does not resolve, a branch already taken; --from lines and --base', async () => {
    const h = await worktreeHome();
    const r = repo();
    const plain = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-plain-'));
    temps.push(plain);
    const notRepo = await h.cli(['run', '--worktree', '-n', 'x', '--cwd', plain, '--', 'true']);
    expect(notRepo.code).toBe(2);
    expect(notRepo.stderr).toMatch(/is not inside a git repository/);
    const badBase = await h.cli(['run', '--worktree', '--base', 'nope', '-n', 'x', '--cwd', r, '--', 'true']);
    expect(badBase.code).toBe(2);
    expect(badBase.stderr).toMatch(/the base "nope" cannot be resolved/);
    git(r, 'branch', 'orcr/taken');
    const taken = await h.cli(['run', '--worktree', '-n', 'taken', '--cwd', r, '--', 'true']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/the branch orcr\/taken already exists/);
    expect((await h.cli(['run', '--base', 'main', '--', 'true'])).code).toBe(2);
    expect(await h.ps({ all: true })).toEqual([]);

    git(r, 'checkout', '-q', '-b', 'other');
    const lines = path.join(plain, 'runs.jsonl');
    fs.writeFileSync(lines, JSON.stringify({ name: 'f', command: ['sh', '-c', 'echo f > f2.txt'], cwd: r, worktree: { base: 'main' } }) + '\n');
    const [f] = await h.runFrom(fs.readFileSync(lines, 'utf8'));
    expect(f!.worktree).toMatchObject({ branch: 'orcr/f', base: 'main' });
    expect(await h.waitCode('f')).toBe(0);
    fs.writeFileSync(lines, JSON.stringify({ name: 'g', command: ['true'], cwd: r, worktree: 'yes' }) + '\n');
    const bad = await h.cli(['run', '--from', lines]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"worktree" must be true, false or \{"base": "REF"\}/);
  });
});
