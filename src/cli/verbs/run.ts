// `orcr run`, `orcr rerun`, `orcr send`: what makes a run or gives it input.

import { safeLine } from '../../text/terminal-text.js';
import type { Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';

const runVerbs: Verb = async (verb, rest, sh) => {
  if (verb === 'rerun') {
    const { positionals } = sh.parse(verb, rest);
    if (positionals.length !== 1) throw new UsageError('rerun takes exactly one run', verb);
    const run = await sh.withSdk((o) => o.rerun(positionals[0]!));
    if (sh.json) sh.printJson(run);
    else sh.out(`${safeLine(run.name)} ${run.uuid}`);
    return 0;
  }
  if (verb === 'send') {
    const { positionals } = sh.parse(verb, rest);
    if (positionals.length < 2) throw new UsageError('send needs a run and the text to send (or - to read it from stdin)', verb);
    const text = positionals.length === 2 && positionals[1] === '-' ? sh.readStdin() : positionals.slice(1).join(' ');
    const run = await sh.withSdk((o) => o.send(positionals[0]!, text));
    if (sh.json) sh.printJson(run);
    else sh.out(`${safeLine(run.name)} input ${run.input_seq}`);
    return 0;
  }
  const fanOut = rest.includes('--from') && !rest.slice(0, rest.indexOf('--from')).includes('--');
  // Loaded here: the run-spec schema brings zod, a noticeable part of a start-up that no other verb needs.
  const { parseRunArgs, parseFanOut } = await import('../run-args.js');
  const io = { stdin: () => sh.readStdin() };
  const specs = fanOut ? parseFanOut(rest, process.cwd(), io) : [parseRunArgs(rest, process.cwd(), io)];
  // A run starts with the environment of the `orcr run` that made it (PATH included), not the supervisor's.
  const res = await sh.withSdk((o) => o.enqueue(specs, fanOut));
  for (const w of res.warnings ?? []) sh.say(`warning: ${safeLine(w)}`);
  if (sh.json) sh.printJson(fanOut ? res.runs : res.runs[0]);
  else for (const r of res.runs) sh.out(`${safeLine(r.name)} ${r.uuid}`);
  return 0;
};
export default runVerbs;
