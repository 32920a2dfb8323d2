// A user's reference to a run — uuid, unique uuid prefix, or name (an active
// run's before an ended one's) — as every verb and `run --after` read it.

import type { Run } from '../core/types.js';
import { RemoteError } from '../protocol/errors.js';
import { quote } from '../text/json-text.js';
import type { RunStore } from './run-store.js';

/** The run `ref` names; a RemoteError (not_found, ambiguous) when none or several. */
export function resolveRef(store: RunStore, ref: string): Run {
  const { reader } = store;
  const live = store.get(ref);
  if (live) return live;
  const exact = reader.getRun(ref);
  if (exact) return exact;
  const holder = store.holderOfName(ref);
  if (holder) return store.get(holder)!;
  const byName = reader.runsByName(ref);
  if (byName.length > 0) {
    const active = byName.filter((r) => r.status !== 'ended');
    if (active.length > 1) throw new RemoteError('ambiguous', `${quote(ref)} names ${active.length} active runs; use a uuid`);
    const r = active[0] ?? byName[0]!;
    return store.get(r.uuid) ?? r;
  }
  if (/^[0-9a-f-]{4,}$/i.test(ref)) {
    const byPrefix = reader.runsByPrefix(ref);
    if (byPrefix.length > 1) throw new RemoteError('ambiguous', `${quote(ref)} matches several runs; give more of the uuid`);
    if (byPrefix.length === 1) return store.get(byPrefix[0]!.uuid) ?? byPrefix[0]!;
  }
  throw new RemoteError('not_found', `no run ${quote(ref)}`);
}
