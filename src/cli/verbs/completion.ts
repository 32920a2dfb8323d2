// `orcr completion bash|zsh|fish`: a completion script made from the verbs'
// grammar; and `orcr __complete runs|loops`, which the scripts call for the
// names of the running supervisor's runs and loops.

import { COMPLETE_KINDS, SHELLS, type ShellName } from '../grammar.js';
import { CliExit, type Shell, type Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';
import { didYouMean, shownWord } from '../words.js';

const SCRIPTS: Readonly<Record<ShellName, () => Promise<string>>> = {
  bash: async () => (await import('../completion/bash.js')).bashScript(),
  zsh: async () => (await import('../completion/zsh.js')).zshScript(),
  fish: async () => (await import('../completion/fish.js')).fishScript(),
};

/** How long a Tab waits for names: a supervisor that does not answer by then gets none asked of it. */
const NAMES_WITHIN_MS = 2000;

const isOneOf = <T extends string>(word: string, words: readonly T[]): word is T => (words as readonly string[]).includes(word);

/** The one word a verb takes from `words`, or the usage error that says which it takes. */
function oneOf<T extends string>(verb: string, positionals: string[], words: readonly T[], what: string): T {
  const list = `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
  if (positionals.length === 0) throw new UsageError(`${verb} needs a ${what}: ${list}`, verb);
  if (positionals.length > 1) throw new UsageError(`${verb} takes one ${what} (${list}), got ${positionals.length} words`, verb);
  const word = positionals[0]!;
  if (!isOneOf(word, words)) throw new UsageError(`unknown ${what} ${shownWord(word)}${didYouMean(word, words)} (${verb} takes ${list})`, verb);
  return word;
}

async function names(verb: string, rest: string[], sh: Shell): Promise<number> {
  const kind = oneOf(verb, sh.parse(verb, rest).positionals, COMPLETE_KINDS, 'kind of name');
  const { supervisorNames } = await import('../completion/names.js');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), NAMES_WITHIN_MS)));
  const found = await Promise.race([supervisorNames(kind), late]).finally(() => clearTimeout(timer));
  // Too late: nothing, at once, and the process ends here (its connection may still hang).
  if (found === null) throw new CliExit(0);
  if (sh.json) sh.printJson(found);
  else for (const name of found) sh.out(name);
  return 0;
}

const completionVerbs: Verb = async (verb, rest, sh) => {
  if (verb === '__complete') return names(verb, rest, sh);
  const { positionals } = sh.parse(verb, rest);
  const shell = oneOf(verb, positionals, SHELLS, 'shell');
  if (sh.json) throw new UsageError('completion prints a shell script: --json does not go with it', verb);
  sh.write(await SCRIPTS[shell]());
  return 0;
};
export default completionVerbs;
