// The transcript builder over each agent's real output format (the recorded
// fixtures): what a person reads, entry by entry, built line by line.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTranscript, createTranscript, toolLine } from '../../src/agents/transcript.js';
import { entryRows } from '../../src/text/transcript-lines.js';
import { ROOT } from '../support/harness.js';

const fixture = (p: string, f: string): string[] =>
  fs
    .readFileSync(path.join(ROOT, 'test/fixtures', p, `${f}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean);
const shown = (lines: string[], protocol: 'claude' | 'codex' | 'gemini' | 'jsonl', width = 80): string[] =>
  buildTranscript(lines, protocol, { inputs: [{ text: 'the prompt', out_bytes: 0 }] }).flatMap((e) => entryRows(e, width).map((r) => r.text));

describe('transcript of each protocol', () => {
  it("claude: text, tool calls on one line, results from user messages folded, turns with usage and the turn's cost", () => {
    const rows = shown(fixture('claude', 'two-turns'), 'claude');
    expect(rows[0]).toBe('› the prompt');
    expect(rows).toContain('⏺ Bash npm test');
    expect(rows).toContain('  ⎿ > vitest run (+2 lines)');
    expect(rows).toContain('⏺ Edit /w/repo/src/math.test.ts');
    expect(rows.filter((r) => r.startsWith('── turn '))).toEqual([
      '── turn 1 done · 3118 in · 287 out · 44502 cached · $0.0413 ────',
      '── turn 2 done · 1852 in · 412 out · 61220 cached · $0.0346 ────',
    ]);
  });

  it('codex: commands unwrapped from bash -lc, their output as the result, notices as errors', () => {
    const rows = shown(fixture('codex', 'two-turns'), 'codex');
    expect(rows).toContain('⏺ shell npm test');
    expect(rows.some((r) => r.startsWith('  ⎿ 11 passing'))).toBe(true);
    expect(rows.some((r) => r.startsWith('✗ Reconnecting... 1/5'))).toBe(true);
    expect(rows.filter((r) => r.startsWith('── turn '))).toHaveLength(2);
  });

  it('gemini: streamed text joined, tool results by status, the echoed user message as an input', () => {
    const rows = shown(fixture('gemini', 'one-turn'), 'gemini');
    expect(rows).toContain('› Fix the failing test in src/range.test.ts');
    expect(rows).toContain("  I'll read the test file first.");
    expect(rows).toContain('⏺ replace /w/repo/src/range.ts');
    expect(rows).toContain('  ⎿ (no output)');
  });

  it('jsonl: banners as raw lines, turns ended by turn_end; a failure said once (hold, not repeated as an error)', () => {
    expect(shown(fixture('jsonl', 'two-turns'), 'jsonl')).toContain('worker v1.2 starting (pid 4242)');
    const login = shown(fixture('claude', 'not-logged-in'), 'claude');
    expect(login.filter((r) => r.includes('Not logged in')).length).toBe(2); // the message, then the hold
    expect(login[login.length - 1]).toBe('── turn 1 failed (login) ────');
  });

  it('places a recorded send before the line that starts where the output was when it was sent', () => {
    const lines = fixture('jsonl', 'two-turns');
    const at = lines.slice(0, 8).reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    const t = createTranscript('jsonl', { inputs: [{ text: 'first', out_bytes: 0 }] });
    const entries = lines.slice(0, 8).flatMap((l) => t.line(l));
    // Recorded while the builder was running: a follower hands the new record over.
    t.setInputs([
      { text: 'first', out_bytes: 0 },
      { text: 'second', out_bytes: at },
    ]);
    entries.push(...lines.slice(8).flatMap((l) => t.line(l)), ...t.end());
    expect(entries.filter((e) => e.kind === 'prompt' || e.kind === 'input').map((e) => [e.kind, e.text])).toEqual([
      ['prompt', 'first'],
      ['input', 'second'],
    ]);
    expect(entries.findIndex((e) => e.text === 'second')).toBe(entries.findIndex((e) => e.line === 8) - 1);
  });

  it('wraps text by display width without cutting it, and no row carries an escape sequence', () => {
    const long = `${'word '.repeat(30)}漢字漢字 \u001b]52;c;x\u0007 end`;
    const rows = entryRows({ kind: 'text', text: long, line: 0 }, 40);
    expect(rows.length).toBeGreaterThan(3);
    expect(
      rows
        .map((r) => r.text.trim())
        .join(' ')
        .replace(/\s+/g, ' '),
    ).toBe(`${'word '.repeat(30)}漢字漢字 end`.replace(/\s+/g, ' '));
    for (const r of rows) expect(r.text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(toolLine('Bash', { command: "bash -lc 'npm test'" })).toBe('Bash npm test');
  });
});
