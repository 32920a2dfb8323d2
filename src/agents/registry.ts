// Protocol name → a fresh adapter. Kept apart from index.ts so the detecting
// adapter can use it without an import cycle.

import type { Protocol } from '../core/types.js';
import type { Adapter, AdapterOptions, ExtendedAdapter, PlainAdapterOptions } from './signals.js';
import { createClaudeAdapter } from './claude/index.js';
import { createCodexAdapter } from './codex.js';
import { createGeminiAdapter } from './gemini.js';
import { createJsonlAdapter } from './jsonl.js';
import { createPlainAdapter } from './plain.js';

/**
 * With `{ modelTurns: true }` the adapter also emits `model_turn` boundaries
 * (claude, codex, gemini; orcr's jsonl and plain have none: their turns are
 * the unit). `now` is the clock for limits stated as a time of day.
 */
export function createAdapter(protocol: Protocol, options?: PlainAdapterOptions): Adapter;
export function createAdapter(protocol: Protocol, options: AdapterOptions): ExtendedAdapter;
export function createAdapter(protocol: Protocol, options?: AdapterOptions): Adapter | ExtendedAdapter {
  const o = options ?? {};
  switch (protocol) {
    case 'claude':
      return createClaudeAdapter(o);
    case 'codex':
      return createCodexAdapter(o);
    case 'gemini':
      return createGeminiAdapter(o);
    case 'jsonl':
      return createJsonlAdapter();
    case 'plain':
      return createPlainAdapter();
    default:
      // An unknown name (e.g. from an old journal row) degrades to plain text.
      return createPlainAdapter();
  }
}
