// The runs view moved by the runs that changed (updateView) is the view
// computed over every run (computeView), frame after frame of random changes:
// runs queued, started, ended, errored (needing a person), blocked, given a
// parent or a worktree, moved to another place in the queue by the
// supervisor (queue_position), all runs or active only — and where it cannot move them, it says so and the whole view is
// computed.

import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/agents/mock/rng.js';
import type { PublicRun } from '../../src/protocol/views.js';
import { computeView, updateView, type ViewOptions } from '../../src/tui/state/runs-view.js';
import { run } from './fixtures.js';

// Seeded (the mock agent's generator): a failure names its seed and comes back the same.
const rng = (seed: number): (() => number) => createRng(seed).next;

const STATUSES = ['queued', 'starting', 'working', 'idle', 'blocked', 'ended'] as const;

function change(r: () => number, old: PublicRun | undefined, seq: number): PublicRun {
  const base = old ?? run({ status: 'queued', queue_seq: seq, workload: r() < 0.5 ? 'default' : 'urgent' });
  const p = r();
  const status = p < 0.9 ? STATUSES[Math.floor(r() * STATUSES.length)]! : base.status;
  const next: PublicRun = { ...base, status, status_at: new Date(1_800_000_000_000 + seq * 1000).toISOString() };
  if (status === 'ended') next.exit_reason = r() < 0.8 ? 'canceled' : 'errored';
  if (status === 'blocked') next.blocked_kind = 'question';
  if (r() < 0.03) next.parent = base.uuid === 'x' ? null : '00000000-0000-4000-8000-00000000beef';
  if (r() < 0.03) next.worktree = { repo: '/src/app', path: '/wt/a', branch: 'orcr/a', base: 'main' } as PublicRun['worktree'];
  if (r() < 0.2) next.queue_position = Math.floor(r() * 50);
  return next;
}

describe('the runs view, moved by the runs that changed', () => {
  it('is the view computed over every run, frame after frame; when it cannot move them it says so', () => {
    let moved = 0;
    let whole = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      let seq = 1;
      let byId: Record<string, PublicRun> = {};
      for (let i = 0; i < 40; i++) {
        const x = run({ status: STATUSES[Math.floor(r() * 4)]!, queue_seq: seq++ });
        byId[x.uuid] = x;
      }
      const opts: ViewOptions = { filter: '', showAll: r() < 0.5, now: 1_800_000_000_000, seen: {}, collapsed: {} };
      let view = computeView(byId, opts);
      for (let frame = 0; frame < 30; frame++) {
        const next = { ...byId };
        const changed = new Set<string>();
        const ids = Object.keys(byId);
        for (let k = 0, n = 1 + Math.floor(r() * 4); k < n; k++) {
          const old = r() < 0.3 ? undefined : byId[ids[Math.floor(r() * ids.length)]!];
          const x = change(r, old, seq++);
          next[x.uuid] = x;
          changed.add(x.uuid);
        }
        const full = computeView(next, opts);
        const up = updateView(view, byId, next, changed, opts);
        if (up === null) whole++;
        else {
          moved++;
          expect(up, `seed ${seed} frame ${frame}`).toEqual(full);
        }
        byId = next;
        view = up ?? full;
      }
    }
    // Both ways were taken (a run that needs a person, a parent or a worktree: the whole view).
    expect(moved).toBeGreaterThan(1500);
    expect(whole).toBeGreaterThan(300);
  });

  it('starts only from a view computed from the rows before it, with the same options', () => {
    const a = run({ status: 'queued', queue_seq: 1 });
    const byId = { [a.uuid]: a };
    const opts: ViewOptions = { filter: '', showAll: true, now: 1, seen: {}, collapsed: {} };
    const view = computeView(byId, opts);
    const b = run({ status: 'queued', queue_seq: 2 });
    const next = { ...byId, [b.uuid]: b };
    expect(updateView(view, byId, next, new Set([b.uuid]), opts)?.ids).toEqual([a.uuid, b.uuid]);
    expect(updateView(view, { ...byId }, next, new Set([b.uuid]), opts)).toBeNull();
    expect(updateView(view, byId, next, new Set([b.uuid]), { ...opts, filter: 'run' })).toBeNull();
    expect(updateView(view, byId, next, new Set([b.uuid]), { ...opts, showAll: false })).toBeNull();
    expect(updateView(view, byId, next, new Set([b.uuid]), { ...opts, now: 2 })).toBeNull();
  });
});
