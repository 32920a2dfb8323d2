// As root, the test PostgreSQL server runs through runuser, which Debian keeps
// in /usr/sbin: a root shell whose PATH lacks it (an `env -i`, a plain `su`)
// made every cluster suite skip ("the postgres user can enter none of /tmp…"),
// which CI=true fails. The tools are found by absolute path instead.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sbin } from '../../bench/lib/pg-server.js';
import { itWhen } from '../support/skip.js';

const saved = process.env.PATH;
afterEach(() => {
  process.env.PATH = saved;
});

describe('sbin', () => {
  itWhen({ reason: fs.existsSync('/usr/sbin/runuser') ? null : 'no /usr/sbin/runuser on this system', optional: true }, 'finds runuser in /usr/sbin when PATH does not name it', () => {
    process.env.PATH = '/nonexistent';
    expect(sbin('runuser')).toBe('/usr/sbin/runuser');
  });
  it('prefers what PATH finds, and leaves an unknown name as it is', () => {
    process.env.PATH = `/nonexistent:${process.execPath.replace(/\/node$/, '')}`;
    expect(sbin('node')).toBe(process.execPath);
    expect(sbin('no-such-tool-orcr')).toBe('no-such-tool-orcr');
  });
});
