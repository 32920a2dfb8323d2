// Where a call on runs goes in a cluster, whether a machine may be sent a
// command, and the owner's answer as the caller shows it: pure decisions.

import { describe, expect, it } from 'vitest';
import { ago, machineVerdict, placeCall, remoteWho, renameAnswer } from '../../src/core/cluster-commands.js';
import { METHODS } from '../../src/protocol/methods.js';

const c = { self: 'a', name: 'team', hosts: new Set(['a', 'b', 'c']) };
const none = (): boolean => false;

describe('placeCall', () => {
  it('a call naming only local runs stays here; a method the table does not mark remote is always local', () => {
    expect(placeCall(METHODS['run.kill'].remote, { refs: ['fix', 'a:fix'] }, c, none)).toEqual({ kind: 'local' });
    expect(placeCall(METHODS['run.takeover'].remote, { ref: 'b:fix' }, c, none)).toEqual({ kind: 'local' });
  });

  it("another machine's refs go there as its own names; the caller's params for this machine only are dropped", () => {
    const p = placeCall(METHODS['run.wait'].remote, { refs: ['b:fix', 'b:x:y'], caller_env: { ORCR_RUN: 'u' }, timeout_ms: 5 }, c, none);
    expect(p).toEqual({
      kind: 'remote',
      host: 'b',
      params: { refs: ['fix', 'x:y'], timeout_ms: 5 },
      renamed: new Map([
        ['fix', 'b:fix'],
        ['x:y', 'b:x:y'],
      ]),
    });
    const one = placeCall(METHODS['run.send'].remote, { ref: 'c:chat', text: 'hi' }, c, none);
    expect(one).toMatchObject({ kind: 'remote', host: 'c', params: { ref: 'chat', text: 'hi' } });
    const ans = placeCall(METHODS['approval.answer'].remote, { targets: ['b:12'], verdict: 'allow', via: 'cli', caller: 'u' }, c, none);
    expect(ans).toMatchObject({ kind: 'remote', host: 'b', params: { targets: ['12'], verdict: 'allow', via: 'cli' } });
    expect((ans as { params: object }).params).not.toHaveProperty('caller');
  });

  it('a name with a colon whose prefix is no machine is a local name; unknown as a run too, it names both', () => {
    expect(placeCall(METHODS['run.kill'].remote, { refs: ['fix:1'] }, c, (r) => r === 'fix:1')).toEqual({ kind: 'local' });
    expect(placeCall(METHODS['run.kill'].remote, { refs: ['zz:fix'] }, c, none)).toEqual({
      kind: 'refused',
      code: 'not_found',
      message: 'no run "zz:fix" here, and no machine "zz" in cluster "team"',
    });
  });

  it('a local run named like a remote ref is ambiguous; refs of two machines in one call are refused', () => {
    expect(placeCall(METHODS['run.kill'].remote, { refs: ['b:fix'] }, c, (r) => r === 'b:fix')).toMatchObject({ kind: 'refused', code: 'ambiguous' });
    expect(placeCall(METHODS['run.kill'].remote, { refs: ['b:fix', 'c:fix'] }, c, none)).toMatchObject({ kind: 'refused', code: 'usage' });
    expect(placeCall(METHODS['run.kill'].remote, { refs: ['b:fix', 'here'] }, c, (r) => r === 'here')).toMatchObject({ kind: 'refused', code: 'usage' });
  });

  it('--host names the machine: dropped from the params it is sent; this machine or an unknown one', () => {
    expect(placeCall(METHODS['queue.pause'].remote, { paused: true, host: 'b' }, c, none)).toEqual({
      kind: 'remote',
      host: 'b',
      params: { paused: true },
      renamed: new Map(),
    });
    expect(placeCall(METHODS['queue.pause'].remote, { paused: true, host: 'a' }, c, none)).toEqual({ kind: 'local' });
    expect(placeCall(METHODS['provider.resume'].remote, { provider: 'x', host: 'q' }, c, none)).toMatchObject({ kind: 'refused', code: 'not_found' });
  });
});

describe('machineVerdict', () => {
  it('refuses an unknown machine, a stale one naming when it was last heard, and one that takes no commands', () => {
    expect(machineVerdict('b', 'team', null, 2000)).toMatchObject({ code: 'not_found' });
    expect(machineVerdict('b', 'team', { age_ms: 125_000, accept_commands: true }, 30_000)).toEqual({
      code: 'unavailable',
      message: 'machine b is not answering (last heard 2m ago); nothing was sent to it',
    });
    expect(machineVerdict('b', 'team', { age_ms: 100, accept_commands: false }, 30_000)).toMatchObject({ code: 'refused' });
    expect(machineVerdict('b', 'team', { age_ms: 100, accept_commands: true }, 30_000)).toBeNull();
  });

  it('ages read roughly', () => {
    expect([ago(400), ago(1400), ago(90_000), ago(7_200_000), ago(200_000_000)]).toEqual(['400ms', '1s', '2m', '2h', '2d']);
  });
});

describe('the answer as the caller shows it', () => {
  it("names the owner's runs HOST:NAME, gives requests their host, restores the refs given", () => {
    const renamed = new Map([['fix', 'b:fix']]);
    expect(renameAnswer({ results: [{ ref: 'fix', name: 'fix', uuid: 'u1', action: 'killing' }] }, 'b', renamed)).toEqual({
      results: [{ ref: 'b:fix', name: 'b:fix', uuid: 'u1', action: 'killing' }],
    });
    expect(renameAnswer({ results: [{ target: '12', id: 12, run: 'u1', state: 'allowed' }] }, 'b', new Map([['12', 'b:12']]))).toEqual({
      results: [{ target: 'b:12', id: 12, run: 'u1', state: 'allowed', host: 'b' }],
    });
  });

  it('who answered names the machine it came from', () => {
    expect(remoteWho('a', 'alice, pts/3')).toBe('alice, pts/3 on a (via cluster)');
    expect(remoteWho('a', null)).toBe('a (via cluster)');
    expect(remoteWho('a', 'x'.repeat(300))).toHaveLength(200);
  });
});
