// How long a usage limit holds, read from the agent's own words: delays of
// several units, times of day, dates, zones. A fixed clock; expectations are
// built with the same local-time constructors, so they hold in any TZ.

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createClaudeAdapter, createCodexAdapter, createDetectingAdapter, createGeminiAdapter, foldSignals } from '../../src/agents/index.js';
import type { Signal } from '../../src/agents/signals.js';
import { statedRetryAfter } from '../../src/agents/util.js';
import { feed } from './helpers.js';

const j = (o: unknown): string => JSON.stringify(o);
const H = 3600;
const D = 86_400;

describe('statedRetryAfter: delays (no clock needed)', () => {
  it.each<[string, number]>([
    // Codex, as printed (test/fixtures/codex/usage-limit.jsonl)
    ["You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 4 days 23 hours 10 minutes.", 4 * D + 23 * H + 600],
    ['try again in 2 hours 5 minutes', 2 * H + 300],
    ['Try again in 1 hour and 30 minutes.', H + 1800],
    ['try again in 2 hours, 5 minutes and 3 seconds', 2 * H + 303],
    ['try again in 4d 23h 10m', 4 * D + 23 * H + 600],
    ['Resets in 4h14m50s.', 4 * H + 14 * 60 + 50],
    ['retry after 90 seconds', 90],
    ['Please retry in 12.5s', 12.5],
    // Gemini, as printed (test/real/transcripts/gemini/quota.jsonl)
    ['[API Error: Resource has been exhausted (e.g. check quota).\nSuggested retry after 7s.]\nPlease wait and try again later.', 7],
    ['Suggested retry after 3s.', 3],
    ['try again in 30 seconds', 30],
    ['retry after 2 minutes', 120],
    ['retry in 500ms', 0.5],
    ['try again in 3 days', 3 * D],
    ['try again in 1 week', 7 * D],
    ['try again in an hour', H],
    ['try again in a minute', 60],
    ['RETRY AFTER 5 MIN', 300],
    // A first phrase without a delay does not hide a later one.
    ['try again in a while; or retry in 10s', 10],
  ])('%j → %d s', (text, seconds) => {
    expect(statedRetryAfter(text)).toBe(seconds);
  });

  it.each<string | undefined>([
    undefined,
    '',
    'usage limit reached',
    'You’ve hit your usage limit. Try again later.', // the real Codex message without a time
    'try again in 5 months',
    'in 2 hours 5 minutes', // no "try again" or "retry": not a statement of when
    'retry in x seconds',
  ])('%j states no delay', (text) => {
    expect(statedRetryAfter(text)).toBeUndefined();
  });
});

