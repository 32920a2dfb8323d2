// What a key may ask of the world outside the store: the router calls these,
// the connection carries them out (connection/controller.ts). Declared here,
// beside the router that uses them, so input never imports the connection.

import type { SortSpec } from '../state/sort.js';

export interface Actions {
  kill(uuid: string, force: boolean): void;
  /** Kill several (the tagged runs) in one request. */
  killMany(uuids: readonly string[], force: boolean): void;
  send(uuid: string, text: string): void;
  wait(uuid: string): void;
  enqueue(line: string): void;
  /** A new queued run with an ended run's spec (`orcr rerun`). */
  rerun(uuid: string): void;
  /** `o`: carry the run's session on in the agent's own CLI (the run stops at its turn's end; again: now). */
  takeover(uuid: string): void;
  /** `$`: the spend view opened; read its figures now (and each second while it shows). */
  spendOpened(): void;
  /** `@`: the loops view opened; read the loops now (and each second while it shows). */
  loopsOpened(): void;
  /** `p` in the loops view: `orcr loop pause|resume NAME`. */
  pauseLoop(name: string, paused: boolean): void;
  /** `f` in the loops view: `orcr loop run start NAME` (the same rules as a scheduled fire). */
  fireLoop(name: string): void;
  /** `orcr provider resume`: lift a provider's hold now. */
  resumeProvider(provider: string): void;
  /** `orcr queue pause|resume`. */
  pauseQueue(paused: boolean): void;
  reconnect(): void;
  themeChanged(name: string): void;
  /** Remember the runs' order for the next session. */
  sortChanged(sort: SortSpec): void;
  /** Details opened on the selected run: sample its processes, read its output and follow it. */
  detailsOpened(): void;
  /** Details closed: stop following the output. */
  detailsClosed(): void;
  /** Page older ended runs in (the window let them go, or the snapshot did not send them). */
  loadOlder(): void;
  /** The transcript pager opened on a run: page the output details follow (read it, if they do not). */
  transcriptOpened(uuid: string): void;
  /** The pager closed, back to details (which go on following). */
  transcriptClosed(): void;
  /** `d`: read the run's diff against its base into the pager. */
  diffOpened(uuid: string): void;
}
