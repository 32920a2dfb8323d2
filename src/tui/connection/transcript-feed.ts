// Feeds a run's output document — the details view's transcript and the
// pager over it: the run's whole output (and stderr) read once when details
// (or the pager) open, then followed as they grow, each new batch of lines
// added to the document (built line by line: nothing is read or parsed
// twice) and the versions bumped so details and the pager redraw. The pager
// opened from details pages the same document: nothing is read again. A long output is
// parsed a chunk per turn of the event loop: its first screen shows at once,
// keys keep working, and the rest comes in behind it (the title says how far).
// Reads only.

import path from 'node:path';
import type { Home } from '../../config/home.js';
import { OutputFollower, outputFile, readAll, readInputs } from '../../client/run-output.js';
import type { TuiStore } from '../state/store.js';
import { TranscriptDoc } from '../state/transcript-doc.js';

/** Lines parsed before the first screen is shown, and per turn of the event loop after it. */
export const FIRST_LINES = 2_000;
export const CHUNK_LINES = 4_000;

export class TranscriptFeed {
  private followers: OutputFollower[] = [];
  private doc: TranscriptDoc | null = null;
  private building: NodeJS.Immediate | null = null;
  private endWhenBuilt = false;

  constructor(
    private readonly store: TuiStore,
    private readonly home: Home,
    private readonly pollMs = 250,
  ) {}

  /** The run whose output is fed now, if any. */
  get uuid(): string | null {
    return this.doc?.uuid ?? null;
  }

  /** The run's output, fed: the document there is when it is this run's, else read anew. */
  show(uuid: string): void {
    if (this.doc?.uuid === uuid) this.publish();
    else this.open(uuid);
  }

  open(uuid: string): void {
    this.close();
    this.endWhenBuilt = false;
    const s = this.store.getState();
    const run = s.runs.byId[uuid];
    const file = outputFile(this.home.dir, uuid);
    const dir = path.dirname(file);
    const doc = new TranscriptDoc(uuid, run?.protocol ?? null, readInputs(dir));
    this.doc = doc;
    const out = readAll(file);
    const err = readAll(path.join(dir, 'err'));
    const ended = run?.status === 'ended';
    const total = out.lines.length;
    let read = Math.min(total, FIRST_LINES);
    doc.push(out.lines.slice(0, read));
    // The rest is read, the stderr and the end are added, and the files followed once the whole output is in.
    const finish = (): void => {
      doc.loading = null;
      doc.pushStderr(err.lines);
      if (ended) doc.end();
      this.publish();
      if (ended) return;
      this.follow(doc, file, dir, out.wholeEnd, err.wholeEnd);
      // It ended while its output was being parsed: what it wrote since, then its end.
      if (this.endWhenBuilt) this.ended(uuid);
    };
    if (read === total) return finish();
    doc.loading = { read, total };
    this.publish();
    const step = (): void => {
      this.building = null;
      if (this.doc !== doc) return;
      const to = Math.min(total, read + CHUNK_LINES);
      doc.push(out.lines.slice(read, to));
      read = to;
      if (read === total) return finish();
      doc.loading = { read, total };
      this.publish();
      this.building = setImmediate(step);
    };
    this.building = setImmediate(step);
  }

  /** Whether the document is still being built (for tests and the bench: nothing to wait on otherwise). */
  get loading(): boolean {
    return this.building !== null;
  }

  private follow(doc: TranscriptDoc, file: string, dir: string, outEnd: number, errEnd: number): void {
    this.followers = [
      new OutputFollower(
        file,
        outEnd,
        (lines) => {
          // A send while the pager is open: its text was recorded before the output it causes.
          doc.push(lines, readInputs(dir));
          this.publish();
        },
        this.pollMs,
      ),
      new OutputFollower(
        path.join(dir, 'err'),
        errEnd,
        (lines) => {
          doc.pushStderr(lines);
          this.publish();
        },
        this.pollMs,
      ),
    ];
    for (const f of this.followers) f.start();
  }

  /** The run ended while the pager showed it: the last lines, then nothing more to follow. */
  ended(uuid: string): void {
    const doc = this.doc;
    if (!doc || doc.uuid !== uuid || doc.isEnded) return;
    if (this.building) {
      this.endWhenBuilt = true;
      return;
    }
    for (const f of this.followers) f.read();
    for (const f of this.followers) f.close();
    this.followers = [];
    doc.end();
    this.publish();
  }

  close(): void {
    if (this.building) clearImmediate(this.building);
    this.building = null;
    for (const f of this.followers) f.close();
    this.followers = [];
    // Let the document go with the feed (a long output is tens of MB of rows).
    if (this.doc && this.store.getState().outputDoc === this.doc) this.store.setState({ outputDoc: null });
    this.doc = null;
  }

  private publish(): void {
    const doc = this.doc;
    if (!doc) return;
    this.store.setState((s) => ({
      outputDoc: doc,
      outputVersion: s.outputVersion + 1,
      // The pager over this run's transcript (not over its diff, which has a document of its own).
      ...(s.pager && s.pager.uuid === doc.uuid && s.pager.view !== 'diff' ? { pagerDoc: doc, pager: { ...s.pager, version: s.pager.version + 1 } } : {}),
    }));
  }
}
