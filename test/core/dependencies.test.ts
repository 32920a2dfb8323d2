import { describe, expect, it } from 'vitest';
import { dependencyVerdict, GraphError, planGraph, type InputState } from '../../src/core/dependencies.js';
import { waitingText } from '../../src/text/waiting.js';

const input = (name: string, status: InputState['status'], exit_reason: InputState['exit_reason'] = null): InputState => ({
  uuid: `u-${name}`,
  name,
  status,
  exit_reason,
});

describe('dependencyVerdict', () => {
  it('waits while an input has not ended, goes once each completed', () => {
    expect(dependencyVerdict(false, [input('a', 'ended', 'completed'), input('b', 'working')])).toEqual({ kind: 'wait', left: [input('b', 'working')] });
    expect(dependencyVerdict(false, [input('a', 'ended', 'completed'), input('b', 'ended', 'completed')])).toEqual({ kind: 'ready' });
  });
  it('cancels when one ended any other way (a queued one waiting to continue has not ended)', () => {
    expect(dependencyVerdict(false, [input('a', 'queued'), input('b', 'ended', 'killed')])).toEqual({ kind: 'cancel', detail: 'dependency b ended killed' });
    expect(dependencyVerdict(false, [{ uuid: 'u-x', gone: true }])).toEqual({ kind: 'cancel', detail: 'dependency u-x is not in the journal any more' });
  });
  it('--after-any: goes once each ended, however', () => {
    expect(dependencyVerdict(true, [input('a', 'ended', 'errored'), { uuid: 'u-x', gone: true }])).toEqual({ kind: 'ready' });
    expect(dependencyVerdict(true, [input('a', 'ended', 'errored'), input('b', 'idle')])).toMatchObject({ kind: 'wait' });
  });
});

describe('planGraph', () => {
  const line = (name: string | undefined, ...after: string[]) => ({ label: `line ${name}`, name, after });
  it('resolves names of the call first, then runs that exist', () => {
    expect(planGraph([line('a'), line('b', 'a', 'old')], (r) => (r === 'old' ? 'uuid-old' : null))).toEqual([[], [{ line: 0 }, { run: 'uuid-old' }]]);
  });
  it('refuses unknown names, self-references and cycles, naming the lines', () => {
    expect(() => planGraph([line('a', 'zz')], () => null)).toThrow(
      new GraphError('line a: "after" names "zz", which is neither a run of this call nor a run orcr knows'),
    );
    expect(() => planGraph([line('a', 'a')], () => 'x')).toThrow(/line a: "after" names the run itself/);
    expect(() => planGraph([line('a', 'c'), line('b', 'a'), line('c', 'b')], () => null)).toThrow('a cycle of "after": line a → line c → line b → line a');
  });
  it('takes a chain of 10,000 without overflowing the stack, and a diamond is no cycle', () => {
    const chain = Array.from({ length: 10_000 }, (_, i) => line(`r${i}`, ...(i > 0 ? [`r${i - 1}`] : [])));
    expect(planGraph(chain, () => null)).toHaveLength(10_000);
    expect(() => planGraph([line('d', 'b', 'c'), line('b', 'a'), line('c', 'a'), line('a')], () => null)).not.toThrow();
  });
});

describe('WHY of a dependent', () => {
  const w = { reason: 'after' as const, name: null, active: null, reserved: null, until: null, position: null };
  it('names the one it waits for, or how many are left', () => {
    expect(waitingText({ ...w, limit: 1, inputs: [{ uuid: 'm', name: 'migrate', status: 'working' }] })).toBe('after migrate (working)');
    expect(waitingText({ ...w, limit: 3, inputs: [{ uuid: 'b', name: 'b', status: 'queued' }] })).toBe('after 3 runs · 1 left (b queued)');
    expect(
      waitingText({
        ...w,
        limit: 3,
        inputs: [
          { uuid: 'b', name: 'b', status: 'queued' },
          { uuid: 'c', name: 'c', status: 'working' },
        ],
      }),
    ).toBe('after 3 runs · 2 left (b queued, …)');
  });
});
