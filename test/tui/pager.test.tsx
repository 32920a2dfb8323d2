// The transcript pager with a real supervisor: v in details shows the run as
// a conversation (the prompt, tool calls on one line with their results
// folded, turn ends), / searches with n, enter expands the results, r shows
// the raw lines and e the stderr, esc goes back; a live run is followed.

import './no-ci.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY } from './helpers.js';
import { until } from '../support/harness.js';
import { Home, MOCK_AGENT, ROOT } from './home.js';
import { liveApp, type LiveApp } from './live-app.js';

let home: Home | null = null;
let app: LiveApp | null = null;

afterEach(() => {
  app?.close();
  app = null;
  home?.cleanup();
  home = null;
});

function open(h: Home): LiveApp {
  app = liveApp(h, { columns: 100, rows: 30 });
  return app;
}

describe('the transcript pager', () => {
  it('reads a finished Claude run as a conversation; searches, expands, shows raw lines and stderr; esc goes back', async () => {
    const h = (home = new Home());
    const lines = fs.readFileSync(path.join(ROOT, 'test/fixtures/claude/two-turns.jsonl'), 'utf8').split('\n').filter(Boolean);
    const agent = path.join(h.dir, 'claude.sh');
    const body = lines.map((l) => `printf '%s\\n' '${l.replace(/'/g, `'\\''`)}'`).join('\n');
    fs.writeFileSync(agent, `#!/bin/sh\n${body}\necho 'warning: on stderr' >&2\nexit 0\n`, { mode: 0o755 });
    h.run(['-n', 'tx', '--protocol', 'claude', '-p', 'Make the tests pass', '--', agent]);
    // The session meets a rate limit (claude's api_retry, blocked a moment): a wait begun then settles there. Read it once ended.
    await until(() => h.json<{ status: string }>(['show', 'tx']).status === 'ended', 'the run to end');
    expect(h.cli(['wait', 'tx']).stdout.trim()).toBe('tx completed');
    const ui = open(h);
    await ui.until((f) => /■ ended\s+completed\s+tx/.test(f), 'the run');
    await ui.press(KEY.enter);
    await ui.until((f) => f.includes('Details: tx'), 'the details');
    await ui.press('v');
    let f = await ui.until((x) => x.includes('⏺ Bash npm test'), 'the transcript');
    expect(f).toContain('› Make the tests pass');
    expect(f).toMatch(/⎿ > vitest run \(\+2 lines\)/);
    expect(f).toMatch(/── turn 1 done/);
    expect(f).not.toContain('"type":"assistant"');
    // Expanded: the whole result.
    await ui.press(KEY.enter);
    f = await ui.until((x) => !x.includes('(+2 lines)'), 'the results expanded');
    // Search: the match is shown, n goes on.
    await ui.press('/');
    for (const ch of 'Edit') await ui.press(ch);
    await ui.press(KEY.enter);
    f = await ui.until((x) => x.includes('⏺ Edit /w/repo/src/math.test.ts'), 'the match');
    // Raw lines, then stderr, then back.
    await ui.press('r');
    await ui.until((x) => x.includes('"type":"assistant"'), 'the raw lines');
    await ui.press('e');
    await ui.until((x) => x.includes('warning: on stderr'), 'stderr');
    await ui.press(KEY.esc);
    await ui.until((x) => x.includes('Details: tx') && !x.includes('warning: on stderr'), 'back in details');
  });

  it('follows a live run: a send while it is open shows where it was asked, and what the agent says after it', async () => {
    home = new Home();
    home.run([
      '-n',
      'chat',
      '--interactive',
      '--protocol',
      'claude',
      '-p',
      'first ask',
      '--',
      process.execPath,
      MOCK_AGENT,
      '--format',
      'claude',
      '--scenario',
      'interactive',
      '--delay',
      '20',
    ]);
    expect(home.cli(['wait', 'chat']).stdout.trim()).toBe('chat turn_complete');
    const ui = open(home);
    await ui.until((f) => /◇ idle\s+.*chat/.test(f), 'the idle run');
    await ui.press(KEY.enter, 'v');
    await ui.until((f) => f.includes('› first ask') && /── turn 1 done/.test(f), 'the first turn');
    expect(home.cli(['send', 'chat', 'second ask']).code).toBe(0);
    const f = await ui.until((x) => x.includes('› second ask') && /── turn 2 done/.test(x), 'the send and the turn after it');
    expect(f.indexOf('› second ask')).toBeGreaterThan(f.indexOf('── turn 1 done'));
  });
});
