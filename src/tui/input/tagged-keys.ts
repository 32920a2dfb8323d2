// Keys with runs tagged in the runs list: x, X, w, s and R act on every
// tagged run that they fit, and say what they skipped. Their bindings
// (context `tagged`) come before the list's own.

import type { PublicRun } from '../../protocol/views.js';
import type { TuiState } from '../state/store.js';
import { refused, type KeyCall, type Refusal, type Subject } from './binding.js';
import { killSeveral, plural } from './run-keys.js';
import { runOf } from '../state/fleet.js';

/** The tagged runs the store still holds, in list order. */
export function taggedRuns(s: TuiState): PublicRun[] {
  const out: PublicRun[] = [];
  for (const id in s.tagged) {
    const r = runOf(s, id);
    if (r) out.push(r);
  }
  const at = new Map(s.view.ids.map((id, i) => [id, i]));
  return out.sort((a, b) => (at.get(a.uuid) ?? Infinity) - (at.get(b.uuid) ?? Infinity));
}

const live = (c: KeyCall): readonly PublicRun[] => c.tags.filter((r) => r.status !== 'ended');
const skipped = (n: number, why: string): string => (n > 0 ? ` (${n} skipped: ${why})` : '');
const some = (c: KeyCall, which: (r: PublicRun) => boolean, none: string): Refusal | null =>
  c.tags.some(which) ? null : refused(`none of the ${plural(c.tags.length, 'tagged run')} ${none}`);

export const anyLive = (c: KeyCall): Refusal | null => some(c, (r) => r.status !== 'ended', 'is live: nothing to kill');
export const anyIdle = (c: KeyCall): Refusal | null => some(c, (r) => r.status === 'idle', 'is idle: input goes only to an idle run');
export const anyEnded = (c: KeyCall): Refusal | null => some(c, (r) => r.status === 'ended', 'has ended: rerun takes an ended run');

export function liveSubject(c: KeyCall): Subject {
  const l = live(c);
  return { uuid: l[0]!.uuid, name: plural(l.length, 'tagged run'), uuids: l.map((r) => r.uuid) };
}

export const killTaggedNow = (c: KeyCall): void =>
  killSeveral(
    c,
    live(c).map((r) => r.uuid),
  );

export function waitTagged(c: KeyCall): void {
  for (const r of c.tags) c.actions.runs.wait(r.uuid);
  c.say(`waiting on ${plural(c.tags.length, 'tagged run')} until each is idle or ended…`);
}

export function sendTagged(c: KeyCall): void {
  const idle = c.tags.filter((r) => r.status === 'idle');
  c.openPrompt({
    kind: 'send',
    text: '',
    target: null,
    targets: idle.map((r) => r.uuid),
    targetName: `${plural(idle.length, 'tagged run')}${skipped(c.tags.length - idle.length, 'not idle')}`,
  });
}

export function rerunTagged(c: KeyCall): void {
  const ended = c.tags.filter((r) => r.status === 'ended');
  for (const r of ended) c.actions.runs.rerun(r.uuid);
  c.set({ tagged: {} });
  c.say(`rerunning ${plural(ended.length, 'tagged run')}${skipped(c.tags.length - ended.length, 'not ended')}`);
}
