// The socket's framing as plain functions: lines cut from bytes, the size
// limit in bytes, nesting depth outside strings, and a refused line's id.

import { describe, expect, it } from 'vitest';
import { LineSplitter, leadingId } from '../../src/server/frames.js';
import { nestedDeeperThan } from '../../src/text/json-depth.js';

describe('LineSplitter', () => {
  it('cuts lines at newlines, keeps a character split across chunks whole, and holds an unfinished line', () => {
    const s = new LineSplitter(100);
    const bytes = Buffer.from('{"a":"€"}\n{"b":"€€"}\n{"c"');
    const cut = bytes.indexOf(Buffer.from('€€')) + 1; // inside the first €
    expect(s.push(bytes.subarray(0, cut))).toEqual({ lines: ['{"a":"€"}'], tooLarge: false });
    expect(s.push(bytes.subarray(cut))).toEqual({ lines: ['{"b":"€€"}'], tooLarge: false });
    expect(s.push(Buffer.from(':1}\n'))).toEqual({ lines: ['{"c":1}'], tooLarge: false });
  });

  it('counts bytes, not characters: 33 three-byte characters fit in 100 bytes, 34 do not, in one chunk or two', () => {
    expect(new LineSplitter(100).push(Buffer.from('€'.repeat(33) + '\n'))).toEqual({ lines: ['€'.repeat(33)], tooLarge: false });
    expect(new LineSplitter(100).push(Buffer.from('€'.repeat(34) + '\n')).tooLarge).toBe(true);
    const s = new LineSplitter(100);
    expect(s.push(Buffer.from('€'.repeat(20))).tooLarge).toBe(false);
    expect(s.push(Buffer.from('€'.repeat(20))).tooLarge).toBe(true);
  });
});

describe('nestedDeeperThan', () => {
  it('counts arrays and objects inside one another, never brackets in strings or escaped quotes', () => {
    expect(nestedDeeperThan('[[[]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(nestedDeeperThan('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(nestedDeeperThan('{"a":{"b":[{}]}}', 3)).toBe(true);
    expect(nestedDeeperThan(JSON.stringify({ x: '[[[[[[{{{{' }), 1)).toBe(false);
    expect(nestedDeeperThan(JSON.stringify({ x: 'a"[[[[\\' }), 1)).toBe(false);
    expect(nestedDeeperThan('[][][][][]', 1)).toBe(false);
  });
});

describe('leadingId', () => {
  it('reads the id a client wrote first, else null', () => {
    expect(leadingId('{"id":7,"method":"x"}')).toBe(7);
    expect(leadingId(' { "id" : 12 }')).toBe(12);
    expect(leadingId('{"method":"x","id":7}')).toBeNull();
    expect(leadingId('{"id":"7"}')).toBeNull();
  });
});
