// The loop detector: is a run stuck repeating itself?
//
// Pure and immutable: a state goes in with one observed turn, a new state and
// an effect come out. The caller (the run reducer in src/server) acts on the
// effect: on `warn` it journals `loop_detected` and, when the agent accepts
// input, sends `message` to it once; on `terminate` it ends the run with
// exit reason `loop`.
//
// Semantics follow open-multi-agent's LoopDetector, with these decisions:
//
// - Two independent streaks per run, each over a sliding window of the last
//   `window` entries: tool-call signatures and normalized text.
// - Tool signature: every call's name plus its input with object keys sorted
//   recursively; the calls of one turn are sorted, so their order inside a turn
//   does not matter. A turn without tool calls pushes nothing to the tool
//   buffer, so it neither extends nor breaks the tool streak (an agent that
//   alternates "same tool call" and "text only" turns is still caught).
// - Text: trimmed, whitespace runs collapsed to one space, case-sensitive.
//   Empty text pushes nothing, so it neither extends nor breaks the text streak.
// - `max_repetitions` identical entries at the end of a buffer is a detection,
//   judged only for a buffer that received an entry this turn (an old streak
//   is not detected again by a turn that adds nothing to it). When both
//   streaks trip on the same turn, the tool streak is reported (`by: 'tool'`).
// - `window` is raised to at least `max_repetitions`, otherwise detection
//   could never trigger. `max_repetitions` is at least 2: a loop needs two
//   identical entries. Non-finite config values fall back to the defaults.
// - Action `warn`: the first detection flags the run (`warned`) and yields a
//   `warn` effect; a detection on the very next judged turn while warned yields
//   `terminate`; a turn that is judged and not detected clears the warning,
//   so a later loop gets a fresh warning. A turn that adds nothing to either
//   buffer (no tool calls, empty text) is no evidence either way: it leaves
//   the warning as it is.
// - Action `terminate`: the first detection yields `terminate`.
// - Action `off`: nothing is recorded and nothing is ever detected.
// - Never throws, whatever the tool input holds: cycles, functions, symbols,
//   bigints, undefined, throwing getters and proxies are stringified safely.

/** What a detected loop gets. */
export const LOOP_ACTIONS = ['warn', 'terminate', 'off'] as const;
export type LoopAction = (typeof LOOP_ACTIONS)[number];

export interface LoopConfig {
  action: LoopAction;
  /** Identical trailing entries that make a loop. Default 3, at least 2. */
  max_repetitions: number;
  /** Entries kept per buffer. Default 4; raised to at least max_repetitions. */
  window: number;
}

export const DEFAULT_LOOP: LoopConfig = Object.freeze({ action: 'warn', max_repetitions: 3, window: 4 });

/** The detector config for a run whose limits carry only the action. */
export function loopConfigFor(action: LoopAction): LoopConfig {
  return { ...DEFAULT_LOOP, action };
}

/** The config as the detector applies it: integers, reps ≥ 2, window ≥ reps. */
export function normalizeLoopConfig(cfg: LoopConfig): LoopConfig {
  const action: LoopAction = cfg.action === 'warn' || cfg.action === 'terminate' || cfg.action === 'off' ? cfg.action : DEFAULT_LOOP.action;
  const reps = Number.isFinite(cfg.max_repetitions) ? Math.max(2, Math.floor(cfg.max_repetitions)) : DEFAULT_LOOP.max_repetitions;
  const window = Number.isFinite(cfg.window) ? Math.floor(cfg.window) : DEFAULT_LOOP.window;
  return { action, max_repetitions: reps, window: Math.max(window, reps) };
}

export interface LoopState {
  /** Tool signatures of the last turns that made tool calls, oldest first. */
  tools: string[];
  /** Normalized non-empty texts of the last turns, oldest first. */
  texts: string[];
  /** The last observed turn was a detection. */
  detected: boolean;
  /** A warning was issued and no non-detected turn has been judged since. */
  warned: boolean;
  /** Length of the longer trailing streak of the two buffers, for display. */
  repetitions: number;
  /** Detections over the run's life. */
  detections: number;
}

export function initialLoopState(): LoopState {
  return { tools: [], texts: [], detected: false, warned: false, repetitions: 0, detections: 0 };
}

export interface TurnRecord {
  tools: { name: string; input: unknown }[];
  text: string | null;
}

export type LoopEffect = { kind: 'none' } | { kind: 'warn'; message: string; by: 'tool' | 'text' } | { kind: 'terminate'; by: 'tool' | 'text' };

const NONE: LoopEffect = Object.freeze({ kind: 'none' });

const LOOP_WARNING: Readonly<Record<'tool' | 'text', string>> = Object.freeze({
  tool:
    'WARNING from the supervisor: you appear to be repeating the same tool calls with identical arguments. ' +
    'You seem to be stuck in a loop. Try a different approach, use different parameters, ' +
    'or explain what you are trying to accomplish. If this repeats, the run will be stopped.',
  text:
    'WARNING from the supervisor: you appear to be producing the same response repeatedly. ' +
    'You seem to be stuck in a loop. Try a different approach or provide new information. ' +
    'If this repeats, the run will be stopped.',
});

