// A flag as a verb declares it: what node:util's parseArgs reads (type,
// short, multiple), and what its value is, so that a shell completion can
// offer the right thing after it and a usage line can name it. parseArgs
// ignores the `value` and `meta` keys, so a declaration is handed to it as it
// is: the parser, the completion and the help read the same list and cannot
// drift apart.

/**
 * What a flag's value (or an operand) is: free text, a file, a folder, a run
 * or a loop of the running supervisor, a verb of orcr's, an agent protocol's
 * name (the completion reads them from src/agents' registry, which every
 * command need not load), or one of a few words.
 */
export type ValueKind = 'text' | 'file' | 'dir' | 'run' | 'loop' | 'verb' | 'protocol' | readonly string[];

export interface FlagDecl {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  /** For a string flag: what its value is (default text). */
  readonly value?: ValueKind;
  /** What its help calls its value (`--since SEQ`), where what it is does not say it: a text's is the flag's name in capitals. */
  readonly meta?: string;
}

export type FlagDecls = Readonly<Record<string, FlagDecl>>;
