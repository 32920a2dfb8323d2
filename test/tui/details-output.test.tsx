// The details view's output with a real supervisor: the run as the
// transcript pager and `orcr logs --pretty` read it (the prompt, what the
// agent said, tool calls, turn ends), never raw stream-json unless asked:
// `r` shows the raw lines and goes back; the footer and help name the key.
// A live run is followed as it writes; `v` opens the pager on the same
// document.

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

/** The details' output pane: the lines under its title, down to the footer. */
function outputPane(frame: string): string[] {
  const ls = frame.split('\n');
  const at = ls.findIndex((l) => /^─ (Transcript|Raw output|Output)/.test(l));
  return at < 0 ? [] : ls.slice(at, -2);
}

describe('the details view shows the readable transcript', () => {
  it('a finished Claude run reads as a conversation; r shows the raw lines and goes back; the footer says r', async () => {
    const h = (home = new Home());
    const lines = fs.readFileSync(path.join(ROOT, 'test/fixtures/claude/two-turns.jsonl'), 'utf8').split('\n').filter(Boolean);
    const agent = path.join(h.dir, 'claude.sh');
    fs.writeFileSync(agent, `#!/bin/sh\n${lines.map((l) => `printf '%s\\n' '${l.replace(/'/g, `'\\''`)}'`).join('\n')}\nexit 0\n`, { mode: 0o755 });
    h.run(['-n', 'tx', '--protocol', 'claude', '-p', 'Make the tests pass', '--', agent]);
    // The session meets a rate limit (claude's api_retry, blocked a moment): a wait begun then settles there. Read it once ended.
    await until(() => h.json<{ status: string }>(['show', 'tx']).status === 'ended', 'the run to end');
    expect(h.cli(['wait', 'tx']).stdout.trim()).toBe('tx completed');
    const ui = (app = liveApp(h, { columns: 120, rows: 40 }));
    await ui.until((f) => /■ ended\s+completed\s+tx/.test(f), 'the run');
    await ui.press(KEY.enter);
    let f = await ui.until((x) => x.includes('Details: tx') && x.includes('── turn 2 done'), 'the transcript in details');
    let out = outputPane(f).join('\n');
    expect(out).toContain('⏺ Bash npm test');
    expect(out).toMatch(/── turn 1 done/);
    expect(out).not.toContain('"type":');
    expect(outputPane(f)[0]).toMatch(/^─ Transcript/);
    const keys = f.split('\n').at(-1)!;
    expect(keys).toContain('r raw lines');

    await ui.press('r');
    f = await ui.until((x) => outputPane(x).join('\n').includes('"type":"assistant"'), 'the raw lines');
    expect(outputPane(f)[0]).toMatch(/^─ Raw output/);
    await ui.press('r');
    f = await ui.until((x) => outputPane(x).join('\n').includes('── turn 2 done'), 'the transcript again');
    out = outputPane(f).join('\n');
    expect(out).not.toContain('"type":');

    // The pager opens on it, and esc comes back to the transcript in details.
    await ui.press('v');
    await ui.until((x) => x.includes('Transcript: tx') && x.includes('› Make the tests pass'), 'the pager');
    await ui.press(KEY.esc);
    await ui.until((x) => x.includes('Details: tx') && outputPane(x).join('\n').includes('── turn 2 done'), 'back in details');
    // The help names the key too.
    await ui.press('?');
    f = await ui.until((x) => x.includes('Help — keys'), 'the help');
    expect(f).toMatch(/(^|\s)r\s\s+details, pager: raw lines/m);
  });

  it('follows a live run: what the agent says after a send shows in details without leaving them', async () => {
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
    const ui = (app = liveApp(home, { columns: 120, rows: 40 }));
    await ui.until((f) => /◇ idle\s+.*chat/.test(f), 'the idle run');
    await ui.press(KEY.enter);
    await ui.until((f) => f.includes('Details: chat') && outputPane(f).join('\n').includes('── turn 1 done'), 'the first turn in details');
    expect(home.cli(['send', 'chat', 'second ask']).code).toBe(0);
    const f = await ui.until((x) => outputPane(x).join('\n').includes('── turn 2 done'), 'the turn after the send');
    const out = outputPane(f).join('\n');
    expect(out).toContain('› second ask');
    expect(out).not.toContain('"type":');
  });
});
