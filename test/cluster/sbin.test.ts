// As root, the test PostgreSQL server runs through runuser, which Debian keeps
// in /usr/sbin: a root shell whose PATH lacks it (an `env -i`, a plain `su`)
// made every cluster suite skip ("the postgres user can enter none of /tmp…"),
// which CI=true fails. The tools are found by absolute path instead.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { pgUnavailable, sbin, serverParent } from '../../bench/lib/pg-server.js';
import { itWhen } from '../support/skip.js';

const saved = process.env.PATH;
afterEach(() => {
  process.env.PATH = saved;
});

describe('sbin', () => {
  itWhen(
    { reason: fs.existsSync('/usr/sbin/runuser') ? null : 'no /usr/sbin/runuser on this system', optional: true },
    'finds runuser in /usr/sbin when PATH does not name it',
    () => {
      process.env.PATH = '/nonexistent';
      expect(sbin('runuser')).toBe('/usr/sbin/runuser');
    },
  );
  it('prefers what PATH finds, and leaves an unknown name as it is', () => {
    process.env.PATH = `/nonexistent:${process.execPath.replace(/\/node$/, '')}`;
    expect(sbin('node')).toBe(process.execPath);
    expect(sbin('no-such-tool-orcr')).toBe('no-such-tool-orcr');
  });
});

describe('the folder for a test server, as root', () => {
  const rootHere = process.getuid?.() === 0 && fs.existsSync('/usr/sbin/runuser');
  itWhen(
    { reason: rootHere ? null : 'not root (or no runuser): the server runs as the caller', optional: true },
    'is found when PATH holds only folders the postgres user cannot enter (tools run by absolute path)',
    () => {
      // A PATH like CI's Node 24 under /root: a closed folder first, with a `test` in it the postgres user cannot reach.
      const closed = fs.mkdtempSync(path.join(os.homedir(), '.orcr-closed-'));
      onTestFinished(() => fs.rmSync(closed, { recursive: true, force: true }));
      fs.chmodSync(closed, 0o700);
      fs.copyFileSync('/usr/bin/test', path.join(closed, 'test'));
      process.env.PATH = `${closed}:${path.dirname(process.execPath)}`;
      expect(serverParent()).not.toBeNull();
      expect(pgUnavailable()).toBeNull();
    },
  );
});
