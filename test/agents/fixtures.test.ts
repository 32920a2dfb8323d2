// Every recorded transcript, through its own adapter and through the
// detecting adapter, folds to the totals its .expected.json states.

import { describe, expect, it } from 'vitest';
import { createAdapter, createDetectingAdapter, detectProtocol, foldSignals } from '../../src/agents/index.js';
import { assertTurnsPaired, feed, loadFixtures, SIGNAL_KINDS, type Fixture } from './helpers.js';

const fixtures = loadFixtures();

function check(f: Fixture, signals: ReturnType<typeof feed>): void {
  for (const s of signals) expect(SIGNAL_KINDS.has(s.kind)).toBe(true);
  assertTurnsPaired(signals);
  const fold = foldSignals(signals);
  const e = f.expected;
  expect(fold.alive).toBe(true);
  expect(fold.turns).toBe(e.turns);
  expect(fold.turns_started).toBe(e.turns);
  expect(fold.tokens.input).toBe(e.tokens.input);
  expect(fold.tokens.output).toBe(e.tokens.output);
  expect(fold.tokens.cached).toBe(e.tokens.cached);
  expect(fold.cost_usd).toBeCloseTo(e.cost_usd, 9);
  expect(fold.tools).toEqual(e.tools);
  expect(fold.last_text).toBe(e.final_text);
  expect(fold.ok).toBe(e.ok);
  if (e.blocked) expect(fold.blocked).toEqual(e.blocked);
  else expect(fold.blocked).toBeNull();
  // Exactly one alive, however many init lines a multi-turn session prints.
  expect(signals.filter((s) => s.kind === 'alive')).toHaveLength(1);
}

describe('fixtures', () => {
  it('has fixtures for every JSON protocol', () => {
    expect(new Set(fixtures.map((f) => f.protocol))).toEqual(new Set(['claude', 'codex', 'gemini', 'jsonl']));
  });

  for (const f of fixtures) {
    describe(`${f.protocol}/${f.name}`, () => {
      it('folds to the expected totals through its adapter', () => {
        check(f, feed(createAdapter(f.protocol), f.lines));
      });

      it('folds to the same totals through the detecting adapter', () => {
        const adapter = createDetectingAdapter();
        const signals = feed(adapter, f.lines);
        expect(adapter.protocol()).toBe(f.protocol);
        check(f, signals);
      });

      it('is detected from its first JSON line', () => {
        const first = f.lines.find((l) => l.startsWith('{'));
        expect(first && detectProtocol(first)).toBe(f.protocol);
      });

      it('starts with alive, before any turn', () => {
        const signals = feed(createAdapter(f.protocol), f.lines).filter((s) => s.kind !== 'output');
        expect(signals[0]?.kind).toBe('alive');
      });
    });
  }
});
