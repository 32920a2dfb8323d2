// `orcr events`: the journal from a seq, tab-separated or JSON; with -f, then
// the live stream, through supervisor restarts (the client core's follow).

import { follow } from '../../client/follow.js';
import type { RunEvent } from '../../core/events.js';
import { jsonText } from '../../text/json-text.js';
import { safeLine } from '../../text/terminal-text.js';
import { eventsCluster } from '../fleet.js';
import { plainNumber } from '../format.js';
import { wholeNumberFlag, type Shell, type Verb } from '../shell.js';

/**
 * One event: `seq ts type id name data`, tab-separated, replayed or live
 * alike. A run is its short id (as `ps` shows it, and a reference every verb
 * takes) and its name, one per column: names repeat across time, ids do not.
 */
function printEvent(sh: Shell, e: RunEvent, name: string | null): void {
  if (sh.json) sh.out(jsonText(e));
  else {
    const d = Object.entries(e.data)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `${k}=${typeof v === 'number' ? plainNumber(v) : typeof v === 'object' ? jsonText(v) : String(v)}`)
      .join(' ');
    const id = e.run === null ? '-' : e.run.slice(0, 8);
    sh.out([String(e.seq), new Date(e.ts).toISOString(), e.type, id, e.run === null ? '-' : (name ?? '-'), d].map(safeLine).join('\t'));
  }
}

const eventsVerb: Verb = async (verb, rest, sh) => {
  const { values } = sh.parse(verb, rest);
  if (values.cluster === true) return eventsCluster(verb, values, sh);
  const since = values.since === undefined ? 0 : wholeNumberFlag(values.since as string, '--since');
  if (!values.follow) {
    // Page through the journal: a long-lived home holds millions of events.
    // Connected first: a supervisor that cannot be reached is an error of its own, not half a JSON array.
    const orcr = await sh.sdk({ now: true });
    let first = true;
    if (sh.json) sh.write('[');
    for await (const { event, name } of orcr.events({ since })) {
      if (sh.json) {
        sh.write((first ? '\n  ' : ',\n  ') + jsonText(event));
        first = false;
      } else printEvent(sh, event, name);
    }
    if (sh.json) sh.write(first ? ']\n' : '\n]\n');
    orcr.close();
    return 0;
  }
  const stream = follow(sh.home(), {
    since,
    onPruned: (from, firstSeq) => {
      sh.say(`events ${from}–${firstSeq - 1} were removed by retention (retention.ended, orcr gc); following from ${firstSeq}`);
    },
  });
  for await (const { event, name } of stream) printEvent(sh, event, name);
  return 0;
};
export default eventsVerb;
