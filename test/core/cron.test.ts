import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/config/duration.js';
import { CronError, checkZone, firesBetween, nextFire, parseCron, parseOnceAt, wallAt } from '../../src/core/cron.js';
import { decideFire, dueAt, FIRE_GRACE_MS, loopNameProblem, loopRunStatus, pendingStarts } from '../../src/core/loop-policy.js';

const at = (s: string): number => Date.parse(s);
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const next = (expr: string, zone: string, after: string): string | null => iso(nextFire(parseCron(expr), zone, at(after)));

describe('cron: parsing', () => {
  it('reads the five fields with ranges, steps, lists, names and macros', () => {
    const c = parseCron('*/15 9-17 1,15 jan-mar mon-fri');
    expect(c.minutes).toEqual([0, 15, 30, 45]);
    expect(c.hours).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17]);
    expect([...c.days]).toEqual([1, 15]);
    expect([...c.months]).toEqual([1, 2, 3]);
    expect([...c.weekdays].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(parseCron('0 0 * * 7').weekdays.has(0)).toBe(true);
    expect(parseCron('@hourly').minutes).toEqual([0]);
  });

  it('refuses bad input with a clear message', () => {
    expect(() => parseCron('0 9 * * * *')).toThrow(/has 6 fields; a cron schedule has five/);
    expect(() => parseCron('61 * * * *')).toThrow(/minute 61 is out of range \(0-59\)/);
    expect(() => parseCron('* 24 * * *')).toThrow(/hour 24 is out of range/);
    expect(() => parseCron('* * 0 * *')).toThrow(/day of month 0 is out of range/);
    expect(() => parseCron('* * * foo *')).toThrow(/month "foo" is not a number or a name/);
    expect(() => parseCron('5-1 * * * *')).toThrow(/goes backwards/);
    expect(() => parseCron('*/0 * * * *')).toThrow(/step must be at least 1/);
    expect(() => parseCron('')).toThrow(CronError);
    expect(() => checkZone('Mars/Olympus')).toThrow(/unknown time zone "Mars\/Olympus"/);
    expect(checkZone('Europe/Berlin')).toBe('Europe/Berlin');
  });
});

