// Keys with runs tagged in the runs list: x, X, w, s and R act on every
// tagged run that they fit, and say what they skipped.

import type { PublicRun } from '../../protocol/views.js';
import { Command } from './keys.js';
import { plural, type KeyDeps } from './key-deps.js';
import { error, info, type TuiState } from '../state/store.js';

/** The tagged runs the store still holds, in list order. */
export function taggedRuns(s: TuiState): PublicRun[] {
  const out: PublicRun[] = [];
  for (const id in s.tagged) {
    const r = s.runs.byId[id];
    if (r) out.push(r);
  }
  const at = new Map(s.view.ids.map((id, i) => [id, i]));
  return out.sort((a, b) => (at.get(a.uuid) ?? Infinity) - (at.get(b.uuid) ?? Infinity));
}

/** x, X, w, s or R with runs tagged: on every tagged run that it fits, saying what it skipped. True if handled. */
export function onTagged(k: KeyDeps, s: TuiState, cmd: Command, tags: PublicRun[]): boolean {
  const { set, actions, now } = k;
  const live = tags.filter((r) => r.status !== 'ended');
  const skipped = (n: number, why: string): string => (n > 0 ? ` (${n} skipped: ${why})` : '');
  switch (cmd) {
    case Command.Kill:
      if (live.length === 0) {
        set(error(`none of the ${plural(tags.length, 'tagged run')} is live: nothing to kill`, now()));
        return true;
      }
      set({ mode: 'confirm', confirm: { uuid: live[0]!.uuid, name: plural(live.length, 'tagged run'), back: s.mode, uuids: live.map((r) => r.uuid) }, message: null });
      return true;
    case Command.KillNow:
      if (live.length === 0) {
        set(error(`none of the ${plural(tags.length, 'tagged run')} is live: nothing to kill`, now()));
        return true;
      }
      actions.killMany(
        live.map((r) => r.uuid),
        false,
      );
      set({ tagged: {} });
      return true;
    case Command.Wait:
      for (const r of tags) actions.wait(r.uuid);
      set(info(`waiting on ${plural(tags.length, 'tagged run')} until each is idle or ended…`, now()));
      return true;
    case Command.Send: {
      const idle = tags.filter((r) => r.status === 'idle');
      if (idle.length === 0) {
        set(error(`none of the ${plural(tags.length, 'tagged run')} is idle: input goes only to an idle run`, now()));
        return true;
      }
      k.openPrompt(s, { kind: 'send', text: '', target: null, targets: idle.map((r) => r.uuid), targetName: `${plural(idle.length, 'tagged run')}${skipped(tags.length - idle.length, 'not idle')}` });
      return true;
    }
    case Command.Rerun: {
      const ended = tags.filter((r) => r.status === 'ended');
      if (ended.length === 0) {
        set(error(`none of the ${plural(tags.length, 'tagged run')} has ended: rerun takes an ended run`, now()));
        return true;
      }
      for (const r of ended) actions.rerun(r.uuid);
      set({ tagged: {}, ...info(`rerunning ${plural(ended.length, 'tagged run')}${skipped(tags.length - ended.length, 'not ended')}`, now()) });
      return true;
    }
    default:
      return false;
  }
}
