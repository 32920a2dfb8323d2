// This machine's runs as the fleet view shows them: each run's public face
// (protocol/views clusterFace) made from its view as clients see it, its WHY
// in words and its pending requests' summaries. The publisher writes these;
// the reader overlays them for this machine's own runs.

import type { Run } from '../core/types.js';
import { RemoteError } from '../protocol/errors.js';
import { clusterFace, type ClusterRunFace } from '../protocol/views.js';
import { whyText } from '../text/why.js';
import type { ApprovalBook } from './approval-book.js';
import type { LocalFaces } from './fleet-view.js';
import type { Queries } from './queries.js';
import type { RunStore } from './run-store.js';

export interface Faces extends LocalFaces {
  /** A run's face by uuid (active or ended), null when the journal no longer has it. */
  of(uuid: string): ClusterRunFace | null;
}

export function localFaces(d: { store: RunStore; queries: Pick<Queries, 'view' | 'resolve'>; book: Pick<ApprovalBook, 'pending'> }): Faces {
  const face = (run: Run): ClusterRunFace => {
    const view = d.queries.view(run);
    return clusterFace(view, whyText(view), run.status === 'blocked' ? d.book.pending(run.uuid) : []);
  };
  return {
    of: (uuid) => {
      const run = d.store.lookup(uuid);
      return run ? face(run) : null;
    },
    active: () => [...d.store.active()].map(face),
    find: (ref) => {
      try {
        return face(d.queries.resolve(ref));
      } catch (e) {
        if (e instanceof RemoteError && e.code === 'not_found') return null;
        throw e;
      }
    },
  };
}
