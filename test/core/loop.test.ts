import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_LOOP,
  initialLoopState,
  loopConfigFor,
  normalizeLoopConfig,
  normalizeText,
  observeTurn,
  toolSignature,
  type LoopConfig,
  type LoopEffect,
  type LoopState,
  type TurnRecord,
} from '../../src/core/loop.js';

const WARN: LoopConfig = DEFAULT_LOOP;
const TERMINATE: LoopConfig = loopConfigFor('terminate');
const OFF: LoopConfig = loopConfigFor('off');

const call = (name: string, input: unknown = {}) => ({ name, input });
const tool = (name: string, input: unknown = {}): TurnRecord => ({ tools: [call(name, input)], text: null });
const text = (t: string | null): TurnRecord => ({ tools: [], text: t });

/** Feed turns in order; return every effect and the final state. */
function run(turns: TurnRecord[], cfg: LoopConfig = WARN, start: LoopState = initialLoopState()) {
  let state = start;
  const effects: LoopEffect['kind'][] = [];
  const full: LoopEffect[] = [];
  for (const t of turns) {
    const r = observeTurn(state, t, cfg);
    state = r.state;
    effects.push(r.effect.kind);
    full.push(r.effect);
  }
  return { state, effects, full };
}

describe('toolSignature', () => {
  it('key order inside tool input does not matter, at any depth', () => {
    const a = toolSignature([call('edit', { path: 'a.ts', opts: { x: 1, y: [{ b: 2, a: 1 }] } })]);
    const b = toolSignature([call('edit', { opts: { y: [{ a: 1, b: 2 }], x: 1 }, path: 'a.ts' })]);
    expect(a).toBe(b);
  });

  it('call order within a turn does not matter', () => {
    const a = toolSignature([call('read', { path: 'a' }), call('grep', { q: 'x' }), call('read', { path: 'b' })]);
    const b = toolSignature([call('read', { path: 'b' }), call('read', { path: 'a' }), call('grep', { q: 'x' })]);
    expect(a).toBe(b);
  });

  it('different arguments or array order give different signatures', () => {
    expect(toolSignature([call('read', { path: 'a' })])).not.toBe(toolSignature([call('read', { path: 'b' })]));
    expect(toolSignature([call('t', { l: [1, 2] })])).not.toBe(toolSignature([call('t', { l: [2, 1] })]));
  });

  it('is invariant under shuffled keys and calls (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), fc.dictionary(fc.string(), fc.jsonValue())), { maxLength: 5 }), fc.integer(), (calls, seed) => {
        const reversed = calls.map(([n, input]) => call(n, Object.fromEntries(Object.entries(input).reverse())));
        const rotated = [...reversed.slice(Math.abs(seed) % (reversed.length || 1)), ...reversed.slice(0, Math.abs(seed) % (reversed.length || 1))];
        expect(toolSignature(rotated)).toBe(toolSignature(calls.map(([n, input]) => call(n, input))));
      }),
    );
  });
});

describe('normalizeText', () => {
  it('trims and collapses whitespace runs, keeps case', () => {
    expect(normalizeText('  Hello \n\t world  ')).toBe('Hello world');
    expect(normalizeText('Hello')).not.toBe(normalizeText('hello'));
    expect(normalizeText(' \n ')).toBe('');
  });
});

