// `d`: the run's diff, asked of the supervisor (it runs git; the TUI never
// does) and put in the pager as a document. An answer for a pager closed or
// moved on meanwhile is dropped; a refusal (the worktree is gone, say) closes
// the view and says why in the footer.

import { reduceClosePager } from '../state/pager.js';
import { DiffDoc } from '../state/diff-doc.js';
import { error, type TuiStore } from '../state/store.js';
import type { Session } from './session.js';

export async function loadDiff(store: TuiStore, session: Session, uuid: string): Promise<void> {
  const showing = (): boolean => {
    const p = store.getState().pager;
    return p !== null && p.uuid === uuid && p.view === 'diff';
  };
  const c = session.client;
  try {
    if (!c) throw new Error('not connected to the supervisor');
    const res = await c.call('run.diff', { ref: uuid, stat: false });
    if (!showing()) return;
    store.setState((s) => ({ pagerDoc: new DiffDoc(uuid, res.text), pager: { ...s.pager!, version: s.pager!.version + 1 } }));
  } catch (e) {
    if (!showing()) return;
    store.setState((s) => ({ ...reduceClosePager(s), ...error(`diff: ${(e as Error).message}`, Date.now()) }));
  }
}
