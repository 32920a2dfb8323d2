// The clients' read-only view of a run's output (src/client/run-output.ts),
// which `orcr logs` and the TUI's details pane share: a follower that hands
// out every whole line once, whatever the writes look like.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OutputFollower, readAll, readTail } from '../../src/client/run-output.js';
import { until } from '../support/harness.js';

let dir: string | null = null;
let follower: OutputFollower | null = null;
afterEach(() => {
  follower?.close();
  follower = null;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = null;
});

function file(): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-out-'));
  return path.join(dir, 'out');
}

describe('run output, read-only', () => {
  it('a follower hands out each whole line once: a character split between writes, a line in pieces, the last line without its newline', async () => {
    const f = file();
    fs.writeFileSync(f, 'before\npart');
    const { lines, wholeEnd } = readAll(f);
    expect(lines).toEqual(['before', 'part']);
    const got: string[] = [];
    follower = new OutputFollower(f, wholeEnd, (ls) => got.push(...ls), 20);
    follower.start();
    const snow = Buffer.from('ial ☃ done\n');
    const cut = snow.indexOf(Buffer.from('☃')) + 1; // inside the snowman's three bytes
    fs.appendFileSync(f, snow.subarray(0, cut));
    fs.appendFileSync(f, snow.subarray(cut));
    fs.appendFileSync(f, 'next\nlast, no newline');
    await until(() => got.length === 2, 'two whole lines');
    expect(got).toEqual(['partial ☃ done', 'next']);
    follower.read();
    expect(follower.flushPartial()).toBe('last, no newline');
    expect(follower.flushPartial()).toBeNull();
  });

  it('a file truncated under the follower is read again from the top', async () => {
    const f = file();
    fs.writeFileSync(f, 'one\ntwo\n');
    const got: string[] = [];
    follower = new OutputFollower(f, readAll(f).wholeEnd, (ls) => got.push(...ls), 20);
    follower.start();
    fs.writeFileSync(f, 'new\n');
    await until(() => got.includes('new'), 'the line after the truncation');
    expect(got).toEqual(['new']);
  });

  it('the tail is one bounded read from the end, without a cut first line', () => {
    const f = file();
    fs.writeFileSync(f, Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n') + '\n');
    const t = readTail(f, 5, 64);
    expect(t.lines).toEqual(['line 995', 'line 996', 'line 997', 'line 998', 'line 999']);
    expect(readTail(f, 500, 64).lines.length).toBeLessThan(10);
    expect(readTail(path.join(dir!, 'nope')).missing).toBe(true);
  });
});
