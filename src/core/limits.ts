// A run's ceilings, declared once. Each has one name in a run's limits, the
// run spec and the socket (RunLimits: `timeout_ms`), and keeps the name
// people write elsewhere: config.json's budgets (`timeout`, written before
// there was a run spec, and kept: users' files say it), a `--from` line, the
// SDK's RunSpec and the MCP run tool (`timeout`, as text or milliseconds),
// and the `orcr run` flag (`--timeout`). The schemas (config/schema.ts,
// config/run-spec.ts), the flags' fields (client/run-args.ts), RunLimits and
// the merge of scopes (core/budget.ts) are made from this table, so a new
// ceiling is one entry here, its meter, its flag and its words for people.

type CeilingUnit = 'count' | 'usd' | 'duration';

interface Ceiling {
  unit: CeilingUnit;
  /** Its key in config.json's budgets.run and a provider's budgets; null: not set there. */
  config: string | null;
  /** Its field in a `--from` line, the SDK's RunSpec and the MCP run tool. */
  line: string;
  /** Another spelling a line takes. */
  alias?: string;
  /** The `orcr run` flag, without its dashes. */
  flag: string;
  /** What a model or a program reads of it (the line schema's description). */
  doc?: string;
}

export const RUN_CEILINGS = {
  max_turns: { unit: 'count', config: 'max_turns', line: 'max_turns', flag: 'max-turns' },
  max_tokens: { unit: 'count', config: 'max_tokens', line: 'max_tokens', flag: 'max-tokens' },
  max_cost_usd: { unit: 'usd', config: 'max_cost_usd', line: 'max_cost_usd', alias: 'max_cost', flag: 'max-cost' },
  timeout_ms: {
    unit: 'duration',
    config: 'timeout',
    line: 'timeout',
    flag: 'timeout',
    doc: 'the longest the run may take: a duration (500ms, 30s, 10m, 1h, 1h30m) or milliseconds',
  },
  // Its config.json default is timings.idle_after, not a budget.
  idle_after_ms: {
    unit: 'duration',
    config: null,
    line: 'idle_after',
    flag: 'idle-after',
    doc: 'an idle run ends after this long: a duration or milliseconds',
  },
  turn_timeout_ms: {
    unit: 'duration',
    config: 'turn_timeout',
    line: 'turn_timeout',
    flag: 'turn-timeout',
    doc: 'a turn silent this long is a stall: a duration or milliseconds',
  },
} as const satisfies Record<string, Ceiling>;

type Ceilings = typeof RUN_CEILINGS;
export type CeilingName = keyof Ceilings;
export const CEILING_NAMES = Object.keys(RUN_CEILINGS) as CeilingName[];

/** The ceilings config.json's budgets set: config key → its name in RunLimits. */
export type ConfigCeilings = { [K in CeilingName as Ceilings[K]['config'] extends string ? Ceilings[K]['config'] : never]: K };
export type ConfigCeilingKey = keyof ConfigCeilings;
/** A ceiling's field in a line → its name in RunLimits. */
export type LineCeilings = { [K in CeilingName as Ceilings[K]['line']]: K };
export type CeilingFlag = Ceilings[CeilingName]['flag'];

/** Every ceiling as RunLimits holds it: a number, or null for none at this scope. */
export type CeilingValues = { [K in CeilingName]: number | null };

/** The ceilings whose RunLimits name is not their line's, by their line names (and aliases): `timeout` → `timeout_ms`. */
export function lineAliases(): Record<string, CeilingName> {
  const out: Record<string, CeilingName> = {};
  for (const k of CEILING_NAMES) {
    const c: Ceiling = RUN_CEILINGS[k];
    if (c.line !== k) out[c.line] = k;
    if (c.alias !== undefined) out[c.alias] = k;
  }
  return out;
}

/** Each flag → the ceiling it sets. */
export function flagCeilings(): Record<CeilingFlag, CeilingName> {
  return Object.fromEntries(CEILING_NAMES.map((k) => [RUN_CEILINGS[k].flag, k])) as Record<CeilingFlag, CeilingName>;
}

/**
 * A scope of config.json's budgets (budgets.run, a provider's) as the limits
 * it sets, under RunLimits' names: `timeout` is `timeout_ms`. Its stall
 * action goes with it, under the same name in both.
 */
export function limitsOf<S>(
  budgets: (Readonly<Partial<Record<ConfigCeilingKey, number | null>>> & { on_stall?: S }) | undefined,
): Partial<Record<CeilingName, number | null>> & { on_stall?: S } {
  if (budgets === undefined) return {};
  const out: Partial<Record<CeilingName, number | null>> & { on_stall?: S } = {};
  for (const k of CEILING_NAMES) {
    const key: string | null = RUN_CEILINGS[k].config;
    if (key !== null && Object.hasOwn(budgets, key)) out[k] = budgets[key as ConfigCeilingKey];
  }
  if (budgets.on_stall !== undefined) out.on_stall = budgets.on_stall;
  return out;
}
