import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerLog } from '../../src/server/server-log.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('server.log', () => {
  it('rotates past its size, keeps three old files, and is owner-only', () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-log-'));
    dirs.push(d);
    const file = path.join(d, 'server.log');
    const log = new ServerLog(file, 1000, 3);
    for (let i = 0; i < 200; i++) log.write(`line ${i} ${'x'.repeat(40)}`);
    log.close();
    const names = fs.readdirSync(d).sort();
    expect(names).toEqual(['server.log', 'server.log.1', 'server.log.2', 'server.log.3']);
    for (const n of names) {
      expect(fs.statSync(path.join(d, n)).size).toBeLessThan(1100);
      expect(fs.statSync(path.join(d, n)).mode & 0o077).toBe(0);
    }
    // The newest lines are in server.log, the ones before in .1.
    expect(fs.readFileSync(file, 'utf8')).toMatch(/line 199 /);
    const one = fs.readFileSync(`${file}.1`, 'utf8').trim().split('\n');
    const cur = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(Number(one[one.length - 1]!.split(' ')[1]) + 1).toBe(Number(cur[0]!.split(' ')[1]));
  });
});
