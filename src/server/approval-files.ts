// What an agent asked, kept whole in its run's folder beside its output:
// `approvals/<id>.json` (0600, the folder 0700) holds the request's input,
// the agent's offers for "always" and its questions as it wrote them — what
// an answer is built from and checked against, and what `approval.get`
// shows. Never in the journal, events or notifications: a 10 MB Write is
// summarised there, and whole here.

import fs from 'node:fs';
import path from 'node:path';
import type { Question } from '../core/approvals.js';
import { runDir, type Home } from '../config/home.js';

/** What a request carried, as the agent wrote it. */
export interface Asked {
  input: unknown;
  offers: unknown;
  questions: Question[] | null;
}

function askedFile(home: Home, run: string, id: number): string {
  return path.join(runDir(home, run), 'approvals', `${id}.json`);
}

/** Written once, when the request is journaled; a failure is the caller's to tell (the request is still answered, with less). */
export function writeAsked(home: Home, run: string, id: number, asked: Asked): void {
  const file = askedFile(home, run, id);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written whole, then renamed: a crash leaves the old file or none, never half of one.
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(asked), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** What a request carried; nulls when its file is gone or does not read. */
export function readAsked(home: Home, run: string, id: number): Asked {
  try {
    const v = JSON.parse(fs.readFileSync(askedFile(home, run, id), 'utf8')) as Partial<Asked> | null;
    return { input: v?.input ?? null, offers: v?.offers ?? null, questions: Array.isArray(v?.questions) ? v.questions : null };
  } catch {
    return { input: null, offers: null, questions: null };
  }
}