describe('cron: next fire in a zone', () => {
  it('fires strictly after the given time, on whole minutes', () => {
    expect(next('* * * * *', 'UTC', '2026-05-01T10:00:00Z')).toBe('2026-05-01T10:01:00.000Z');
    expect(next('* * * * *', 'UTC', '2026-05-01T10:00:30Z')).toBe('2026-05-01T10:01:00.000Z');
    expect(next('0 9 * * 1-5', 'UTC', '2026-05-01T09:00:00Z')).toBe('2026-05-04T09:00:00.000Z'); // Friday → Monday
    expect(next('0 0 29 2 *', 'UTC', '2026-03-01T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(next('0 0 30 2 *', 'UTC', '2026-03-01T00:00:00Z')).toBeNull();
  });

  it('day of month and day of week both restricted: either one fires', () => {
    // 2026-05-13 is a Wednesday; the 15th a Friday.
    expect(next('0 0 15 * 3', 'UTC', '2026-05-12T00:00:00Z')).toBe('2026-05-13T00:00:00.000Z');
    expect(next('0 0 15 * 3', 'UTC', '2026-05-13T00:00:00Z')).toBe('2026-05-15T00:00:00.000Z');
  });

  it('09:00 stays 09:00 local across the DST changes of America/New_York (2026-03-08, 2026-11-01)', () => {
    const z = 'America/New_York';
    expect(next('0 9 * * *', z, '2026-03-07T15:00:00Z')).toBe('2026-03-08T13:00:00.000Z'); // EDT, UTC-4
    expect(next('0 9 * * *', z, '2026-03-06T15:00:00Z')).toBe('2026-03-07T14:00:00.000Z'); // EST, UTC-5
    expect(next('0 9 * * *', z, '2026-10-31T14:00:00Z')).toBe('2026-11-01T14:00:00.000Z'); // EST again
    expect(wallAt(at('2026-11-01T14:00:00Z'), z)).toMatchObject({ hour: 9, minute: 0 });
  });

  it('a wall time the spring change skips fires once, shifted by the gap; a repeated one fires once', () => {
    const z = 'America/New_York';
    // 02:30 does not exist on 2026-03-08: it fires at 03:30 EDT.
    expect(next('30 2 * * *', z, '2026-03-08T05:00:00Z')).toBe('2026-03-08T07:30:00.000Z');
    expect(wallAt(at('2026-03-08T07:30:00Z'), z)).toMatchObject({ hour: 3, minute: 30 });
    // 01:30 happens twice on 2026-11-01: the first (EDT) fires, then the next day's.
    expect(next('30 1 * * *', z, '2026-11-01T04:00:00Z')).toBe('2026-11-01T05:30:00.000Z');
    expect(next('30 1 * * *', z, '2026-11-01T05:30:00Z')).toBe('2026-11-02T06:30:00.000Z');
    // With every hour (`*`), the repeated hour is fired again, as the clock reads each minute again.
    expect(next('30 * * * *', z, '2026-11-01T05:30:00Z')).toBe('2026-11-01T06:30:00.000Z');
    // Hourly across the spring gap: 01:00 EST, then 03:00 EDT, one hour apart.
    expect(next('0 * * * *', z, '2026-03-08T06:00:00Z')).toBe('2026-03-08T07:00:00.000Z');
  });

  it('Europe/Berlin: 09:00 across its DST changes (2026-03-29, 2026-10-25)', () => {
    const z = 'Europe/Berlin';
    expect(next('0 9 * * *', z, '2026-03-28T09:00:00Z')).toBe('2026-03-29T07:00:00.000Z'); // CEST, UTC+2
    expect(next('0 9 * * *', z, '2026-03-27T09:00:00Z')).toBe('2026-03-28T08:00:00.000Z'); // CET, UTC+1
    expect(next('0 9 * * *', z, '2026-10-24T09:00:00Z')).toBe('2026-10-25T08:00:00.000Z');
    expect(next('30 2 * * *', z, '2026-03-29T00:00:00Z')).toBe('2026-03-29T01:30:00.000Z'); // 02:30 skipped → 03:30 CEST
  });

  it('counts fires in a span (what a downtime missed)', () => {
    expect(firesBetween(parseCron('* * * * *'), 'UTC', at('2026-05-01T10:00:00Z'), at('2026-05-01T10:10:00Z'))).toBe(10);
    expect(firesBetween(parseCron('0 9 * * *'), 'UTC', at('2026-05-01T10:00:00Z'), at('2026-05-03T10:00:00Z'))).toBe(2);
  });
});

describe('--once-at', () => {
  const now = at('2026-05-01T10:00:00Z');
  it('takes a duration from now, an RFC 3339 time, or a local wall-clock time', () => {
    expect(iso(parseOnceAt('30m', now, 'UTC', parseDuration))).toBe('2026-05-01T10:30:00.000Z');
    expect(() => parseOnceAt('366d', now, 'UTC', parseDuration)).toThrow('--once-at must be at most 365d (a year), got "366d"');
    expect(iso(parseOnceAt('2026-12-02T09:00:00+01:00', now, 'UTC', parseDuration))).toBe('2026-12-02T08:00:00.000Z');
    expect(iso(parseOnceAt('2026-12-02T09:00:00Z', now, 'Europe/Berlin', parseDuration))).toBe('2026-12-02T09:00:00.000Z');
    expect(iso(parseOnceAt('2026-12-02 09:00', now, 'Europe/Berlin', parseDuration))).toBe('2026-12-02T08:00:00.000Z');
    // 14:30 in New York (EDT) is today; 05:00 has passed there, so it is tomorrow.
    expect(iso(parseOnceAt('14:30', now, 'America/New_York', parseDuration))).toBe('2026-05-01T18:30:00.000Z');
    expect(iso(parseOnceAt('05:00', now, 'America/New_York', parseDuration))).toBe('2026-05-02T09:00:00.000Z');
  });

  it('refuses what is not a time, and times in the past', () => {
    expect(() => parseOnceAt('soon', now, 'UTC', parseDuration)).toThrow(/is not a time: give a duration from now/);
    expect(() => parseOnceAt('2026-02-30 09:00', now, 'UTC', parseDuration)).toThrow(/not a real date/);
    expect(() => parseOnceAt('25:00', now, 'UTC', parseDuration)).toThrow(/not a real date/);
    expect(() => parseOnceAt('2025-01-01T00:00:00Z', now, 'UTC', parseDuration)).toThrow(/is in the past/);
  });
});

describe('loop names', () => {
  it('a bad name is refused, and shown quoted: a newline or an escape in it neither splits the message nor reaches the terminal', () => {
    expect(loopNameProblem('nightly-1.x')).toBeNull();
    const said = loopNameProblem('bad\nname\x1b[2J')!;
    expect(said).toBe(`loop name "bad\\nname\\u001b[2J" must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`);
    expect(said).not.toMatch(/[\x00-\x1f]/);
    expect(loopNameProblem('x'.repeat(65))).toMatch(/must be 1-64/);
  });
});

describe('loop policy', () => {
  it('at the cap: queue pends one run and coalesces the rest; skip drops', () => {
    const q = { max_concurrency: 1, overlap: 'queue' as const, pending: null };
    expect(decideFire(q, 0)).toEqual({ kind: 'start' });
    expect(decideFire(q, 1)).toEqual({ kind: 'pend' });
    expect(decideFire({ ...q, pending: { since: 0, coalesced: 0 } }, 1)).toEqual({ kind: 'coalesce' });
    expect(decideFire({ ...q, overlap: 'skip' }, 1)).toEqual({ kind: 'skip' });
    expect(decideFire({ ...q, max_concurrency: 2 }, 1)).toEqual({ kind: 'start' });
    // A fire never jumps a waiting pending run, even with room.
    expect(decideFire({ ...q, pending: { since: 0, coalesced: 0 } }, 0)).toEqual({ kind: 'coalesce' });
    expect(pendingStarts({ ...q, paused: false, pending: { since: 0, coalesced: 0 } }, 0)).toBe(true);
    expect(pendingStarts({ ...q, paused: true, pending: { since: 0, coalesced: 0 } }, 0)).toBe(false);
    expect(pendingStarts({ ...q, paused: false, pending: { since: 0, coalesced: 0 } }, 1)).toBe(false);
  });

  it('a fire late by more than the grace is missed (skipped and counted), never run late', () => {
    const s = { cron: '* * * * *', tz: 'UTC' };
    const due = at('2026-05-01T10:00:00Z');
    expect(dueAt(s, due, due - 1).kind).toBe('none');
    expect(dueAt(s, due, due + 5_000)).toEqual({ kind: 'fire', scheduled: due, next: at('2026-05-01T10:01:00Z') });
    expect(dueAt(s, due, due + FIRE_GRACE_MS + 1).kind).toBe('missed');
    const asleep = dueAt(s, due, at('2026-05-01T10:10:30Z'));
    expect(asleep).toEqual({ kind: 'missed', first: due, count: 11, next: at('2026-05-01T10:11:00Z') });
    expect(dueAt({ once_at: due }, due, due + 3_600_000)).toEqual({ kind: 'missed', first: due, count: 1, next: null });
    expect(dueAt({ once_at: due }, due, due + 100)).toEqual({ kind: 'fire', scheduled: due, next: null });
  });

  it('maps a run to a loop run status', () => {
    const r = { status: 'ended' as const, kill_requested_at: null };
    expect(loopRunStatus({ ...r, exit_reason: 'completed' })).toBe('ok');
    expect(loopRunStatus({ ...r, exit_reason: 'errored' })).toBe('failed');
    expect(loopRunStatus({ ...r, exit_reason: 'timeout' })).toBe('timeout');
    expect(loopRunStatus({ ...r, exit_reason: 'killed' })).toBe('stopped');
    expect(loopRunStatus({ ...r, exit_reason: 'canceled' })).toBe('canceled');
    expect(loopRunStatus({ status: 'working', exit_reason: null, kill_requested_at: null })).toBe('running');
    expect(loopRunStatus({ status: 'working', exit_reason: null, kill_requested_at: 1 })).toBe('stopping');
    expect(loopRunStatus({ status: 'working', exit_reason: null, kill_requested_at: null }, true)).toBe('stopping');
  });
});
