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
const FORM = 'must be a duration such as 500ms, 30s, 1m30s, 2h or 3d';

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
    ['30', `${FORM} (a number needs a unit), got "30"`],
    ['1.5', `${FORM} (a number needs a unit), got "1.5"`],
    ['1h30', `${FORM} ("30" needs a unit), got "1h30"`],
    ['-1s', 'must not be negative, got "-1s"'],
    ['-1h30m', 'must not be negative, got "-1h30m"'],
    [' -0s', 'must not be negative, got " -0s"'],
    ['--1s', `${FORM}, got "--1s"`],
    ['-abc', `${FORM}, got "-abc"`],
    ['', `${FORM}, got ""`],
    ['   ', `${FORM}, got "   "`],
    ['s', `${FORM}, got "s"`],
    ['abc', `${FORM}, got "abc"`],
    ['abc 5s', `${FORM}, got "abc 5s"`],
    ['5s abc', `${FORM} (unexpected "abc"), got "5s abc"`],
    ['1h,30m and then some more', `${FORM} (unexpected ",30m and then some m…"), got "1h,30m and then some more"`],
    ['1h garbage 30m', `${FORM} (unexpected "garbage 30m"), got "1h garbage 30m"`],
    ['1h,30m', `${FORM} (unexpected ",30m"), got "1h,30m"`],
    ['1h-30m', `${FORM} (unexpected "-30m"), got "1h-30m"`],
    ['1h and 30m', `${FORM} (unexpected "and 30m"), got "1h and 30m"`],
    ['5x', `${FORM} (unknown unit "x"), got "5x"`],
    ['1y', `${FORM} (unknown unit "y"), got "1y"`],
    ['1e3s', `${FORM} (unknown unit "e"), got "1e3s"`],
    ['.5h', `${FORM}, got ".5h"`],
    ['5s5s', `${FORM} (largest unit first, each unit once), got "5s5s"`],
    ['30m1h', `${FORM} (largest unit first, each unit once), got "30m1h"`],
    ['1m 2 minutes', `${FORM} (largest unit first, each unit once), got "1m 2 minutes"`],
    ['1.5h30m', `${FORM} (a fraction only in the last part), got "1.5h30m"`],
    ['Infinitys', `${FORM}, got "Infinitys"`],
    ['366d', 'must be at most 365d (a year), got "366d"'],
    ['365d 1ms', 'must be at most 365d (a year), got "365d 1ms"'],
    ['8761h', 'must be at most 365d (a year), got "8761h"'],
    ['53w', 'must be at most 365d (a year), got "53w"'],
    ['99999999999999999999999d', 'must be at most 365d (a year), got "99999999999999999999999d"'],
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

describe('a named duration', () => {
  it('starts its message with the name it was given: one shape for flags, fields and keys', () => {
    expect(() => parseDuration('30m1h', '--timeout')).toThrow(`--timeout ${FORM} (largest unit first, each unit once), got "30m1h"`);
    expect(() => parseDuration('99y', '--older-than')).toThrow(`--older-than ${FORM} (unknown unit "y"), got "99y"`);
    expect(() => parseDuration('-1s', '--timeout')).toThrow('--timeout must not be negative, got "-1s"');
  });
});

describe('checkDurationMs', () => {
  it('takes 0 to a year, and names the value it refuses', () => {
    expect(() => checkDurationMs(0)).not.toThrow();
    expect(() => checkDurationMs(MAX_DURATION_MS)).not.toThrow();
    expect(() => checkDurationMs(MAX_DURATION_MS + 1)).toThrow('must be at most 365d (a year), got 31536000001');
    expect(() => checkDurationMs(-1, 'timeout_ms')).toThrow('timeout_ms must not be negative, got -1');
    expect(() => checkDurationMs(NaN)).toThrow(`${FORM} or a number of milliseconds, got NaN`);
  });
});

describe('config.json durations', () => {
  it('takes text and numbers of milliseconds up to a year', () => {
    const cfg = parseConfig({
      timings: { kill_grace: '1m30s', idle_after: MAX_DURATION_MS, limit_hold: '4d 23h' },
      concurrency: { workloads: { q: { max_wait: '1h30m' } } },
    });
    expect(cfg.timings.kill_grace).toBe(90 * S);
    expect(cfg.timings.idle_after).toBe(MAX_DURATION_MS);
    expect(cfg.timings.limit_hold).toBe(4 * D + 23 * H);
    expect(cfg.concurrency.workloads.q!.max_wait).toBe(90 * M);
    // 0 where it means "at once" rather than "stop every run at once".
    const zero = parseConfig({ timings: { kill_grace: '0s', limit_hold: 0 }, notify: { batch: '0s' }, retention: { ended: '0s' } });
    expect([zero.timings.kill_grace, zero.timings.limit_hold, zero.notify!.batch, zero.retention.ended]).toEqual([0, 0, 0, 0]);
  });

  it.each<[unknown, string]>([
    [{ timings: { limit_hold: MAX_DURATION_MS + 1 } }, `timings.limit_hold: must be at most 365d (a year), got ${MAX_DURATION_MS + 1}`],
    [{ timings: { kill_grace: '400d' } }, 'timings.kill_grace: must be at most 365d (a year), got "400d"'],
    [{ timings: { idle_after: '-1s' } }, 'timings.idle_after: must not be negative, got "-1s"'],
    [{ timings: { max_starting: '30' } }, `timings.max_starting: ${FORM} (a number needs a unit), got "30"`],
    [{ concurrency: { workloads: { q: { max_wait: 1e12 } } } }, 'concurrency.workloads.q.max_wait: must be at most 365d (a year), got 1000000000000'],
    [{ budgets: { run: { timeout: '1h garbage' } } }, `budgets.run.timeout: ${FORM} (unexpected "garbage"), got "1h garbage"`],
    [{ budgets: { run: { timeout: '30m1h' } } }, `budgets.run.timeout: ${FORM} (largest unit first, each unit once), got "30m1h"`],
    [{ timings: { kill_grace: -5 } }, 'timings.kill_grace: must not be negative, got -5'],
    [{ timings: { kill_grace: true } }, `timings.kill_grace: ${FORM} or a number of milliseconds`],
    // 0 where it would stop a run the moment it starts; elsewhere 0 means "at once" and is taken.
    [{ budgets: { run: { timeout: '0s' } } }, 'budgets.run.timeout: must be more than 0 (0 would stop every run at once; null for no limit), got "0s"'],
    [{ budgets: { run: { turn_timeout: 0 } } }, 'budgets.run.turn_timeout: must be more than 0 (0 would stop every run at once; null for no limit), got 0'],
    [{ providers: { p: { budgets: { timeout: '0ms' } } } }, 'providers.p.budgets.timeout: must be more than 0'],
    [{ timings: { idle_after: '0s' } }, 'timings.idle_after: must be more than 0 (0 would end an idle run at once), got "0s"'],
    [{ timings: { max_starting: 0 } }, 'timings.max_starting: must be more than 0'],
  ])('refuses %j, naming the key', (value, message) => {
    expect(() => parseConfig(value)).toThrow(`config.json: ${message}`);
  });

  it('a config.json file with a number of milliseconds beyond a year is refused, naming the key', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-dur-'));
    try {
      const file = path.join(dir, 'config.json');
      fs.writeFileSync(file, JSON.stringify({ timings: { limit_hold: 400 * D } }));
      expect(() => loadConfig(file)).toThrow(`${file}: timings.limit_hold: must be at most 365d (a year), got 34560000000`);
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
