// Durations: every form parseDuration accepts and refuses (with its message),
// the one-year limit for text and for config.json numbers, and formatDuration.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDurationMs, formatDuration, MAX_DURATION_MS, parseDuration } from '../../src/config/duration.js';
import { loadConfig, parseConfig } from '../../src/config/load.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const HINT = '(use e.g. 500ms, 30s, 1m30s, 2h, 3d)';

describe('parseDuration accepts', () => {
  it.each<[string, number]>([
    ['500ms', 500],
    ['0ms', 0],
    ['0s', 0],
    ['30s', 30 * S],
    ['0.1s', 100],
    ['12.5s', 12_500],
    ['2m', 2 * M],
    ['1h', H],
    ['1.5h', 1.5 * H],
    ['2d', 2 * D],
    ['1w', 7 * D],
    ['1m30s', 90 * S],
    ['1h30m', 90 * M],
    ['1h 30m', 90 * M],
    ['1d12h', 36 * H],
    ['4d 23h 10m', 4 * D + 23 * H + 10 * M],
    ['1w2d', 9 * D],
    ['1h0m5s', H + 5 * S],
    ['2m30.5s', 150_500],
    ['1s500ms', 1500],
    ['1.5ms', 2], // rounded to whole milliseconds
    ['  30s  ', 30 * S],
    ['30 s', 30 * S],
    ['2 minutes', 2 * M],
    ['1 hour 30 minutes', 90 * M],
    ['3 days', 3 * D],
    ['2 weeks', 14 * D],
    ['10 secs', 10 * S],
    ['2hrs', 2 * H],
    ['250 msec', 250],
    ['1H30M', 90 * M],
    ['365d', MAX_DURATION_MS],
    ['364d 23h 59m 59s 999ms', MAX_DURATION_MS - 1],
    ['8760h', MAX_DURATION_MS],
    ['52w', 52 * 7 * D],
  ])('%j → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('parseDuration refuses', () => {
  it.each<[string, string]>([
    ['30', `"30" is not a duration: it has no unit ${HINT}`],
    ['1.5', `"1.5" is not a duration: it has no unit ${HINT}`],
    ['1h30', `"1h30" is not a duration: "30" has no unit ${HINT}`],
    ['-1s', '"-1s" is negative: a duration must be 0 or more'],
    ['-1h30m', '"-1h30m" is negative: a duration must be 0 or more'],
    [' -0s', '" -0s" is negative: a duration must be 0 or more'],
    ['--1s', `"--1s" is not a duration ${HINT}`],
    ['-abc', `"-abc" is not a duration ${HINT}`],
    ['', `"" is not a duration ${HINT}`],
    ['   ', `"   " is not a duration ${HINT}`],
    ['s', `"s" is not a duration ${HINT}`],
    ['abc', `"abc" is not a duration ${HINT}`],
    ['abc 5s', `"abc 5s" is not a duration ${HINT}`],
    ['5s abc', `"5s abc" is not a duration: unexpected "abc" ${HINT}`],
    ['1h,30m and then some more', `"1h,30m and then some more" is not a duration: unexpected ",30m and then some m…" ${HINT}`],
    ['1h garbage 30m', `"1h garbage 30m" is not a duration: unexpected "garbage 30m" ${HINT}`],
    ['1h,30m', `"1h,30m" is not a duration: unexpected ",30m" ${HINT}`],
    ['1h-30m', `"1h-30m" is not a duration: unexpected "-30m" ${HINT}`],
    ['1h and 30m', `"1h and 30m" is not a duration: unexpected "and 30m" ${HINT}`],
    ['5x', `"5x" is not a duration: unknown unit "x" ${HINT}`],
    ['1y', `"1y" is not a duration: unknown unit "y" ${HINT}`],
    ['1e3s', `"1e3s" is not a duration: unknown unit "e" ${HINT}`],
    ['.5h', `".5h" is not a duration ${HINT}`],
    ['5s5s', `"5s5s" is not a duration: give each unit once, largest first ${HINT}`],
    ['30m1h', `"30m1h" is not a duration: give each unit once, largest first ${HINT}`],
    ['1m 2 minutes', `"1m 2 minutes" is not a duration: give each unit once, largest first ${HINT}`],
    ['1.5h30m', `"1.5h30m" is not a duration: only the last part may have a fraction ${HINT}`],
    ['Infinitys', `"Infinitys" is not a duration ${HINT}`],
    ['366d', '"366d" is longer than the limit of 365d (a year)'],
    ['365d 1ms', '"365d 1ms" is longer than the limit of 365d (a year)'],
    ['8761h', '"8761h" is longer than the limit of 365d (a year)'],
    ['53w', '"53w" is longer than the limit of 365d (a year)'],
    ['99999999999999999999999d', '"99999999999999999999999d" is longer than the limit of 365d (a year)'],
  ])('%j: %s', (text, message) => {
    expect(() => parseDuration(text)).toThrow(message);
    // Exactly that message: no parser internals appended.
    try {
      parseDuration(text);
    } catch (e) {
      expect((e as Error).message).toBe(message);
    }
  });
});

describe('checkDurationMs', () => {
  it('takes 0 to a year, and names the value it refuses', () => {
    expect(() => checkDurationMs(0)).not.toThrow();
    expect(() => checkDurationMs(MAX_DURATION_MS)).not.toThrow();
    expect(() => checkDurationMs(MAX_DURATION_MS + 1)).toThrow('31536000001 is longer than the limit of 365d (a year)');
    expect(() => checkDurationMs(-1, () => 'timeout_ms')).toThrow('timeout_ms is negative: a duration must be 0 or more');
    expect(() => checkDurationMs(NaN)).toThrow('NaN is not a number of milliseconds');
  });
});

describe('config.json durations', () => {
  it('takes text and numbers of milliseconds up to a year', () => {
    const cfg = parseConfig({ timings: { kill_grace: '1m30s', idle_after: MAX_DURATION_MS, limit_hold: '4d 23h' }, concurrency: { workloads: { q: { max_wait: '1h30m' } } } });
    expect(cfg.timings.kill_grace).toBe(90 * S);
    expect(cfg.timings.idle_after).toBe(MAX_DURATION_MS);
    expect(cfg.timings.limit_hold).toBe(4 * D + 23 * H);
    expect(cfg.concurrency.workloads.q!.max_wait).toBe(90 * M);
  });

  it.each<[unknown, string]>([
    [{ timings: { limit_hold: MAX_DURATION_MS + 1 } }, `timings.limit_hold: ${MAX_DURATION_MS + 1} ms is longer than the limit of 365d (a year, ${MAX_DURATION_MS} ms)`],
    [{ timings: { kill_grace: '400d' } }, 'timings.kill_grace: "400d" is longer than the limit of 365d (a year)'],
    [{ timings: { idle_after: '-1s' } }, 'timings.idle_after: "-1s" is negative: a duration must be 0 or more'],
    [{ timings: { max_starting: '30' } }, `timings.max_starting: "30" is not a duration: it has no unit ${HINT}`],
    [{ concurrency: { workloads: { q: { max_wait: 1e12 } } } }, 'concurrency.workloads.q.max_wait: 1000000000000 ms is longer than the limit of 365d'],
    [{ budgets: { run: { timeout: '1h garbage' } } }, 'budgets.run.timeout: "1h garbage" is not a duration: unexpected "garbage"'],
    [{ timings: { kill_grace: -5 } }, 'timings.kill_grace: must be a duration like "30s" or a number of milliseconds'],
  ])('refuses %j, naming the key', (value, message) => {
    expect(() => parseConfig(value)).toThrow(`config.json: ${message}`);
  });

  it('a config.json file with a number of milliseconds beyond a year is refused, naming the key', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-dur-'));
    try {
      const file = path.join(dir, 'config.json');
      fs.writeFileSync(file, JSON.stringify({ timings: { limit_hold: 400 * D } }));
      expect(() => loadConfig(file)).toThrow(`${file}: timings.limit_hold: 34560000000 ms is longer than the limit of 365d`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('formatDuration', () => {
  it.each<[number, string]>([
    [0, '0ms'],
    [250, '250ms'],
    [999.4, '999ms'],
    [999.6, '1.0s'],
    [1000, '1.0s'],
    [8500, '8.5s'],
    [9949, '9.9s'],
    [9950, '10s'],
    [45 * S, '45s'],
    [59.4 * S, '59s'],
    [59.6 * S, '1m'],
    [60 * S, '1m'],
    [65 * S, '1m05s'],
    [119 * S, '1m59s'],
    [45 * M, '45m'],
    [10 * M, '10m'],
    [H, '1h'],
    [H + 5 * M, '1h05m'],
    [H + 30 * S, '1h'],
    [23 * H + 59 * M, '23h59m'],
    [D, '1d'],
    [D + 2 * H, '1d02h'],
    [36 * H, '1d12h'],
    [4 * D + 23 * H + 10 * M, '4d23h'],
    [MAX_DURATION_MS, '365d'],
    [-1500, '-1.5s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('prints what parseDuration reads back, to the precision shown', () => {
    for (const text of ['250ms', '8.5s', '45s', '1m05s', '45m', '1h05m', '2h', '1d02h', '4d23h', '365d']) {
      expect(formatDuration(parseDuration(text))).toBe(text);
    }
  });
});
