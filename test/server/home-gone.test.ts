// A home deleted or its lock file removed under a running supervisor (issue
// 26): it notices, admits nothing more and exits, so a new supervisor for a
// recreated home is never a second writer beside it. Real supervisors.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, until, useHomes } from '../support/harness.js';

const home = useHomes();

describe('the home gone from under the supervisor', () => {
  it('exits when its home is deleted', async () => {
    const h = home();
    expect(h.cli(['ps']).code).toBe(0);
    const pid = h.serverPid()!;
    fs.rmSync(h.dir, { recursive: true, force: true });
    await until(() => !alive(pid), 'the supervisor to exit', 20_000, 100);
  });

  it('exits when its lock file is removed, and the next supervisor is the only one', async () => {
    const h = home();
    expect(h.cli(['ps']).code).toBe(0);
    const pid = h.serverPid()!;
    fs.rmSync(path.join(h.dir, 'server.lock'));
    await until(() => !alive(pid), 'the supervisor to exit', 20_000, 100);
    expect(h.cli(['ps']).code).toBe(0);
    const next = h.serverPid()!;
    expect(next).not.toBe(pid);
    expect(alive(next)).toBe(true);
  });
});
