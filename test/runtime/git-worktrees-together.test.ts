// Worktrees of one repository made, listed and removed together (runs of one
// repository started at once): git reads every worktree's admin folder while
// it makes one and failed on one being made beside it ("failed to read
// .git/worktrees/NAME/commondir"); orcr runs one worktree command per
// repository at a time.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../support/harness.js';
import { GIT_IDENTITY, initRepo } from '../support/git.js';
import { addWorktree, checkedOutAt, git, removeLeftovers } from '../../src/runtime/git-worktree.js';

const ENV = { ...process.env, ...GIT_IDENTITY };

describe('worktrees of one repository, together', () => {
  it('twenty made at once all come, and are listed and removed at once', async () => {
    const repo = initRepo(tempDir('orcr-wt-many-'), { 'f.txt': 'one\n' });
    const base = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, env: ENV, encoding: 'utf8' }).trim();
    const names = Array.from({ length: 20 }, (_, i) => `w${i}`);
    const made = await Promise.allSettled(names.map((n) => addWorktree(repo, `${repo}-${n}`, `orcr/${n}`, base)));
    onTestFinished(() => names.forEach((n) => fs.rmSync(`${repo}-${n}`, { recursive: true, force: true })));
    expect(made.filter((r) => r.status === 'rejected').map((r) => String(r.reason))).toEqual([]);
    const at = await Promise.all(names.map((n) => checkedOutAt(repo, `orcr/${n}`)));
    expect(at).toEqual(names.map((n) => `${repo}-${n}`));
    await Promise.all(names.map((n) => removeLeftovers(repo, `${repo}-${n}`, `orcr/${n}`, base)));
    expect((await git(repo, ['worktree', 'list'])).stdout.trim().split('\n')).toHaveLength(1);
  });
});
