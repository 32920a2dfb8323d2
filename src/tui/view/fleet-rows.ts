// What the components read of the fleet in cluster scope (state/fleet.ts
// holds it): a listed run whatever its machine, and whether its machine has
// stopped answering.

import { runOf, staleRow } from '../state/fleet.js';
import type { ClusterRunFace, PublicRun } from '../../protocol/views.js';
import { faceWhy } from '../../text/why.js';
import type { TuiState } from '../state/store.js';

/** The run a listed key names: this machine's, or (cluster scope) another's. */
export const listedRun = (s: TuiState, key: string): PublicRun | undefined => runOf(s, key);

/** Its machine stopped renewing its heartbeat: the row is the last it said. */
export const staleMachine = (s: TuiState, key: string): boolean => staleRow(s.fleet, key);

/** Another machine's run's WHY as of `now` (what counts down in it by this clock), null when it says none or it ended. */
export const remoteWhy = (face: ClusterRunFace, now: number): string | null => (face.status === 'ended' ? null : faceWhy(face, now));
