// A run's output while someone looks at it: details (its processes' CPU and
// memory, and the transcript the feed reads and follows), the transcript
// pager over the same document, and a worktree run's diff. Opened and closed
// by keys; looked at again on the controller's clock.

import type { Home } from '../../config/home.js';
import type { OutputPort } from '../input/actions.js';
import type { DetailsData, TuiStore } from '../state/store.js';
import { DetailsRefresh } from './details-refresh.js';
import { loadDiff } from './diff-load.js';
import type { Session } from './session.js';
import { TranscriptFeed } from './transcript-feed.js';

export class OutputFollow implements OutputPort {
  private readonly details = new DetailsRefresh();
  private readonly transcript: TranscriptFeed;

  constructor(
    private readonly store: TuiStore,
    private readonly session: Session,
    home: Home,
  ) {
    this.transcript = new TranscriptFeed(store, home);
  }

  detailsOpened(): void {
    this.details.reset();
    this.refresh();
    const uuid = this.store.getState().selected;
    if (uuid) this.transcript.show(uuid);
  }

  detailsClosed(): void {
    this.transcript.close();
  }

  transcriptOpened(uuid: string): void {
    this.transcript.show(uuid);
  }

  transcriptClosed(): void {
    // Back in details, which go on showing (and following) the same output.
    const s = this.store.getState();
    if (s.mode !== 'details' || s.selected !== this.transcript.uuid) this.transcript.close();
  }

  diffOpened(uuid: string): void {
    void loadDiff(this.store, this.session, uuid);
  }

  /** Read the selected run's process group and output tail into the details pane. */
  refresh(): void {
    const details = this.details.read(this.store.getState());
    if (details) this.session.set({ details });
  }

  /** On the clock: a followed run that ended is read to its end; in details, the figures as of now (applied with the next frame). */
  tick(): DetailsData | null {
    const s = this.store.getState();
    const fed = this.transcript.uuid;
    if (fed && s.runs.byId[fed]?.status === 'ended') this.transcript.ended(fed);
    return this.store.getState().mode === 'details' ? this.details.read(this.store.getState()) : null;
  }

  close(): void {
    this.transcript.close();
  }
}
