// What the details pane shows beyond the run's row and its output (the
// transcript feed's): its process group's CPU and memory, from /proc, read
// for the selected run when details open and once a second while they show.
// Reads only; it never signals a process or writes a file.

import type { DetailsData, TuiState } from '../state/store.js';
import { cpuPercent, sampleGroup, type GroupSample } from './proc-stats.js';
import { detailsRows } from '../state/navigation.js';

export class DetailsRefresh {
  private procPrev: GroupSample | null = null;
  private procFor: string | null = null;

  /** Details just opened: the CPU figure starts over from a fresh sample. */
  reset(): void {
    this.procPrev = null;
    this.procFor = null;
  }

  /** The selected run's details as of now, or null when no run is selected. */
  read(s: TuiState): DetailsData | null {
    const uuid = s.selected;
    if (!uuid) return null;
    const run = s.runs.byId[uuid];
    if (!run) return null;
    const now = Date.now();
    if (this.procFor !== uuid) {
      this.procPrev = null;
      this.procFor = uuid;
    }
    let cpu: number | null = null;
    let rssBytes: number | null = null;
    let pids: number[] = [];
    if (run.pid !== null && run.status !== 'ended' && run.status !== 'queued') {
      const sample = sampleGroup(run.pid, now);
      if (sample) {
        cpu = cpuPercent(this.procPrev, sample);
        rssBytes = sample.rssBytes;
        pids = sample.pids;
      }
      this.procPrev = sample;
    }
    const kept = s.details?.uuid === uuid ? s.details : null;
    return { uuid, cpu, rssBytes, pids, scroll: keptScroll(s, uuid), raw: kept?.raw ?? false };
  }
}

/** The output's scroll kept where the person left it, inside the rows there are now. */
export function keptScroll(s: TuiState, uuid: string): number {
  return s.details?.uuid === uuid ? Math.min(s.details.scroll, Math.max(0, detailsRows(s) - 1)) : 0;
}