describe('statedRetryAfter: times (with a clock)', () => {
  // Monday 30 November 2026, 08:00 local time.
  const now = new Date(2026, 10, 30, 8, 0, 0).getTime();
  const local = (...a: [number, number, number, number, number]): number => (new Date(...a).getTime() - now) / 1000;
  const utc = (...a: [number, number, number, number, number]): number => (Date.UTC(...a) - now) / 1000;

  it.each<[string, number]>([
    ['try again at 8:49 AM', 49 * 60],
    ['try again at 8:49 AM.', 49 * 60],
    ['try again at 7:15 AM', local(2026, 11, 1, 7, 15)], // past today: tomorrow
    // The minute now running: the agent rounds its reset down to the minute, so it is this minute's end, not tomorrow.
    ['try again at 8:00 AM', 60],
    ['try again at 7:59 AM', local(2026, 11, 1, 7, 59)], // a minute ago: tomorrow
    ['try again at 12:00 PM', 4 * H],
    ['try again at 12:30 AM', local(2026, 11, 1, 0, 30)],
    ['try again at 17:30', local(2026, 10, 30, 17, 30)],
    ['resets 3:45pm', local(2026, 10, 30, 15, 45)],
    ['resets at 5pm', local(2026, 10, 30, 17, 0)],
    ['try again at 9 a.m.', H],
    ['try again at 2026-12-03 14:00 UTC', utc(2026, 11, 3, 14, 0)],
    ['try again at 2026-12-03T14:00:00Z', utc(2026, 11, 3, 14, 0)],
    ['try again at 2026-12-03T14:00:00+02:00', utc(2026, 11, 3, 12, 0)],
    ['try again at 2026-12-03 14:00', local(2026, 11, 3, 14, 0)], // no zone: local
    ['retry at 2026-12-03 14:00 GMT+1', utc(2026, 11, 3, 13, 0)],
    // Codex, as printed by the real CLI (with the ordinal, and wrapped by a terminal)
    [
      "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at Dec 27th, 2026 4:59 AM.",
      local(2026, 11, 27, 4, 59),
    ],
    ["You've hit your usage limit. To get more access now, send a request to your admin or try again at Dec 2nd, 2026\n2:41 AM.", local(2026, 11, 2, 2, 41)],
    ['You’ve hit your usage limit for codex. Switch to another model now, or try again at 1:00 PM.', 5 * H],
    // Claude Code's words
    ["You've hit your limit · resets 5pm (Europe/Berlin)", utc(2026, 10, 30, 16, 0) < 0 ? utc(2026, 11, 1, 16, 0) : utc(2026, 10, 30, 16, 0)],
    ["You've hit your weekly limit · resets Dec 2, 8pm (America/New_York)", utc(2026, 11, 3, 1, 0)],
    ["You've hit your weekly limit · resets Aug 22, 8pm (America/New_York)", utc(2027, 7, 23, 0, 0)], // past this year: next year, in summer time
    ["You've hit your weekly limit · resets Mon 12:00am", local(2026, 11, 7, 0, 0)], // Monday already: next Monday
    ["You've hit your session limit · resets Wednesday 9:30am", local(2026, 11, 2, 9, 30)],
    ['resets 10:00 (UTC)', utc(2026, 10, 30, 10, 0) > 0 ? utc(2026, 10, 30, 10, 0) : utc(2026, 11, 1, 10, 0)],
    ['try again at 11:00 (Mars/Olympus)', local(2026, 10, 30, 11, 0)], // an unknown zone: local time
    ['Claude AI usage limit reached|1796100000', Math.ceil(1_796_100_000 - now / 1000)],
  ])('%j → %d s', (text, seconds) => {
    expect(statedRetryAfter(text, now)).toBe(Math.ceil(seconds));
  });

  it.each<string>([
    'try again at 2026-11-01 14:00 UTC', // already past: it has reset, 0
    'try again at Nov 1st, 2026 4:59 AM',
    'Claude AI usage limit reached|1700000000',
  ])('%j states a reset already past: 0 (try again now)', (text) => {
    expect(statedRetryAfter(text, now)).toBe(0);
  });

  it.each<string>([
    'try again at 25:00',
    'try again at 13:00 PM',
    'try again at 8:61',
    'resets monthly at 5pm',
    'try again at 5', // a number is not a time
    'try again later',
  ])('%j states no time', (text) => {
    expect(statedRetryAfter(text, now)).toBeUndefined();
  });

  it('reads no time without a clock', () => {
    expect(statedRetryAfter('try again at 8:49 AM')).toBeUndefined();
    expect(statedRetryAfter('try again at 8:49 AM', NaN)).toBeUndefined();
  });

  it('survives hostile text quickly', () => {
    const junk = 'try again at '.repeat(20_000) + 'retry in '.repeat(20_000) + '9'.repeat(100_000);
    const t0 = performance.now();
    expect(statedRetryAfter(junk, now)).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});

describe('adapters hold a limit for the stated time, on their injected clock', () => {
  const now = (): number => new Date(2026, 10, 30, 8, 0, 0).getTime();
  const blocked = (signals: Signal[]): Signal | undefined => signals.find((s) => s.kind === 'blocked');

  it('codex: "try again in 4 days 23 hours 10 minutes" and "try again at 8:49 AM"', () => {
    const fixture = fileURLToPath(new URL('../fixtures/codex/usage-limit.jsonl', import.meta.url));
    const lines = fs.readFileSync(fixture, 'utf8').split('\n').filter(Boolean);
    expect(foldSignals(feed(createCodexAdapter(), lines)).blocked).toEqual({ kind: 'limit', retry_after_s: 4 * D + 23 * H + 600 });
    const at = j({ type: 'turn.failed', error: { message: "You've hit your usage limit. Upgrade to Plus to continue using Codex, or try again at 8:49 AM." } });
    expect(blocked(createCodexAdapter({ now }).line(at))).toMatchObject({ blocked: 'limit', retry_after_s: 49 * 60 });
    expect(blocked(createDetectingAdapter({ now }).line(at))).toMatchObject({ blocked: 'limit', retry_after_s: 49 * 60 });
  });

  it('gemini: a quota error with a stated reset time', () => {
    const line = j({ type: 'result', status: 'error', error: { type: 'quota', message: 'Quota exceeded. Please retry at 2026-11-30 10:00 UTC+0' }, stats: {} });
    const eight = (): number => Date.UTC(2026, 10, 30, 8, 0);
    expect(blocked(createGeminiAdapter({ now: eight }).line(line))).toMatchObject({ blocked: 'limit', retry_after_s: 2 * H });
    const rel = j({ type: 'error', severity: 'error', message: 'Resource exhausted (429). Please retry in 1 hour and 30 minutes.' });
    expect(blocked(createGeminiAdapter({ now }).line(rel))).toMatchObject({ blocked: 'limit', retry_after_s: 5400 });
  });

  it('claude: the synthetic limit message, the failed result, and a rejected rate_limit_event', () => {
    const init = j({ type: 'system', subtype: 'init', session_id: 's', model: 'm', tools: [] });
    const msg = j({
      type: 'assistant',
      message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: "You've hit your limit · resets 5pm (Europe/Berlin)" }] },
      error: 'rate_limit',
    });
    const res = j({ type: 'result', subtype: 'success', is_error: true, result: "You've hit your limit · resets 5pm (Europe/Berlin)" });
    const fixed = (): number => Date.UTC(2026, 10, 30, 12, 0);
    const signals = feed(createClaudeAdapter({ now: fixed }), [init, msg, res]);
    expect(signals.filter((s) => s.kind === 'blocked')).toEqual([
      { kind: 'blocked', blocked: 'limit', message: "You've hit your limit · resets 5pm (Europe/Berlin)", retry_after_s: 4 * H },
    ]);
    // The result alone (no synthetic message before it) says it too.
    expect(blocked(feed(createClaudeAdapter({ now: fixed }), [init, res]))).toMatchObject({ blocked: 'limit', retry_after_s: 4 * H });
    const event = j({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: fixed() / 1000 + 1800, rateLimitType: 'five_hour' } });
    expect(blocked(createClaudeAdapter({ now: fixed }).line(event))).toMatchObject({ blocked: 'limit', retry_after_s: 1800 });
  });
});

describe('statedRetryAfter: a reset in the minute now running', () => {
  it('Claude Code at 16:01:13 saying "resets 4:01pm (UTC)" (a reset at 16:01:16) means seconds, not a day', () => {
    const now = Date.UTC(2026, 11, 3, 16, 1, 13);
    expect(statedRetryAfter("You've hit your limit · resets 4:01pm (UTC)", now)).toBe(47);
    // A minute on, the same words are tomorrow's.
    expect(statedRetryAfter("You've hit your limit · resets 4:01pm (UTC)", now + 60_000)).toBe(Math.ceil((Date.UTC(2026, 11, 4, 16, 1) - now - 60_000) / 1000));
  });
});
