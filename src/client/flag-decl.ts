// A flag as a verb declares it: what node:util's parseArgs reads (type,
// short, multiple), and what its value is, so that a shell completion can
// offer the right thing after it. parseArgs ignores the `value` key, so a
// declaration is handed to it as it is: the parser and the completion read
// the same list and cannot drift apart.

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
}

export type FlagDecls = Readonly<Record<string, FlagDecl>>;
