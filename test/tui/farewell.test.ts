// What orcr-tui says as it quits, read as sentences at every count: none,
// one and many runs left going, a supervisor gone or never reached, and the
// demo's take-down.

import { describe, expect, it } from 'vitest';
import { byeText, demoFailedText, demoLeftText, demoStoppedText, demoStoppingText } from '../../src/tui/view/farewell.js';

const base = { home: '/home/me/.orcr', pid: 4321, loaded: true, up: true };

/** Each sentence starts with a capital (after the prefix and "bye.") and ends with a full stop. */
function sentences(text: string): string[] {
  expect(text.endsWith('\n')).toBe(true);
  expect(text.split('\n')).toHaveLength(2);
  const body = text.trim().replace(/^orcr-tui: /, '');
  // Split after a full stop that is followed by a space (not inside a path or `orcr ps`).
  const out = body.split(/(?<=[.…])\s+(?=[A-Z`0-9/])/);
  for (const s of out) expect(s, s).toMatch(/[.…]$/);
  return out;
}

describe('the exit message', () => {
  it('no run left: says so, and that the supervisor keeps running', () => {
    const t = byeText({ ...base, active: {} });
    expect(t).toBe('orcr-tui: bye. No run is active; the supervisor (pid 4321) of /home/me/.orcr keeps running.\n');
    sentences(t);
  });

  it('one run: "1 working run has not ended: it keeps going …", and `orcr ps` lists it', () => {
    const t = byeText({ ...base, active: { working: 1 } });
    expect(t).toBe('orcr-tui: bye. 1 working run has not ended: it keeps going under the supervisor (pid 4321) of /home/me/.orcr. `orcr ps` lists it.\n');
    expect(sentences(t)).toHaveLength(3);
  });

  it('many runs: counted by status, live ones first', () => {
    const t = byeText({ ...base, active: { queued: 2, working: 3, idle: 1 } });
    expect(t).toBe(
      'orcr-tui: bye. 6 runs (3 working, 1 idle, 2 queued) have not ended: they keep going under the supervisor (pid 4321) of /home/me/.orcr. `orcr ps` lists them.\n',
    );
    expect(sentences(t)).toHaveLength(3);
  });

  it('a supervisor gone, or never reached: says what is known', () => {
    const gone = byeText({ ...base, up: false, active: { working: 1 } });
    expect(gone).toBe(
      'orcr-tui: bye. When the supervisor (pid 4321) of /home/me/.orcr was last seen, 1 working run had not ended; it may still be going. `orcr ps` lists it.\n',
    );
    sentences(gone);
    const never = byeText({ ...base, pid: null, loaded: false, up: false, active: {} });
    expect(never).toBe('orcr-tui: bye. No runs were shown: the supervisor of /home/me/.orcr did not answer. `orcr ps` lists them once it runs.\n');
    sentences(never);
  });

  it('the demo: stopping, then stopped (none, one, many runs; strays; the folder removed or not)', () => {
    const dir = '/tmp/orcr-demo-x';
    expect(demoStoppingText(dir)).toBe("orcr-tui: stopping the demo's agents and its supervisor, then removing /tmp/orcr-demo-x…\n");
    const none = demoStoppedText({ stopped: 0, strays: 0, removed: true }, dir);
    expect(none).toBe('orcr-tui: the demo is stopped. No run was still going, and its supervisor stopped. /tmp/orcr-demo-x is removed.\n');
    const one = demoStoppedText({ stopped: 1, strays: 1, removed: true }, dir);
    expect(one).toBe('orcr-tui: the demo is stopped. 1 run was ended and its supervisor stopped. 1 stray process was killed. /tmp/orcr-demo-x is removed.\n');
    const many = demoStoppedText({ stopped: 12, strays: 3, removed: false }, dir);
    expect(many).toBe(
      'orcr-tui: the demo is stopped. 12 runs were ended and its supervisor stopped. 3 stray processes were killed. /tmp/orcr-demo-x could not be removed: remove it yourself.\n',
    );
    for (const t of [none, one, many]) sentences(t);
    expect(demoFailedText(dir, 'connect ECONNREFUSED')).toBe(
      'orcr-tui: could not stop the demo (connect ECONNREFUSED). To stop it yourself: ORCR_HOME=/tmp/orcr-demo-x orcr server stop --kill-agents, then remove the folder.\n',
    );
    expect(demoLeftText(dir)).toBe(
      'orcr-tui: left the demo as it was. To stop it yourself: ORCR_HOME=/tmp/orcr-demo-x orcr server stop --kill-agents, then remove the folder.\n',
    );
  });

  it('a home path with control characters is printed as plain characters', () => {
    const t = byeText({ ...base, home: '/tmp/a\x1b[2Jb\nc', active: {} });
    expect(t).not.toMatch(/[\x00-\x09\x0b-\x1f]/);
    expect(t).toContain('/tmp/ab c');
    expect(demoStoppedText({ stopped: 0, strays: 0, removed: true }, '/tmp/x\x07y')).not.toContain('\x07');
  });
});
