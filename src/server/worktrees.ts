// The lifecycle of run worktrees: made just before the agent starts (the run
// already holds its slot, but not its timeout: that counts from the agent's
// start), their +/− counts refreshed when a run goes idle or ends, a diff on
// request, finished by a person (merge, keep the branch, discard), collected
// by gc, and orphans pruned. The plan (folder, branch, base commit) is in the
// journal from enqueue on, so whatever a crash interrupts is someone's.

import type { FinishMode, LetGo } from '../protocol/results.js';
import type { EventInput } from '../core/events.js';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { worktreeLive, type Run, type RunWorktree } from '../core/types.js';
import {
  addWorktree,
  checkedOutAt,
  committerEnv,
  copyIncludes,
  diffStat,
  diffText,
  git,
  gitOk,
  isDirty,
  ownCommits,
  removeLeftovers,
  repoOfWorktree,
  snapshotCommit,
  GitError,
} from '../runtime/git-worktree.js';
import type { Config } from '../config/load.js';
import type { Home } from '../config/home.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunStore } from './run-store.js';
import { RemoteError } from '../protocol/errors.js';
import { isResourceLimit } from '../runtime/os-limits.js';

const SETUP_OUTPUT_MAX = 4000;

export class Worktrees {
  /** Runs whose worktree is being finished or collected: one change at a time. */
  private readonly busy = new Set<string>();

  constructor(private readonly p: { home: Home; store: RunStore; config: () => Config; lifecycle: Pick<Lifecycle, 'background' | 'writes' | 'log'> }) {
    p.store.reader.onEvent((e, row) => {
      if ((e.type === 'idle' || e.type === 'ended') && row && worktreeLive(row.worktree) && row.worktree.state === 'ready') {
        p.lifecycle.background(this.refresh(row.uuid).catch(() => undefined));
      }
    });
  }

  get dir(): string {
    const d = this.p.config().worktree.dir;
    if (d === undefined) return path.join(this.p.home.dir, 'worktrees');
    return path.resolve(d.startsWith('~/') ? path.join(process.env.HOME ?? '/', d.slice(2)) : d);
  }

  /** Where the run's agent starts: the same place in its worktree as its cwd in the repository. */
  static cwdOf(w: RunWorktree): string {
    return path.join(w.path, w.subdir);
  }

