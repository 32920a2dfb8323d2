// Protocol name → a fresh adapter. Kept apart from index.ts so the detecting
// adapter can use it without an import cycle.

import type { Protocol } from '../core/types.js';
import type { Adapter } from './signals.js';
import { createClaudeAdapter } from './claude.js';
import { createCodexAdapter } from './codex.js';
import { createGeminiAdapter } from './gemini.js';
import { createJsonlAdapter } from './jsonl.js';
import { createPlainAdapter } from './plain.js';

export function createAdapter(protocol: Protocol): Adapter {
  switch (protocol) {
    case 'claude':
      return createClaudeAdapter();
    case 'codex':
      return createCodexAdapter();
    case 'gemini':
      return createGeminiAdapter();
    case 'jsonl':
      return createJsonlAdapter();
    case 'plain':
      return createPlainAdapter();
    default:
      // An unknown name (e.g. from an old journal row) degrades to plain text.
      return createPlainAdapter();
  }
}