export function observeTurn(state: LoopState, turn: TurnRecord, cfg: LoopConfig): { state: LoopState; effect: LoopEffect } {
  const c = normalizeLoopConfig(cfg);
  if (c.action === 'off') {
    return { state: { ...state, detected: false, warned: false }, effect: NONE };
  }

  const calls = Array.isArray(turn?.tools) ? turn.tools : [];
  const rawText = typeof turn?.text === 'string' ? turn.text : '';
  const text = normalizeText(rawText);

  let tools = state.tools;
  let texts = state.texts;
  let toolHit = false;
  let textHit = false;
  if (calls.length > 0) {
    tools = pushWindow(tools, toolSignature(calls), c.window);
    toolHit = trailingStreak(tools) >= c.max_repetitions;
  }
  if (text.length > 0) {
    texts = pushWindow(texts, text, c.window);
    textHit = trailingStreak(texts) >= c.max_repetitions;
  }
  const judged = calls.length > 0 || text.length > 0;
  const repetitions = Math.max(trailingStreak(tools), trailingStreak(texts));

  if (!toolHit && !textHit) {
    const next: LoopState = {
      tools,
      texts,
      detected: false,
      // A judged turn without detection is a recovery; an empty turn is no evidence.
      warned: judged ? false : state.warned,
      repetitions,
      detections: state.detections,
    };
    return { state: next, effect: NONE };
  }

  const by: 'tool' | 'text' = toolHit ? 'tool' : 'text';
  const base = { tools, texts, detected: true, repetitions, detections: state.detections + 1 };
  if (c.action === 'terminate' || state.warned) {
    return { state: { ...base, warned: state.warned }, effect: { kind: 'terminate', by } };
  }
  return { state: { ...base, warned: true }, effect: { kind: 'warn', message: LOOP_WARNING[by], by } };
}

function pushWindow(buffer: readonly string[], entry: string, window: number): string[] {
  const next = [...buffer, entry];
  return next.length > window ? next.slice(next.length - window) : next;
}

/** Identical entries at the end of the buffer (0 for an empty buffer). */
function trailingStreak(buffer: readonly string[]): number {
  const n = buffer.length;
  if (n === 0) return 0;
  const last = buffer[n - 1];
  let count = 0;
  for (let i = n - 1; i >= 0 && buffer[i] === last; i--) count++;
  return count;
}

/** Trimmed, whitespace runs collapsed to one space; case is kept. */
export function normalizeText(text: string): string {
  if (typeof text !== 'string') return '';
  return text.trim().replace(/\s+/g, ' ');
}

/**
 * A deterministic signature for one turn's tool calls: each call as
 * `[name, input]` with object keys sorted recursively, the calls sorted by
 * their own serialization (code-unit order, not locale order).
 */
export function toolSignature(calls: { name: string; input: unknown }[]): string {
  const list: unknown[] = Array.isArray(calls) ? calls : [];
  const items: string[] = [];
  for (let i = 0; i < list.length; i++) {
    let call: unknown;
    try {
      call = list[i];
    } catch {
      call = undefined;
    }
    const name = safeGet(call, 'name');
    const input = safeGet(call, 'input');
    items.push(stableStringify([typeof name === 'string' ? name : canonical(name), input]));
  }
  items.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `[${items.join(',')}]`;
}

/** JSON of `value` with object keys sorted recursively; never throws. */
function stableStringify(value: unknown): string {
  try {
    return JSON.stringify(canonical(value)) ?? 'null';
  } catch {
    return '"[unserializable]"';
  }
}

const MAX_DEPTH = 64;

function safeGet(obj: unknown, key: string): unknown {
  if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return undefined;
  try {
    return (obj as Record<string, unknown>)[key];
  } catch {
    return '[thrown]';
  }
}

/**
 * A plain-JSON copy of `value` that JSON.stringify can always print and prints
 * the same whatever the key order: strings, finite numbers, booleans, null,
 * arrays and null-prototype objects whose keys were inserted sorted. Anything
 * JSON cannot carry becomes a tagged string.
 */
function canonical(value: unknown, ancestors: object[] = [], depth = 0): unknown {
  try {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        return Number.isFinite(value) ? value : `[number ${String(value)}]`;
      case 'bigint':
        return `[bigint ${value.toString()}]`;
      case 'undefined':
        return '[undefined]';
      case 'symbol':
        return `[symbol ${String(value.description ?? '')}]`;
      case 'function': {
        const name = (value as { name?: unknown }).name;
        return `[function ${typeof name === 'string' ? name : ''}]`;
      }
      case 'object':
        break; // null, arrays and objects: below
    }
    if (value === null) return null;
    const obj = value;
    if (ancestors.includes(obj)) return '[circular]';
    if (depth >= MAX_DEPTH) return '[too deep]';
    const path = [...ancestors, obj];

    if (Array.isArray(obj)) {
      const out: unknown[] = [];
      for (let i = 0; i < obj.length; i++) out.push(canonical(safeGet(obj, String(i)), path, depth + 1));
      return out;
    }
    if (obj instanceof Date) {
      const t = obj.getTime();
      return Number.isNaN(t) ? '[date invalid]' : `[date ${obj.toISOString()}]`;
    }
    if (obj instanceof Map) {
      const entries = [...obj.entries()].map(([k, v]) => [canonical(k, path, depth + 1), canonical(v, path, depth + 1)]);
      return { '[map]': sortByJson(entries) };
    }
    if (obj instanceof Set) {
      const items = [...obj.values()].map((v) => canonical(v, path, depth + 1));
      return { '[set]': sortByJson(items) };
    }
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(obj).sort()) {
      out[key] = canonical(safeGet(obj, key), path, depth + 1);
    }
    return out;
  } catch {
    return '[unserializable]';
  }
}

function sortByJson(items: unknown[]): unknown[] {
  return items
    .map((item) => ({ item, key: JSON.stringify(item) ?? 'null' }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((x) => x.item);
}
