// The runs filter's little language. Plain words match anywhere (name, uuid,
// provider, workload, status, reasons), as they always did; `key:value` and
// `key>number` terms narrow by one field; `-` before a term negates it; terms
// combine with AND. A term that does not parse is said in words (a number
// field given no number, a field that does not exist, a status, reason or
// protocol that no run can have), and a filter with such a term is not
// applied: the list keeps the filter it had. Pure: no store, no I/O.

import { BLOCKED_KINDS, EXIT_REASONS, RUN_STATUSES } from '../../core/types.js';
import { PROTOCOLS } from '../../agents/registry.js';
import type { PublicRun } from '../../protocol/views.js';

export interface Filter {
  /** True when the run is to be listed. */
  test(r: PublicRun): boolean;
  /** Terms that did not parse, in words ("cost>abc: cost takes a number"): such a filter is not to be applied. */
  problems: string[];
  /** Nothing to filter by. */
  empty: boolean;
}

type Pred = (r: PublicRun) => boolean;

const TEXT_KEYS: Record<string, (r: PublicRun) => string[]> = {
  status: (r) => [r.status],
  provider: (r) => [r.provider],
  workload: (r) => [r.workload],
  name: (r) => [r.name],
  reason: (r) => [r.exit_reason ?? '', r.blocked_kind ?? ''],
  protocol: (r) => [r.protocol ?? ''],
};

const NUMBER_KEYS: Record<string, (r: PublicRun) => number> = {
  cost: (r) => r.cost_usd,
  tokens: (r) => r.tokens.input + r.tokens.output,
  turns: (r) => r.turns,
};

/** Short forms people type: `s:`, `p:` (or `a:` as in `orcr run -a`), `w:`, `n:`. */
const ALIASES: Record<string, string> = { s: 'status', p: 'provider', a: 'provider', w: 'workload', n: 'name' };

const KEYS_SAID = 'status, provider, workload, name, reason, protocol, cost, tokens, turns';

/** The fields whose values are a fixed list: a value none of them matches can only be a mistake. */
const VOCABULARY: Record<string, { word: string; values: readonly string[] }> = {
  status: { word: 'status', values: RUN_STATUSES },
  reason: { word: 'reason', values: [...EXIT_REASONS, ...BLOCKED_KINDS] },
  protocol: { word: 'protocol', values: PROTOCOLS },
};

/** `review-*` → a whole-value, case-insensitive match; `*` any run of characters, `?` one. */
function globTest(pattern: string): (v: string) => boolean {
  if (!/[*?]/.test(pattern)) return (v) => v.toLowerCase() === pattern;
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  );
  return (v) => re.test(v);
}

function term(raw: string): { pred: Pred } | { problem: string } {
  const negate = raw.length > 1 && raw.startsWith('-');
  const t = negate ? raw.slice(1) : raw;
  const wrap = (p: Pred): { pred: Pred } => ({ pred: negate ? (r) => !p(r) : p });
  const num = /^([a-z_]+)(>=|<=|>|<|=)(.*)$/.exec(t);
  if (num && (NUMBER_KEYS[num[1]!] || !t.includes(':'))) {
    const get = NUMBER_KEYS[num[1]!];
    if (!get) return { problem: `${raw}: ${num[1]} is not a number field (${Object.keys(NUMBER_KEYS).join(', ')} are)` };
    const n = Number(num[3]);
    if (num[3] === '' || !Number.isFinite(n)) return { problem: `${raw}: ${num[1]} takes a number` };
    const op = num[2]!;
    return wrap((r) => {
      const v = get(r);
      return op === '>' ? v > n : op === '>=' ? v >= n : op === '<' ? v < n : op === '<=' ? v <= n : v === n;
    });
  }
  const kv = /^([a-z_]+):(.*)$/.exec(t);
  if (kv) {
    const key = ALIASES[kv[1]!] ?? kv[1]!;
    const get = TEXT_KEYS[key];
    if (!get) return { problem: `${raw}: no field ${kv[1]} (${KEYS_SAID})` };
    if (kv[2] === '') return { problem: `${raw}: ${key} needs a value` };
    // `status:queued,working`: any of them.
    const values = kv[2]!.split(',').filter(Boolean);
    const tests = values.map(globTest);
    const vocab = VOCABULARY[key];
    if (vocab) {
      const unknown = values.filter((v, i) => !vocab.values.some((known) => tests[i]!(known)));
      if (unknown.length > 0) return { problem: `${raw}: no ${vocab.word} ${unknown.join(', ')} (${vocab.values.join(', ')})` };
    }
    return wrap((r) => get(r).some((v) => tests.some((test) => test(v))));
  }
  return wrap((r) => haystack(r).includes(t));
}

function haystack(r: PublicRun): string {
  return [r.name, r.uuid, r.provider, r.workload, r.status, r.exit_reason ?? '', r.blocked_kind ?? '', r.protocol ?? ''].join(' ').toLowerCase();
}

export function parseFilter(text: string): Filter {
  const preds: Pred[] = [];
  const problems: string[] = [];
  for (const raw of text.toLowerCase().split(/\s+/).filter(Boolean)) {
    const t = term(raw);
    if ('pred' in t) preds.push(t.pred);
    else problems.push(t.problem);
  }
  return { test: (r) => preds.every((p) => p(r)), problems, empty: preds.length === 0 };
}
