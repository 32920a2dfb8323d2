// No input may make an adapter throw, and every signal has a known kind.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAdapter, createDetectingAdapter, detectProtocol, foldSignals } from '../../src/agents/index.js';
import { PROTOCOLS } from '../../src/agents/registry.js';
import type { Adapter, Signal } from '../../src/agents/signals.js';
import { guardStats } from '../../src/agents/util.js';
import { loadFixtures, SIGNAL_KINDS } from './helpers.js';

const fixtureLines = loadFixtures().flatMap((f) => f.lines);

const makers: Array<[string, () => Adapter]> = [
  ...PROTOCOLS.map((p): [string, () => Adapter] => [p, () => createAdapter(p)]),
  ['detecting', () => createDetectingAdapter()],
];

function wellFormed(signals: unknown): void {
  expect(Array.isArray(signals)).toBe(true);
  for (const s of signals as Signal[]) {
    expect(SIGNAL_KINDS.has(s.kind)).toBe(true);
    if (s.kind === 'usage') {
      for (const n of [s.input, s.output, s.cached]) expect(Number.isFinite(n) && n >= 0).toBe(true);
    }
  }
}

function feedAll(make: () => Adapter, lines: string[]): void {
  const a = make();
  const all: Signal[] = [];
  for (const l of lines) {
    const out = a.line(l);
    wellFormed(out);
    all.push(...out);
  }
  const tail = a.end?.() ?? [];
  wellFormed(tail);
  all.push(...tail);
  foldSignals(all);
  detectProtocol(lines[0] ?? '');
  // The adapters are total by themselves; the guard is only a backstop.
  expect(guardStats.caught).toBe(0);
}

/** A fixture line cut short, spliced into another, or with a stretch replaced. */
const mutatedLine = fc
  .tuple(
    fc.constantFrom(...fixtureLines),
    fc.constantFrom(...fixtureLines),
    fc.nat(),
    fc.nat(),
    fc.string(),
    fc.constantFrom('truncate', 'splice', 'replace', 'insert'),
  )
  .map(([a, b, i, k, s, how]) => {
    const at = i % (a.length + 1);
    const bt = k % (b.length + 1);
    switch (how) {
      case 'truncate':
        return a.slice(0, at);
      case 'splice':
        return a.slice(0, at) + b.slice(bt);
      case 'replace':
        return a.slice(0, at) + s + a.slice(Math.min(a.length, at + s.length));
      default:
        return a.slice(0, at) + s + a.slice(at);
    }
  });

/** JSON objects of the right types but the wrong shapes. */
const wrongShape = fc
  .tuple(
    fc.constantFrom(
      'system',
      'assistant',
      'user',
      'result',
      'rate_limit_event',
      'stream_event',
      'control_request',
      'thread.started',
      'turn.started',
      'turn.completed',
      'turn.failed',
      'item.started',
      'item.completed',
      'error',
      'request_user_input',
      'init',
      'message',
      'tool_use',
      'tool_result',
      'ready',
      'turn_start',
      'turn_end',
      'usage',
      'tool',
      'text',
      'blocked',
    ),
    fc.dictionary(
      fc.constantFrom(
        'message',
        'item',
        'usage',
        'stats',
        'content',
        'subtype',
        'error',
        'session_id',
        'role',
        'delta',
        'name',
        'input',
        'ok',
        'kind',
        'total_cost_usd',
        'cost_usd',
        'rate_limit_info',
        'status',
        'text',
        'tool_name',
      ),
      fc.jsonValue(),
    ),
  )
  .map(([type, rest]) => JSON.stringify({ ...rest, type }));

const randomBytesAsUtf8 = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('utf8'));

const anyLine = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), randomBytesAsUtf8, mutatedLine, wrongShape, fc.constantFrom(...fixtureLines));

describe('fuzz: adapters never throw', () => {
  for (const [name, make] of makers) {
    it(`${name}: random lines`, () => {
      fc.assert(
        fc.property(fc.array(anyLine, { maxLength: 40 }), (lines) => {
          feedAll(make, lines);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('survives a 10 MB line, JSON and not', () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const bigJson = JSON.stringify({ type: 'assistant', message: { id: 'm', content: [{ type: 'text', text: big }] }, session_id: 's' });
    const deep = '['.repeat(1_000_000);
    const deepObj = '{"type":"result","usage":' + '{"a":'.repeat(200_000) + '1' + '}'.repeat(200_000) + '}';
    for (const [, make] of makers) feedAll(make, [big, bigJson, bigJson.slice(0, -5), deep, deepObj, '\uFFFD\uFFFD{"type"', '\u0000\u0001\u0002']);
  });

  it('survives hostile JSON values', () => {
    const hostile = [
      '{"type":"result","usage":{"input_tokens":1e400,"output_tokens":-5,"cache_read_input_tokens":"NaN"},"total_cost_usd":"abc"}',
      '{"type":"turn.completed","usage":{"input_tokens":-1e308,"cached_input_tokens":1e308}}',
      '{"type":"usage","input_tokens":"12","output_tokens":{},"cost_usd":Infinity}',
      '{"__proto__":{"type":"ready"},"type":"ready"}',
      '{"type":"assistant","message":{"content":[null,1,"s",[],{"type":"tool_use"},{"type":"text","text":5}]},"session_id":"s"}',
      '{"type":"item.completed","item":{"type":"mcp_tool_call"}}',
    ];
    for (const [, make] of makers) feedAll(make, hostile);
  });
});