describe('observeTurn', () => {
  it('three identical tool turns are detected under the defaults; two are not', () => {
    const { effects, state } = run([tool('read', { p: 1 }), tool('read', { p: 1 }), tool('read', { p: 1 })]);
    expect(effects).toEqual(['none', 'none', 'warn']);
    expect(state).toMatchObject({ detected: true, warned: true, repetitions: 3, detections: 1 });
  });

  it('key order inside tool input does not matter for detection', () => {
    const { full } = run([tool('edit', { a: 1, b: 2 }), tool('edit', { b: 2, a: 1 }), tool('edit', { a: 1, b: 2 })]);
    expect(full[2]).toMatchObject({ kind: 'warn', by: 'tool' });
  });

  it('call order within a turn does not matter for detection', () => {
    const t1: TurnRecord = { tools: [call('a', { x: 1 }), call('b')], text: null };
    const t2: TurnRecord = { tools: [call('b'), call('a', { x: 1 })], text: null };
    expect(run([t1, t2, t1]).effects).toEqual(['none', 'none', 'warn']);
  });

  it('whitespace-only differences repeat', () => {
    const { full } = run([text('I am stuck.'), text('  I am\n stuck. '), text('I  am\tstuck.')]);
    expect(full[2]).toMatchObject({ kind: 'warn', by: 'text' });
  });

  it('case differences do not repeat', () => {
    expect(run([text('I am stuck.'), text('I am Stuck.'), text('I am stuck.')]).effects).toEqual(['none', 'none', 'none']);
  });

  it('empty text is ignored and does not break a text streak', () => {
    const { effects } = run([text('same'), text(''), text('   '), text(null), text('same'), text('same')]);
    expect(effects).toEqual(['none', 'none', 'none', 'none', 'none', 'warn']);
  });

  it('a turn without tool calls pushes nothing and does not break the tool streak', () => {
    const t = tool('ls');
    const { effects, state } = run([t, text('thinking'), t, text('more thinking'), t]);
    expect(effects).toEqual(['none', 'none', 'none', 'none', 'warn']);
    expect(state.tools).toHaveLength(3);
  });

  it('a different entry breaks the streak', () => {
    expect(run([tool('a'), tool('a'), tool('b'), tool('a')]).effects).toEqual(['none', 'none', 'none', 'none']);
  });

  it('a window below the threshold is raised to max_repetitions', () => {
    const cfg: LoopConfig = { action: 'warn', max_repetitions: 3, window: 1 };
    expect(normalizeLoopConfig(cfg).window).toBe(3);
    const { effects, state } = run([tool('a'), tool('a'), tool('a')], cfg);
    expect(effects).toEqual(['none', 'none', 'warn']);
    expect(state.tools).toHaveLength(3);
  });

  it('the buffers never hold more than the window', () => {
    const cfg: LoopConfig = { action: 'warn', max_repetitions: 3, window: 5 };
    const { state } = run(
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => tool(n)),
      cfg,
    );
    expect(state.tools).toHaveLength(5);
  });

  it('max_repetitions is honoured', () => {
    const cfg: LoopConfig = { action: 'warn', max_repetitions: 5, window: 4 };
    expect(
      run(
        Array.from({ length: 5 }, () => tool('a')),
        cfg,
      ).effects,
    ).toEqual(['none', 'none', 'none', 'none', 'warn']);
  });

  it('warn carries the message once; a non-repeating turn clears the warning; a later loop warns again', () => {
    const a = tool('a');
    const { effects, full, state } = run([a, a, a, tool('b'), a, a, a]);
    expect(effects).toEqual(['none', 'none', 'warn', 'none', 'none', 'none', 'warn']);
    const w = full[2]!;
    expect(w.kind === 'warn' && w.message.length > 0).toBe(true);
    expect(state).toMatchObject({ warned: true, detections: 2 });
  });

  it('the recovery turn clears the warned flag', () => {
    const a = tool('a');
    const { state } = run([a, a, a, tool('b')]);
    expect(state).toMatchObject({ warned: false, detected: false, repetitions: 1 });
  });

  it('two consecutive detections under warn terminate', () => {
    const a = tool('a');
    const { effects, full } = run([a, a, a, a]);
    expect(effects).toEqual(['none', 'none', 'warn', 'terminate']);
    expect(full[3]).toEqual({ kind: 'terminate', by: 'tool' });
  });

  it('a turn that adds nothing to either buffer keeps the warning (no evidence either way)', () => {
    const a = tool('a');
    const { effects } = run([a, a, a, text(''), a]);
    expect(effects).toEqual(['none', 'none', 'warn', 'none', 'terminate']);
  });

  it('a detection by text after a tool warning still terminates', () => {
    const t: TurnRecord = { tools: [call('a')], text: 'same' };
    const { effects, full } = run([t, t, t, text('same')]);
    expect(effects).toEqual(['none', 'none', 'warn', 'terminate']);
    expect(full[3]).toMatchObject({ by: 'text' });
  });

  it('when both streaks trip on one turn, the tool streak is reported', () => {
    const t: TurnRecord = { tools: [call('a')], text: 'same' };
    expect(run([t, t, t]).full[2]).toMatchObject({ kind: 'warn', by: 'tool' });
  });

  it('terminate ends at the first detection', () => {
    const a = tool('a');
    expect(run([a, a, a], TERMINATE).effects).toEqual(['none', 'none', 'terminate']);
    expect(run([text('x'), text('x'), text('x')], TERMINATE).full[2]).toEqual({ kind: 'terminate', by: 'text' });
  });

  it('off never fires', () => {
    const a = tool('a');
    const { effects, state } = run([a, a, a, a, a, text('x'), text('x'), text('x'), text('x')], OFF);
    expect(effects.every((e) => e === 'none')).toBe(true);
    expect(state).toMatchObject({ detected: false, warned: false, detections: 0 });
  });

  it('does not mutate the state it is given', () => {
    const a = tool('a');
    let s = initialLoopState();
    for (let i = 0; i < 4; i++) {
      const frozen = Object.freeze({ ...s, tools: Object.freeze([...s.tools]), texts: Object.freeze([...s.texts]) });
      const before = JSON.stringify(frozen);
      s = observeTurn(frozen as LoopState, a, WARN).state;
      expect(JSON.stringify(frozen)).toBe(before);
    }
    expect(s).toMatchObject({ detections: 2, tools: Array(4).fill(toolSignature(a.tools)) });
  });
});

