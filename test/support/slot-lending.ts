// For tests of the deadlock guard through a program (the SDK, `orcr mcp`): a
// run standing in for the calling agent, and what the journal says of it.

import { until, type TestHome } from './harness.js';

/** A run that holds its slot until killed, already started: the parent whose ORCR_RUN a program has. */
export async function holdingRun(h: TestHome, name: string): Promise<{ uuid: string }> {
  const run = h.json<{ uuid: string }>(['run', '-n', name, '--', 'sleep', '600']);
  await until(() => !['queued', 'starting'].includes(h.json<{ status: string }>(['show', run.uuid]).status), `${name} to start`);
  return run;
}

/** The types of a run's events, in order (`slot_lent`, `slot_taken_back`, …). */
export const eventTypes = (h: TestHome, uuid: string): string[] =>
  h.json<{ run: string | null; type: string }[]>(['events'])
    .filter((e) => e.run === uuid)
    .map((e) => e.type);
