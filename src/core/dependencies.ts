// Runs that wait for runs (`run --after`): a dependent is queued but not
// admissible until every run it names has ended `completed` (`--after-any`:
// ended, however); when one it needs ends any other way it is canceled, and
// so on down the line. A run continued or retried has not ended, so its
// dependents keep waiting. Pure: the caller gives the inputs as they stand.

import type { ExitReason, RunStatus } from './types.js';

/** One input of a dependent, as it stands (one the journal no longer has is `{ uuid, gone: true }`). */
export interface InputState {
  uuid: string;
  name: string;
  status: RunStatus;
  exit_reason: ExitReason | null;
}

export type DependencyVerdict =
  /** Some inputs have not ended: `left` of them, the first named. */
  { kind: 'wait'; left: InputState[] } | { kind: 'ready' } | { kind: 'cancel'; detail: string };

/** Where a dependent stands: wait, go, or canceled (with `dependency NAME ended REASON`). */
export function dependencyVerdict(anyEnd: boolean, inputs: readonly (InputState | { uuid: string; gone: true })[]): DependencyVerdict {
  const left: InputState[] = [];
  for (const i of inputs) {
    if ('gone' in i) {
      if (!anyEnd) return { kind: 'cancel', detail: `dependency ${i.uuid} is not in the journal any more` };
      continue;
    }
    if (i.status !== 'ended') left.push(i);
    else if (!anyEnd && i.exit_reason !== 'completed') return { kind: 'cancel', detail: `dependency ${i.name} ended ${i.exit_reason ?? 'ended'}` };
  }
  return left.length > 0 ? { kind: 'wait', left } : { kind: 'ready' };
}

/** A graph of one call's specs that cannot be queued: the message names the line. */
export class GraphError extends Error {}

/** One spec of a call as the graph sees it: how errors name it, its name, what it names in `after`. */
export interface GraphLine {
  label: string;
  name: string | undefined;
  after: readonly string[];
}

/** What an `after` reference resolves to: a spec of the same call (its index) or a run that exists (its uuid). */
export type GraphRef = { line: number } | { run: string };

/**
 * Resolve every line's `after` before anything is queued: a name of a line
 * of the same call first, else a run that exists (`existing`, null when
 * none). Unknown names, a line naming itself and cycles are refused whole.
 */
export function planGraph(lines: readonly GraphLine[], existing: (ref: string) => string | null): GraphRef[][] {
  const byName = new Map<string, number>();
  lines.forEach((l, i) => {
    if (l.name !== undefined) byName.set(l.name, i);
  });
  const refs = lines.map((l, i) =>
    l.after.map((ref): GraphRef => {
      const line = byName.get(ref);
      if (line === i) throw new GraphError(`${l.label}: "after" names the run itself (${JSON.stringify(ref)})`);
      if (line !== undefined) return { line };
      const run = existing(ref);
      if (run === null) throw new GraphError(`${l.label}: "after" names ${JSON.stringify(ref)}, which is neither a run of this call nor a run orcr knows`);
      return { run };
    }),
  );
  // Depth-first, iteratively (a chain of thousands must not overflow the stack): 1 on the path, 2 done.
  const mark = new Uint8Array(lines.length);
  for (let root = 0; root < lines.length; root++) {
    if (mark[root] !== 0) continue;
    const path: number[] = [root];
    const next: number[] = [0];
    mark[root] = 1;
    while (path.length > 0) {
      const at = path.at(-1)!;
      const edges = refs[at]!;
      const k = next.at(-1)!;
      if (k >= edges.length) {
        mark[at] = 2;
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = k + 1;
      const e = edges[k]!;
      if (!('line' in e)) continue;
      if (mark[e.line] === 1) {
        const cycle = [...path.slice(path.indexOf(e.line)), e.line].map((n) => lines[n]!.label);
        throw new GraphError(`a cycle of "after": ${cycle.join(' → ')}`);
      }
      if (mark[e.line] === 0) {
        mark[e.line] = 1;
        path.push(e.line);
        next.push(0);
      }
    }
  }
  return refs;
}