describe('weird input', () => {
  it('cyclic, function, bigint, symbol, undefined and throwing inputs do not throw', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const arr: unknown[] = [1];
    arr.push(arr);
    const throwing = {
      get boom(): never {
        throw new Error('getter');
      },
    };
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('ownKeys');
        },
      },
    );
    let deep: unknown = 0;
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const inputs: unknown[] = [
      cyclic,
      arr,
      () => 1,
      10n,
      Symbol('s'),
      undefined,
      NaN,
      throwing,
      proxy,
      deep,
      new Map<unknown, unknown>([[{ k: 1 }, cyclic]]),
      new Set([1, 2n]),
      new Date(NaN),
      Object.create(null),
      JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
    ];
    for (const input of inputs) {
      expect(() => toolSignature([call('x', input)])).not.toThrow();
      expect(typeof toolSignature([call('x', input)])).toBe('string');
    }
    // The same cyclic input repeats like any other.
    expect(run([tool('x', cyclic), tool('x', cyclic), tool('x', cyclic)]).effects[2]).toBe('warn');
    // Shared (non-cyclic) references are not mistaken for cycles.
    const shared = { v: 1 };
    expect(toolSignature([call('x', { a: shared, b: shared })])).toBe(toolSignature([call('x', { a: { v: 1 }, b: { v: 1 } })]));
    // Bigints are distinguished from numbers with the same digits.
    expect(toolSignature([call('x', 1n)])).not.toBe(toolSignature([call('x', 1)]));
  });

  it('fuzz: toolSignature is total and deterministic on anything', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.anything(),
            input: fc.anything({
              withBigInt: true,
              withMap: true,
              withSet: true,
              withDate: true,
              withNullPrototype: true,
              withBoxedValues: true,
              withSparseArray: true,
              withTypedArray: true,
              withObjectString: true,
            }),
          }),
          { maxLength: 4 },
        ),
        (calls) => {
          const sig = toolSignature(calls as { name: string; input: unknown }[]);
          expect(typeof sig).toBe('string');
          expect(toolSignature(calls as { name: string; input: unknown }[])).toBe(sig);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('fuzz: observeTurn never throws on malformed turns and configs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.anything({ withBigInt: true, withMap: true, withSet: true, withNullPrototype: true }), {
          maxLength: 8,
        }),
        fc.record({
          action: fc.constantFrom('warn', 'terminate', 'off', 'bogus'),
          max_repetitions: fc.oneof(fc.integer({ min: -5, max: 10 }), fc.double()),
          window: fc.oneof(fc.integer({ min: -5, max: 10 }), fc.double()),
        }),
        (turns, cfg) => {
          let state = initialLoopState();
          for (const t of turns) {
            const r = observeTurn(state, t as TurnRecord, cfg as LoopConfig);
            state = r.state;
            expect(['none', 'warn', 'terminate']).toContain(r.effect.kind);
            const w = normalizeLoopConfig(cfg as LoopConfig).window;
            expect(state.tools.length).toBeLessThanOrEqual(w);
            expect(state.texts.length).toBeLessThanOrEqual(w);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
