import { describe, expect, it } from 'vitest';
import { displayWidth, padDisplay, truncateDisplay } from '../../src/text/display-width.js';
import { hasControls, safeLine, safeText } from '../../src/text/terminal-text.js';

describe('safeLine', () => {
  it.each([
    ['OSC 52 clipboard write', 'a\x1b]52;c;ZXZpbA==\x07b', 'ab'],
    ['OSC title with ST', 'x\x1b]0;pwned\x1b\\y', 'xy'],
    ['CSI colour and cursor moves', '\x1b[31mred\x1b[0m\x1b[2J\x1b[H!', 'red!'],
    ['8-bit CSI and OSC', 'a\u009b31mb\u009d0;t\u009cc', 'abc'],
    ['DCS string', 'p\x1bPq#0;2;0;0;0\x1b\\q', 'pq'],
    ['bare escape and two-byte escapes', 'a\x1bcb\x1b(Bc\x1b', 'abc'],
    ['newline, tab, CR, bell, NUL, DEL', 'a\nb\tc\rd\x07e\x00f\x7fg', 'a b c d e f g'],
    ['bidi override', 'abc\u202edef', 'abcdef'],
    ['plain unicode is kept', 'héllo 世界 🚀', 'héllo 世界 🚀'],
  ])('%s', (_what, input, expected) => {
    expect(safeLine(input)).toBe(expected);
    expect(safeLine(input)).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });

  it('an unterminated OSC swallows the rest of the value, never the terminal', () => {
    expect(safeLine('ok\x1b]52;c;aaaa')).toBe('ok');
  });
});

describe('safeText', () => {
  it('keeps newlines, turns CRLF into LF and tabs into spaces, drops sequences', () => {
    expect(safeText('a\r\nb\tc\x1b[1m\nd\x07')).toBe('a\nb  c\nd ');
  });
});

describe('hasControls', () => {
  it('tells plain text from text with controls', () => {
    expect(hasControls('plain name-1')).toBe(false);
    expect(hasControls('a\nb')).toBe(true);
    expect(hasControls('a\x1b[1m')).toBe(true);
    expect(hasControls('a\u0085')).toBe(true);
  });
});

describe('display width', () => {
  it('counts wide CJK and emoji as two columns', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('世界')).toBe(4);
    expect(displayWidth('🚀')).toBe(2);
    expect(displayWidth('é')).toBe(1);
  });
  it('pads and truncates by columns', () => {
    expect(padDisplay('世界', 6)).toBe('世界  ');
    expect(padDisplay('ab', 4, 'right')).toBe('  ab');
    expect(truncateDisplay('世界世界', 5)).toBe('世界…');
    expect(displayWidth(truncateDisplay('世界世界', 5))).toBeLessThanOrEqual(5);
    expect(truncateDisplay('abc', 3)).toBe('abc');
  });
});
