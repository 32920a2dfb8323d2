// config.json `notify`: defaults, and refusals that name the key (and never repeat a URL, which may be a secret).

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { NOTIFY_EVENTS } from '../../src/core/notify-policy.js';

const refusal = (notify: unknown): string => {
  try {
    parseConfig({ notify });
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('accepted');
};

describe('config notify', () => {
  it('is absent unless given; given, every key is optional: all six events, a 5 s batch, no desktop', () => {
    expect(parseConfig({}).notify).toBeUndefined();
    expect(parseConfig({ notify: {} }).notify).toEqual({ desktop: false, events: [...NOTIFY_EVENTS], batch: 5000 });
    const full = parseConfig({
      notify: {
        webhook: 'http://127.0.0.1:9/h',
        ntfy: 'https://ntfy.sh/t',
        command: ['notify-me', '-q'],
        desktop: true,
        events: ['blocked', 'loop'],
        batch: '1m',
      },
    }).notify;
    expect(full).toEqual({
      webhook: 'http://127.0.0.1:9/h',
      ntfy: 'https://ntfy.sh/t',
      command: ['notify-me', '-q'],
      desktop: true,
      events: ['blocked', 'loop'],
      batch: 60_000,
    });
  });

  it('refuses a bad URL, an empty command, an unknown event, a bad batch and an unknown key, naming the key', () => {
    expect(refusal({ webhook: 'ftp://token-abc@host/x' })).toBe('config.json: notify.webhook: must be an http:// or https:// URL');
    expect(refusal({ ntfy: 'not a url' })).toBe('config.json: notify.ntfy: must be an http:// or https:// URL');
    expect(refusal({ command: [] })).toBe('config.json: notify.command: must name a program');
    expect(refusal({ command: [''] })).toBe('config.json: notify.command: must name a program');
    expect(refusal({ events: ['blocked', 'ended'] })).toMatch(
      /^config\.json: notify\.events\.1: unknown event "ended" \(one of ended_not_completed, blocked, /,
    );
    expect(refusal({ batch: '5 parsecs' })).toMatch(/^config\.json: notify\.batch: must be a duration such as .* \(unknown unit "parsecs"\), got "5 parsecs"$/);
    expect(refusal({ batch: -1 })).toMatch(/^config\.json: notify\.batch: /);
    expect(refusal({ desktop: 'yes' })).toMatch(/^config\.json: notify\.desktop: /);
    expect(refusal({ email: 'me@example.com' })).toBe('config.json: notify.email: unknown key');
  });
});
