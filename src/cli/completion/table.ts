// What a completion script knows, from the verbs' grammar: one node per
// place on a command line (orcr; orcr loop; orcr loop run; orcr loop run
// start…), each with the words that may follow it, its flags (with what
// their values are) and its operands. The bash, zsh and fish generators
// write the same table in their shell's words.

import { PROTOCOLS } from '../../agents/registry.js';
import { shownVerbs, spec, type Command, type Operands, type ValueKind } from '../grammar.js';

interface FlagSpelling {
  /** `--name` and, when it has one, `-n`. */
  readonly spellings: readonly string[];
  /** What its value is; null for a flag that takes none. */
  readonly value: ValueKind | null;
}

export interface Node {
  /** The words that lead here, space-separated ('' for orcr itself, 'loop run' for orcr loop run). */
  readonly path: string;
  /** Words that may come next (a verb, a subcommand), each with a line saying what it is. */
  readonly next: readonly { word: string; summary: string }[];
  readonly flags: readonly FlagSpelling[];
  readonly operands: Operands | null;
  /** `-- COMMAND ARGS...` follows. */
  readonly command: boolean;
}

const HELP: FlagSpelling = { spellings: ['--help', '-h'], value: null };
const JSON_FLAG: FlagSpelling = { spellings: ['--json'], value: null };

function ownFlags(c: Command): FlagSpelling[] {
  return Object.entries(c.flags ?? {})
    .filter(([name]) => name !== 'json')
    .map(([name, f]) => ({ spellings: f.short ? [`--${name}`, `-${f.short}`] : [`--${name}`], value: f.type === 'string' ? (f.value ?? 'text') : null }));
}

/** A command's node and those below it; a command's own flags count under its subcommands too (they are parsed wherever they stand). */
function nodesUnder(path: string, c: Command, json: boolean, inherited: FlagSpelling[]): Node[] {
  const carried = [...inherited, ...ownFlags(c)];
  const subs = Object.entries(c.subcommands ?? {});
  const node: Node = {
    path,
    next: subs.map(([word]) => ({ word, summary: '' })),
    flags: [...carried, ...(json ? [JSON_FLAG] : []), HELP],
    operands: c.operands ?? null,
    command: c.command === true,
  };
  return [node, ...subs.flatMap(([word, s]) => nodesUnder(`${path} ${word}`, s, json, carried))];
}

/** Every place on an orcr command line a completion script tells apart, orcr itself first. */
export function completionTable(): Node[] {
  const verbs = shownVerbs();
  const root: Node = {
    path: '',
    next: verbs.map((v) => ({ word: v, summary: spec(v).summary })),
    flags: [HELP, { spellings: ['--version'], value: null }],
    operands: null,
    command: false,
  };
  return [root, ...verbs.flatMap((v) => nodesUnder(v, spec(v), spec(v).json, []))];
}

/** The words a value of this kind may be, when they are known now (a verb's, a protocol's, a few choices). */
export function fixedWords(kind: ValueKind): readonly string[] | null {
  if (kind === 'verb') return shownVerbs();
  if (kind === 'protocol') return PROTOCOLS;
  return typeof kind === 'string' ? null : kind;
}
