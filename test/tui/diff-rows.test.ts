// The diff view's pure parts: a unified diff as styled rows (summary first,
// a header per file, + green and − red, ---/+++ not counted), nothing of a
// file's escape sequences left; the CHANGES column; grouping by repository.

import './no-ci.js';
import { describe, expect, it } from 'vitest';
import { diffRows, parseDiff } from '../../src/tui/model/diff.js';
import { DIFF_TOKEN, rowToken } from '../../src/tui/view/transcript-rows.js';
import { layoutColumns, rowSpans } from '../../src/tui/view/columns.js';
import { computeView } from '../../src/tui/state/runs-view.js';
import { repoName } from '../../src/tui/state/sort.js';
import { nextGroup } from '../../src/tui/state/reducers.js';
import { sortWords } from '../../src/tui/view/format.js';
import { run, T0 } from './fixtures.js';

const DIFF = [
  'diff --git a/src/math.ts b/src/math.ts',
  'index 1111111..2222222 100644',
  '--- a/src/math.ts',
  '+++ b/src/math.ts',
  '@@ -1,3 +1,3 @@ export function add',
  ' const a = 1;',
  '-const b = 2;',
  '+const b = 3;',
  '\tcontext with a tab',
  'diff --git a/new.txt b/new.txt',
  'new file mode 100644',
  'index 0000000..3333333',
  '--- /dev/null',
  '+++ b/new.txt',
  '@@ -0,0 +1,2 @@',
  '+hello \x1b]52;c;ZXZpbA==\x07 world',
  '+\x1b[2J\x1b[31mred\x9b1m',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('diff rows', () => {
  it('counts each file, not its ---/+++ lines, and names it from +++ (or --- when deleted)', () => {
    const files = parseDiff(DIFF);
    expect(files.map((f) => [f.name, f.added, f.removed])).toEqual([
      ['src/math.ts', 1, 1],
      ['new.txt', 2, 0],
    ]);
    const gone = parseDiff('diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n');
    expect(gone.map((f) => [f.name, f.added, f.removed])).toEqual([['old.txt', 0, 1]]);
    expect(parseDiff('')).toEqual([]);
  });

  it('leads with a --stat-like summary, then each file under a header, each line styled by what it is', () => {
    const rows = diffRows(DIFF, 100);
    const text = rows.map((r) => r.text);
    expect(text.slice(0, 3)).toEqual(['2 files changed, +3 −1', ' src/math.ts  +1 −1', ' new.txt      +2 −0']);
    const at = (s: string) => rows.find((r) => r.text === s)!;
    expect(at('━━ src/math.ts  +1 −1').style).toBe('diff.file');
    expect(at('@@ -1,3 +1,3 @@ export function add').style).toBe('diff.hunk');
    expect(at('-const b = 2;').style).toBe('diff.del');
    expect(at('+const b = 3;').style).toBe('diff.add');
    expect(at('--- a/src/math.ts').style).toBe('diff.meta');
    expect(at(' const a = 1;').style).toBe('diff.context');
    expect(at('    context with a tab').style).toBe('diff.context');
    // The colours: added green, removed red, through the pager's one token lookup.
    expect(rowToken('diff.add')).toBe('reason.ok');
    expect(rowToken('diff.del')).toBe('reason.bad');
    expect(rowToken('text')).toBe('text.primary');
    expect(DIFF_TOKEN['diff.file']).toBe('text.accent');
  });

  it("lets no escape sequence or control of a file's text through", () => {
    const rows = diffRows(DIFF, 100);
    for (const r of rows) expect(r.text).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(rows.map((r) => r.text)).toContain('+hello  world');
    expect(rows.find((r) => r.text.startsWith('+') && r.text.includes('red'))!.text).toBe('+red');
  });

  it('wraps a long line, each piece keeping its style', () => {
    const rows = diffRows(`diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+${'y'.repeat(50)}\n`, 20);
    const adds = rows.filter((r) => r.style === 'diff.add');
    expect(adds.length).toBe(3);
    expect(adds.map((r) => r.text).join('')).toBe(`+${'y'.repeat(50)}`);
  });
});

const wt = (repo: string, added = 0, removed = 0): NonNullable<ReturnType<typeof run>['worktree']> => ({
  repo,
  path: `/wt/${repo}`,
  branch: 'orcr/x',
  base: 'HEAD',
  base_commit: 'a'.repeat(40),
  state: 'ready',
  added,
  removed,
  files: 1,
});

describe('the CHANGES column', () => {
  it('shows only when a listed run has a worktree, and goes before the tokens when the terminal narrows', () => {
    expect(layoutColumns(200).map((c) => c.key)).not.toContain('changes');
    expect(layoutColumns(200, false, true).map((c) => c.key)).toContain('changes');
    // After TURN, before TOKENS: the burn column went first.
    expect(layoutColumns(120, false, true).map((c) => c.key)).toEqual([
      'status',
      'reason',
      'name',
      'target',
      'turn',
      'elapsed',
      'tokens',
      'cost',
      'budget',
      'loop',
      'changes',
    ]);
    expect(layoutColumns(100, true, true).map((c) => c.key)).not.toContain('changes');
    expect(layoutColumns(100, true, true).map((c) => c.key)).toContain('budget');
  });

  it('reads +12 −3, added green and removed red; blank for a run in place', () => {
    const cols = layoutColumns(200, false, true).filter((c) => c.key === 'changes');
    const spans = rowSpans(run({ worktree: wt('/src/app', 12, 3) }), cols, T0, undefined, false).slice(1);
    expect(spans.map((s) => s.text).join('')).toBe('   +12 −3');
    expect(spans.find((s) => s.text.includes('+12'))!.token).toBe('reason.ok');
    expect(spans.find((s) => s.text === '−3')!.token).toBe('reason.bad');
    expect(
      rowSpans(run(), cols, T0, undefined, false)
        .slice(1)
        .map((s) => s.text.trim())
        .join(''),
    ).toBe('');
    expect(computeView({ a: run({ uuid: 'a' }) }, { filter: '', showAll: true }).worktrees).toBe(false);
    expect(computeView({ a: run({ uuid: 'a', worktree: wt('/r') }) }, { filter: '', showAll: true }).worktrees).toBe(true);
  });
});

describe('grouping by repository', () => {
  it('groups runs by their repository folder, runs in place after them; b reaches repo only when some run has one', () => {
    const runs = [
      run({ name: 'a1', uuid: 'u1', worktree: wt('/home/me/web') }),
      run({ name: 'p1', uuid: 'u2' }),
      run({ name: 'b1', uuid: 'u3', worktree: wt('/home/me/api/') }),
      run({ name: 'a2', uuid: 'u4', worktree: wt('/srv/web') }),
    ];
    const byId = Object.fromEntries(runs.map((r) => [r.uuid, r]));
    const ids = computeView(byId, { filter: '', showAll: true, sort: { key: 'name', reverse: false, group: 'repo' }, now: T0 }).ids;
    expect(ids.map((id) => byId[id]!.name)).toEqual(['b1', 'a1', 'a2', 'p1']);
    expect(repoName(runs[2]!)).toBe('api');
    expect(repoName(runs[1]!)).toBeNull();
    expect(nextGroup(null, true)).toBe('provider');
    expect(nextGroup('provider', true)).toBe('workload');
    expect(nextGroup('workload', true)).toBe('repo');
    expect(nextGroup('workload', false)).toBeNull();
    expect(nextGroup('repo', true)).toBeNull();
    expect(sortWords({ key: 'name', reverse: false, group: 'repo' })).toBe('name, A→Z, grouped by repo');
  });
});
