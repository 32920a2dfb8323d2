// For tests of the deadlock guard through a program (the SDK, `orcr mcp`): a
// run standing in for the calling agent, and what the journal says of it.

import { until } from './harness.js';
import type { Remote } from './in-process.js';

/** A run that holds its slot until killed, already started: the parent whose ORCR_RUN a program has. */
export async function holdingRun(h: Remote, name: string): Promise<{ uuid: string }> {
  const run = await h.run(['-n', name, '--', 'sleep', '600']);
  await until(async () => !['queued', 'starting'].includes((await h.show(run.uuid)).status), `${name} to start`);
  return run;
}

/** The types of a run's events, in order (`slot_lent`, `slot_taken_back`, …). */
export async function eventTypes(h: Remote, uuid: string): Promise<string[]> {
  return (await h.events<{ run: string | null; type: string }>()).filter((e) => e.run === uuid).map((e) => e.type);
}