  /**
   * Make the worktree, copy `.worktreeinclude`, run `worktree.setup`. Resolves
   * with why it failed (and nothing is left behind), `{ deferred: code }`
   * when the OS had no process or descriptor for it (nothing left behind
   * either: the launch is tried again later), or null.
   */
  async prepare(run: Run): Promise<string | { deferred: string } | null> {
    let w = run.worktree!;
    try {
      if (w.base_run !== undefined && w.base_commit === '') {
        // Built on another run's work: that worktree as it was left, or its branch once the worktree is gone.
        const base = this.p.store.lookup(w.base_run);
        const from = base?.worktree;
        if (!from) return `worktree: the run it is based on (--base) is not in the journal any more`;
        let commit: string;
        if (fs.existsSync(from.path)) commit = await snapshotCommit(from.path);
        else {
          const tip = await git(from.repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${from.branch}^{commit}`]);
          if (tip.code !== 0) return `worktree: ${base.name}'s worktree and its branch ${from.branch} are both gone: nothing to build on (--base)`;
          commit = tip.stdout.trim();
        }
        w = { ...w, base_commit: commit };
        const now = this.p.store.get(run.uuid);
        if (now) this.p.store.save({ ...now, worktree: w }, null);
      }
      // A launch interrupted by a crash may have left part of it: this run's, by the journal.
      await removeLeftovers(w.repo, w.path, w.branch, w.base_commit);
      await addWorktree(w.repo, w.path, w.branch, w.base_commit);
    } catch (e) {
      if (isResourceLimit(e)) return { deferred: (e as NodeJS.ErrnoException).code! };
      return `worktree: ${(e as Error).message}`;
    }
    try {
      await copyIncludes(w.repo, w.path);
      const setup = this.p.config().worktree.setup;
      if (setup) {
        const failed = await runSetup(setup, Worktrees.cwdOf(w), this.p.config().worktree.setup_timeout);
        if (failed !== null) {
          await removeLeftovers(w.repo, w.path, w.branch, w.base_commit).catch(() => undefined);
          return failed;
        }
      }
      return null;
    } catch (e) {
      await removeLeftovers(w.repo, w.path, w.branch, w.base_commit).catch(() => undefined);
      if (isResourceLimit(e)) return { deferred: (e as NodeJS.ErrnoException).code! };
      return `worktree: ${(e as Error).message}`;
    }
  }

  /** A made worktree whose agent could not start after all: nothing of it stays. */
  async discardMade(run: Run): Promise<void> {
    const w = run.worktree!;
    await removeLeftovers(w.repo, w.path, w.branch, w.base_commit).catch(() => undefined);
  }

  /** A run as it stands (active from memory, ended from the journal), with a worktree. */
  private runOf(uuid: string): Run & { worktree: RunWorktree } {
    const run = this.p.store.lookup(uuid);
    if (!run) throw new RemoteError('not_found', `no run ${uuid}`);
    if (!run.worktree) throw new RemoteError('usage', `${run.name} has no worktree (it was not started with --worktree)`);
    return run as Run & { worktree: RunWorktree };
  }

  private save(uuid: string, patch: Partial<RunWorktree>, ev: EventInput | null): Run {
    const run = this.runOf(uuid);
    const next: Run = { ...run, worktree: { ...run.worktree, ...patch } };
    this.p.store.save(next, ev);
    return next;
  }

  /** Count the run's changes against its base, and journal them when they changed. */
  async refresh(uuid: string): Promise<void> {
    const run = this.runOf(uuid);
    if (!fs.existsSync(run.worktree.path)) return;
    const s = await diffStat(run.worktree.path, run.worktree.base_commit);
    if (!this.p.lifecycle.writes()) return;
    const now = this.runOf(uuid).worktree;
    if (!worktreeLive(now) || (now.added === s.added && now.removed === s.removed && now.files === s.files)) return;
    this.save(uuid, s, { type: 'diffstat', data: { ...s } });
  }

  async diff(uuid: string, stat: boolean): Promise<{ text: string; added: number; removed: number; files: number }> {
    const run = this.runOf(uuid);
    const w = run.worktree;
    if (!worktreeLive(w) || !fs.existsSync(w.path)) {
      if (w.state === 'kept' || w.state === 'merged') {
        // The worktree is gone but its branch may hold the work.
        const text = await gitOk(
          w.repo,
          stat ? ['diff', '--stat=200', w.base_commit, `refs/heads/${w.branch}`, '--'] : ['diff', '--no-color', w.base_commit, `refs/heads/${w.branch}`, '--'],
        ).catch(() => '');
        return { text, added: w.added, removed: w.removed, files: w.files };
      }
      throw new RemoteError('usage', `${run.name}'s worktree ${w.state === 'planned' ? 'is not made yet' : `was ${w.state}`}: nothing to diff`);
    }
    const text = await diffText(w.path, w.base_commit, stat);
    await this.refresh(uuid).catch(() => undefined);
    const after = this.runOf(uuid).worktree;
    return { text, added: after.added, removed: after.removed, files: after.files };
  }

  private lock<T>(uuid: string, fn: () => Promise<T>): Promise<T> {
    if (this.busy.has(uuid)) return Promise.reject(new RemoteError('usage', 'that worktree is being finished or collected already'));
    this.busy.add(uuid);
    return fn().finally(() => this.busy.delete(uuid));
  }

  /** `orcr worktree finish`: merge (or keep the branch, or drop it), then remove the worktree. */
  finish(uuid: string, mode: FinishMode): Promise<{ run: Run; merged_into?: string; committed: boolean }> {
    return this.lock(uuid, async () => {
      const run = this.runOf(uuid);
      const w = run.worktree;
      if (run.status !== 'ended') throw new RemoteError('usage', `${run.name} is ${run.status}: finish takes an ended run (wait for it, or kill it)`);
      if (!worktreeLive(w)) throw new RemoteError('usage', `${run.name}'s worktree was already ${run.worktree.state}`);
      if (mode === 'merge' && w.base_branch === null) {
        throw new RemoteError(
          'usage',
          `${run.name}'s base ${w.base} is not a branch: nothing to merge into (--keep-branch keeps ${w.branch} to merge yourself)`,
        );
      }
      const exists = fs.existsSync(w.path);
      let committed = false;
      if (exists && mode !== 'discard' && (await isDirty(w.path))) {
        // The agent's uncommitted work goes onto its branch: the worktree is about to go.
        await gitOk(w.path, ['add', '-A']);
        await gitOk(w.path, ['commit', '--quiet', '--no-verify', '-m', `orcr: uncommitted work of run ${run.name}`], await committerEnv(w.path));
        committed = true;
      }
      let mergedInto: string | undefined;
      if (mode === 'merge') {
        try {
          mergedInto = await this.merge(w, run.name);
        } catch (e) {
          // Everything as it was: the merge aborted (in merge()), our commit undone.
          if (committed) await gitOk(w.path, ['reset', '--quiet', '--mixed', 'HEAD~1']);
          throw e;
        }
      }
      if (exists) await gitOk(w.repo, ['worktree', 'remove', '--force', w.path]);
      await git(w.repo, ['worktree', 'prune']);
      if (mode !== 'keep_branch') await git(w.repo, ['branch', mode === 'merge' ? '-d' : '-D', w.branch]);
      const state = mode === 'merge' ? 'merged' : mode === 'keep_branch' ? 'kept' : 'discarded';
      const next = this.save(uuid, { state }, { type: 'worktree_finished', data: { mode, branch: w.branch, ...(mergedInto ? { into: mergedInto } : {}) } });
      return { run: next, ...(mergedInto ? { merged_into: mergedInto } : {}), committed };
    });
  }

  /**
   * Merge the run's branch into its base branch where that is checked out
   * (else in a throw-away worktree of it). A conflict aborts the merge and says so.
   */
  private async merge(w: RunWorktree, name: string): Promise<string> {
    const target = w.base_branch!;
    let at = await checkedOutAt(w.repo, target);
    let temp: string | null = null;
    if (at === null) {
      temp = path.join(this.dir, `.merge-${path.basename(w.path)}`);
      await gitOk(w.repo, ['worktree', 'add', '--quiet', temp, target]);
      at = temp;
    }
    try {
      const env = await committerEnv(at);
      const r = await git(at, ['merge', '--no-ff', '--no-edit', '-m', `Merge ${w.branch} (orcr run ${name})`, `refs/heads/${w.branch}`], env);
      if (r.code !== 0) {
        const conflicted = (await git(at, ['diff', '--name-only', '--diff-filter=U'])).stdout.trim();
        await git(at, ['merge', '--abort']);
        const files = conflicted.split('\n').filter((f) => f !== '');
        throw new RemoteError(
          'conflict',
          files.length > 0
            ? `merging ${w.branch} into ${target} conflicts in ${files.join(', ')}; the merge was aborted and the worktree ${w.path} is left as it was (resolve it there, or --keep-branch)`
            : `merging ${w.branch} into ${target} failed: ${(r.stderr || r.stdout).trim()}; nothing was changed`,
        );
      }
      return target;
    } finally {
      if (temp !== null) await git(w.repo, ['worktree', 'remove', '--force', temp]);
    }
  }

  /** Let one worktree go: never a dirty one without force; one whose branch holds work only with `branches` (the branch is kept). */
  private async letGo(uuid: string | null, w: RunWorktree, opts: { force: boolean; branches: boolean; dryRun: boolean }): Promise<LetGo> {
    const exists = fs.existsSync(w.path);
    const base: Omit<LetGo, 'action'> = { run: uuid, path: w.path, branch: w.branch };
    if (exists && fs.existsSync(path.join(w.path, '.git')) && !opts.force && (await isDirty(w.path).catch(() => false)))
      return { ...base, action: 'kept_dirty' };
    const branchAt = await git(w.repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${w.branch}`]);
    const hasBranch = branchAt.code === 0;
    const commits = hasBranch && branchAt.stdout.trim() !== w.base_commit ? Math.max(1, await ownCommits(w.repo, w.branch)) : 0;
    if (commits > 0 && !opts.branches) return { ...base, action: 'kept_commits' };
    if (opts.dryRun) return { ...base, action: 'removed', branch_kept: commits > 0 };
    if (exists) await git(w.repo, ['worktree', 'remove', '--force', '--force', w.path]);
    await fs.promises.rm(w.path, { recursive: true, force: true });
    await git(w.repo, ['worktree', 'prune']);
    if (hasBranch && commits === 0) await git(w.repo, ['branch', '-D', w.branch]);
    if (uuid !== null && this.p.store.lookup(uuid)) {
      this.save(uuid, { state: commits > 0 ? 'kept' : 'removed' }, { type: 'worktree_removed', data: { branch_kept: commits > 0 } });
    }
    return { ...base, action: 'removed', branch_kept: commits > 0 };
  }

  /** `orcr gc`: the worktrees of ended runs. */
  async collect(opts: { force: boolean; branches: boolean; dryRun: boolean }): Promise<LetGo[]> {
    const out: LetGo[] = [];
    for (const run of this.p.store.reader.runsWithWorktree()) {
      if (run.status !== 'ended' || !worktreeLive(run.worktree) || this.busy.has(run.uuid)) continue;
      this.busy.add(run.uuid);
      try {
        out.push(await this.letGo(run.uuid, run.worktree, opts));
      } catch (e) {
        if (!(e instanceof GitError)) throw e;
        this.p.lifecycle.log(`gc: worktree ${run.worktree.path}: ${e.message}`);
      } finally {
        this.busy.delete(run.uuid);
      }
    }
    return out;
  }

  /**
   * `orcr worktree prune`: folders in the worktree folder that no run's
   * journal row names (a run removed, a hand-made one), and worktrees of ended
   * runs that never got past being made (an interrupted launch).
   */
  async prune(opts: { force: boolean; dryRun: boolean }): Promise<LetGo[]> {
    const out: LetGo[] = [];
    const owned = new Set<string>();
    for (const run of this.p.store.reader.runsWithWorktree()) {
      owned.add(run.worktree!.path);
      if (run.status === 'ended' && run.worktree!.state === 'planned' && !this.busy.has(run.uuid)) {
        out.push(await this.letGo(run.uuid, run.worktree!, { ...opts, branches: false }));
      }
    }
    let names: string[] = [];
    try {
      names = await fs.promises.readdir(this.dir);
    } catch {
      return out;
    }
    for (const name of names) {
      const dir = path.join(this.dir, name);
      if (owned.has(dir) || name.startsWith('.merge-') || !fs.statSync(dir).isDirectory()) continue;
      const repo = repoOfWorktree(dir);
      if (repo === null || !fs.existsSync(repo)) {
        // Not a worktree (half made: git had not written its .git yet), or its repository is gone.
        if (repo !== null && !opts.force && fs.readdirSync(dir).length > 1) {
          out.push({ run: null, path: dir, branch: null, action: 'kept_dirty' });
          continue;
        }
        if (!opts.dryRun) await fs.promises.rm(dir, { recursive: true, force: true });
        out.push({ run: null, path: dir, branch: null, action: 'removed' });
        continue;
      }
      const head = await git(dir, ['symbolic-ref', '--quiet', 'HEAD']);
      const branch = head.code === 0 ? head.stdout.trim().replace(/^refs\/heads\//, '') : null;
      // Its base is unknown: the branch goes only if no other branch lacks its commits.
      const base = branch === null ? '' : (await git(repo, ['rev-parse', `refs/heads/${branch}`])).stdout.trim();
      const orphan: RunWorktree = {
        repo,
        path: dir,
        subdir: '',
        branch: branch ?? '',
        base: '',
        base_commit: base,
        base_branch: null,
        state: 'ready',
        added: 0,
        removed: 0,
        files: 0,
      };
      const commits = branch === null ? 0 : await ownCommits(repo, branch);
      if (branch !== null && commits === 0) orphan.base_commit = base;
      else orphan.base_commit = '';
      out.push(await this.letGo(null, orphan, { ...opts, branches: true }));
      if (branch !== null && commits > 0) out[out.length - 1]!.branch_kept = true;
    }
    return out;
  }
}

/** Run `worktree.setup` (argv, no shell) in the new worktree: null, or why it failed with what it said. */
function runSetup(argv: string[], cwd: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    execFile(argv[0]!, argv.slice(1), { cwd, timeout: timeoutMs, maxBuffer: 16 << 20, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (!err) return resolve(null);
      // Never started for want of a process or a descriptor: prepare() waits it out.
      if (isResourceLimit(err)) return reject(err);
      const out = (stdout + stderr).trim();
      const tail = out.length > SETUP_OUTPUT_MAX ? '…' + out.slice(-SETUP_OUTPUT_MAX) : out;
      const e = err as NodeJS.ErrnoException & { code?: number | string; killed?: boolean; signal?: string };
      const why =
        e.code === 'ENOENT'
          ? `cannot run ${JSON.stringify(argv[0])}: not found`
          : e.killed
            ? `timed out`
            : typeof e.code === 'number'
              ? `exit ${e.code}`
              : `killed by ${e.signal ?? e.message}`;
      resolve(`worktree setup ${why}${tail ? `: ${tail}` : ''}`);
    });
  });
}
