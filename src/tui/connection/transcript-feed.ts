// Feeds the transcript pager: the run's whole output (and stderr) read once
// when the pager opens, then followed as they grow, each new batch of lines
// added to the document (built line by line: nothing is read or parsed
// twice) and the pager's version bumped so it redraws. Reads only.

import path from 'node:path';
import type { Home } from '../../config/home.js';
import type { Protocol } from '../../core/types.js';
import { OutputFollower, outputFile, readAll, readInputs } from '../../client/run-output.js';
import type { TuiStore } from '../state/store.js';
import { TranscriptDoc } from '../state/transcript-doc.js';

export class TranscriptFeed {
  private followers: OutputFollower[] = [];
  private doc: TranscriptDoc | null = null;

  constructor(
    private readonly store: TuiStore,
    private readonly home: Home,
    private readonly pollMs = 250,
  ) {}

  open(uuid: string): void {
    this.close();
    const s = this.store.getState();
    const run = s.runs.byId[uuid];
    const file = outputFile(this.home.dir, uuid);
    const dir = path.dirname(file);
    const doc = new TranscriptDoc(uuid, (run?.protocol ?? null) as Protocol | null, readInputs(dir));
    this.doc = doc;
    const out = readAll(file);
    doc.push(out.lines);
    const err = readAll(path.join(dir, 'err'));
    doc.pushStderr(err.lines);
    if (run?.status === 'ended') doc.end();
    this.publish();
    if (run?.status === 'ended') return;
    this.followers = [
      new OutputFollower(file, out.wholeEnd, (lines) => {
        // A send while the pager is open: its text was recorded before the output it causes.
        doc.push(lines, readInputs(dir));
        this.publish();
      }, this.pollMs),
      new OutputFollower(path.join(dir, 'err'), err.wholeEnd, (lines) => {
        doc.pushStderr(lines);
        this.publish();
      }, this.pollMs),
    ];
    for (const f of this.followers) f.start();
  }

  /** The run ended while the pager showed it: the last lines, then nothing more to follow. */
  ended(uuid: string): void {
    const doc = this.doc;
    if (!doc || doc.uuid !== uuid || doc.isEnded) return;
    for (const f of this.followers) f.read();
    for (const f of this.followers) f.close();
    this.followers = [];
    doc.end();
    this.publish();
  }

  close(): void {
    for (const f of this.followers) f.close();
    this.followers = [];
    this.doc = null;
  }

  private publish(): void {
    const doc = this.doc;
    if (!doc) return;
    this.store.setState((s) => (s.pager && s.pager.uuid === doc.uuid ? { pagerDoc: doc, pager: { ...s.pager, version: s.pager.version + 1 } } : {}));
  }
}
