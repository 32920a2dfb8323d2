// The fleet view's pure decisions: a machine's freshness by its heartbeat's
// age (the database's clock), one flush's batch out of the dirty set, and
// which published run a ref names from one machine (HOST:NAME, a uuid
// prefix, a bare name one other machine has, or several: ambiguous).

import { describe, expect, it } from 'vitest';
import { freshness, lookupPublished, takeBatch } from '../../src/core/fleet-view.js';

const row = (host: string, name: string, uuid: string, status = 'working') => ({ host, name, uuid, status });
const rows = [
  row('a', 'mine', 'aaaa1111'),
  row('b', 'fix', 'bbbb1111'),
  row('c', 'fix', 'cccc1111'),
  row('c', 'only-c', 'cccc2222'),
  row('b', 'old', 'bbbb2222', 'ended'),
  row('b', 'old', 'bbbb3333'),
];
const hosts = new Set(['a', 'b', 'c']);
const none = (): boolean => false;

describe('fleet view', () => {
  it('a machine is current, stale past stale_after, gone past gone_after or when not listed', () => {
    expect(freshness(500, 2000, 5000)).toBe('current');
    expect(freshness(2001, 2000, 5000)).toBe('stale');
    expect(freshness(5001, 2000, 5000)).toBe('gone');
    expect(freshness(null, 2000, 5000)).toBe('gone');
  });

  it('a flush takes at most its batch, oldest marked first; the rest wait', () => {
    const dirty = new Set(['x', 'y', 'z']);
    expect(takeBatch(dirty, 2)).toEqual(['x', 'y']);
    expect([...dirty]).toEqual(['z']);
    dirty.add('x');
    expect(takeBatch(dirty, 10)).toEqual(['z', 'x']);
    expect(dirty.size).toBe(0);
  });

  it('HOST:NAME and HOST:UUID-PREFIX name one run of that machine; an active one before an ended one of the same name', () => {
    expect(lookupPublished('b:fix', 'a', hosts, rows, none)).toMatchObject({ kind: 'found', run: { uuid: 'bbbb1111' } });
    expect(lookupPublished('c:cccc2', 'a', hosts, rows, none)).toMatchObject({ kind: 'found', run: { name: 'only-c' } });
    expect(lookupPublished('b:old', 'a', hosts, rows, none)).toMatchObject({ kind: 'found', run: { uuid: 'bbbb3333' } });
    expect(lookupPublished('b:nope', 'a', hosts, rows, none)).toEqual({ kind: 'none', host: 'b', ref: 'nope' });
  });

  it('a bare name: local first, then the one other machine that has it; two machines: ambiguous, naming both', () => {
    expect(lookupPublished('only-c', 'a', hosts, rows, none)).toMatchObject({ kind: 'found', run: { host: 'c' } });
    expect(lookupPublished('fix', 'a', hosts, rows, none)).toEqual({ kind: 'ambiguous', names: ['b:fix', 'c:fix'] });
    expect(lookupPublished('fix', 'a', hosts, rows, (r) => r === 'fix')).toEqual({ kind: 'local', ref: 'fix' });
    expect(lookupPublished('nothing', 'a', hosts, rows, none)).toEqual({ kind: 'local', ref: 'nothing' });
  });

  it('a ref whose prefix is no machine is a local name (names may hold a colon); self: is local', () => {
    expect(lookupPublished('zz:fix', 'a', hosts, rows, none)).toEqual({ kind: 'local', ref: 'zz:fix' });
    expect(lookupPublished('a:mine', 'a', hosts, rows, (r) => r === 'mine')).toEqual({ kind: 'local', ref: 'mine' });
    // A local run named the whole HOST:NAME as well: ambiguous, naming both.
    expect(lookupPublished('b:fix', 'a', hosts, rows, (r) => r === 'b:fix')).toEqual({ kind: 'ambiguous', names: ["b:fix (this machine's)", 'b:fix'] });
  });
});
