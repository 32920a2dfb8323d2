import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, Tailer, type TailLine } from '../../src/runtime/tailer.js';
import { until } from '../support/harness.js';

const dirs: string[] = [];
const tailers: Tailer[] = [];
afterEach(() => {
  for (const t of tailers.splice(0)) t.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setup(offset = 0): { file: string; lines: TailLine[]; t: Tailer } {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-tail-'));
  dirs.push(d);
  const file = path.join(d, 'out');
  fs.writeFileSync(file, '');
  const lines: TailLine[] = [];
  const t = new Tailer(file, offset, (ls) => lines.push(...ls), 60_000);
  tailers.push(t);
  return { file, lines, t };
}

describe('tailer', () => {
  it('holds a partial line until its newline arrives', () => {
    const { file, lines, t } = setup();
    fs.appendFileSync(file, 'hello wo');
    t.read();
    expect(lines).toEqual([]);
    fs.appendFileSync(file, 'rld\nnext');
    t.read();
    expect(lines.map((l) => l.text)).toEqual(['hello world']);
    expect(lines[0]!.end).toBe(12);
    expect(t.flushPartial()?.text).toBe('next');
  });

  it('decodes a multi-byte character split across two reads whole', () => {
    const { file, lines, t } = setup();
    const bytes = Buffer.from('naïve ✓ done\n', 'utf8');
    const cut = bytes.indexOf(0xe2) + 1; // inside the three bytes of ✓
    fs.appendFileSync(file, bytes.subarray(0, cut));
    t.read();
    fs.appendFileSync(file, bytes.subarray(cut));
    t.read();
    expect(lines.map((l) => l.text)).toEqual(['naïve ✓ done']);
  });

  it('starts over when the file is truncated under it', () => {
    const { file, lines, t } = setup();
    fs.appendFileSync(file, 'one\ntwo\n');
    t.read();
    fs.writeFileSync(file, 'three\n');
    t.read();
    expect(lines.map((l) => l.text)).toEqual(['one', 'two', 'three']);
  });

  it('caps a very long line, notes the cut, and keeps going', () => {
    const { file, lines, t } = setup();
    fs.appendFileSync(file, 'x'.repeat(3 * MAX_LINE_BYTES) + '\nafter\n');
    t.read();
    expect(lines).toHaveLength(2);
    expect(lines[0]!.text.length).toBe(MAX_LINE_BYTES);
    expect(lines[0]!.truncated).toBe(true);
    expect(lines[1]).toMatchObject({ text: 'after', truncated: false, end: 3 * MAX_LINE_BYTES + 7 });
  });

  it('says where each line starts; a cut line reads whole again from there, when it is not longer than asked', () => {
    const { file, lines, t } = setup();
    const long = 'y'.repeat(2 * MAX_LINE_BYTES);
    fs.appendFileSync(file, `first\n${long}\r\nlast\n`);
    t.read();
    expect(lines.map((l) => l.start)).toEqual([0, 6, 6 + long.length + 2]);
    const cut = lines[1]!;
    expect(cut.truncated).toBe(true);
    expect(Tailer.readLineAt(file, cut.start, cut.end, 4 * MAX_LINE_BYTES)).toBe(long);
    expect(Tailer.readLineAt(file, cut.start, cut.end, MAX_LINE_BYTES)).toBeNull();
    expect(Tailer.readLineAt(file, lines[0]!.start, lines[0]!.end, 100)).toBe('first');
    expect(Tailer.readLineAt(path.join(path.dirname(file), 'gone'), 0, 6, 100)).toBeNull();
  });

  it('resumes from a byte offset without repeating lines', () => {
    const { file } = setup();
    fs.appendFileSync(file, 'a\nb\nc\n');
    const seen: string[] = [];
    const t = new Tailer(file, 2, (ls) => seen.push(...ls.map((l) => l.text)), 60_000);
    tailers.push(t);
    t.read();
    expect(seen).toEqual(['b', 'c']);
  });

  it('delivers lines on its own from file-change notifications', async () => {
    const { file, lines, t } = setup();
    t.start();
    fs.appendFileSync(file, 'ping\n');
    await until(() => lines.length > 0, 'the tailer to deliver a line', 5000, 10);
    expect(lines.map((l) => l.text)).toEqual(['ping']);
  });
});
