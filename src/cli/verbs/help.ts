// `orcr help [VERB [SUBCOMMAND...]]`: the verbs, one line each, or one
// verb's usage (as `orcr VERB --help` prints it); --json gives the same from
// the grammar, for a program that lists or documents orcr's verbs.

import { commandAt, GROUPS, isVerb, shownVerbs, spec, type Command, type FlagDecls } from '../grammar.js';
import type { Verb } from '../shell.js';
import { mainUsage, VERB_USAGE, verbUsage } from '../usage.js';
import { UsageError } from '../usage-error.js';
import { didYouMean, shownWord, unknownVerb } from '../words.js';

const flagList = (flags: FlagDecls | undefined) =>
  Object.entries(flags ?? {}).map(([name, f]) => ({ flag: `--${name}`, short: f.short ? `-${f.short}` : null, takes_value: f.type === 'string' }));

/** A command's subcommands as JSON, each with its own. */
const subcommandList = (c: Command): unknown[] =>
  Object.entries(c.subcommands ?? {}).map(([name, s]) => ({ subcommand: name, flags: flagList(s.flags), subcommands: subcommandList(s) }));

const helpVerb: Verb = async (verb, rest, sh) => {
  const { positionals } = sh.parse(verb, rest);
  if (positionals.length === 0) {
    if (sh.json) sh.printJson({ verbs: shownVerbs().map((v) => ({ verb: v, group: GROUPS[spec(v).group], summary: spec(v).summary })) });
    else sh.out(mainUsage());
    return 0;
  }
  const [name, ...subs] = positionals as [string, ...string[]];
  if (!isVerb(name)) throw unknownVerb(name);
  for (let i = 0; i < subs.length; i++) {
    if (commandAt(name, ...subs.slice(0, i + 1))) continue;
    const at = commandAt(name, ...subs.slice(0, i))!;
    const words = Object.keys(at.subcommands ?? {});
    const path = [name, ...subs.slice(0, i)].join(' ');
    throw new UsageError(
      words.length === 0
        ? `${path} has no subcommands, got ${shownWord(subs[i]!)} (orcr help ${path})`
        : `${path} has no subcommand ${shownWord(subs[i]!)}${didYouMean(subs[i]!, words)} (it has ${words.join(', ')})`,
    );
  }
  if (sh.json) {
    const c = spec(name);
    sh.printJson({ verb: name, group: GROUPS[c.group], summary: c.summary, usage: VERB_USAGE[name], flags: flagList(c.flags), subcommands: subcommandList(c) });
  } else sh.out(verbUsage(name));
  return 0;
};
export default helpVerb;
