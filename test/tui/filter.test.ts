// The runs filter's language: plain words as before, key:value and key>n
// terms, negation, combinations, and a term that does not parse said in words.

import './no-ci.js';
import { describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/tui/state/filter.js';
import { computeView } from '../../src/tui/state/runs-view.js';
import { reduceFilter, reduceSnapshot } from '../../src/tui/state/reducers.js';
import { initialState } from '../../src/tui/state/store.js';
import { run, T0 } from './fixtures.js';

const fleet = [
  run({
    name: 'review-api',
    provider: 'claude',
    workload: 'review',
    status: 'working',
    cost_usd: 0.8,
    turns: 4,
    tokens: { input: 9000, output: 1000, cached: 0 },
  }),
  run({ name: 'review-ui', provider: 'codex', workload: 'review', status: 'queued', cost_usd: 0 }),
  run({ name: 'fix-login', provider: 'claude', workload: 'default', status: 'ended', exit_reason: 'errored', cost_usd: 0.3, turns: 2 }),
  run({ name: 'docs', provider: 'gemini', workload: 'default', status: 'blocked', blocked_kind: 'login', cost_usd: 0.51 }),
];
const names = (text: string): string[] => fleet.filter((r) => parseFilter(text).test(r)).map((r) => r.name);

describe('the filter language', () => {
  it('plain words still match anywhere, all of them', () => {
    expect(names('review')).toEqual(['review-api', 'review-ui']);
    expect(names('review claude')).toEqual(['review-api']);
    expect(names('LOGIN')).toEqual(['fix-login', 'docs']);
    expect(parseFilter('   ').empty).toBe(true);
  });

  it('key:value narrows by one field, with globs, lists and short keys', () => {
    expect(names('status:queued')).toEqual(['review-ui']);
    expect(names('s:queued,working')).toEqual(['review-api', 'review-ui']);
    expect(names('provider:claude')).toEqual(['review-api', 'fix-login']);
    expect(names('a:claude')).toEqual(['review-api', 'fix-login']);
    expect(names('name:review-*')).toEqual(['review-api', 'review-ui']);
    // A name without a wildcard is the whole name, not a part of it.
    expect(names('name:review')).toEqual([]);
    expect(names('reason:errored')).toEqual(['fix-login']);
    expect(names('reason:login')).toEqual(['docs']);
    expect(names('w:review')).toEqual(['review-api', 'review-ui']);
  });

  it('numbers compare: cost, tokens, turns', () => {
    expect(names('cost>0.5')).toEqual(['review-api', 'docs']);
    expect(names('cost>=0.8')).toEqual(['review-api']);
    expect(names('cost<0.1')).toEqual(['review-ui']);
    expect(names('tokens>5000')).toEqual(['review-api']);
    expect(names('turns=2')).toEqual(['fix-login']);
  });

  it('combines terms with AND, and - negates one', () => {
    expect(names('provider:claude cost>0.5')).toEqual(['review-api']);
    expect(names('-status:ended provider:claude')).toEqual(['review-api']);
    expect(names('-review')).toEqual(['fix-login', 'docs']);
  });

  it('a term that does not parse is said, each one', () => {
    const f = parseFilter('cost>abc colour:red provider: status:working');
    expect(f.problems).toEqual([
      'cost>abc: cost takes a number',
      'colour:red: no field colour (status, provider, workload, name, reason, protocol, cost, tokens, turns)',
      'provider:: provider needs a value',
    ]);
    expect(parseFilter('size>3').problems).toEqual(['size>3: size is not a number field (cost, tokens, turns are)']);
    expect(parseFilter('cost>').problems).toEqual(['cost>: cost takes a number']);
    expect(parseFilter('cost>1e999').problems).toEqual(['cost>1e999: cost takes a number']);
  });

  it('a status, reason or protocol no run can have is a mistake, said with the values there are; globs must match one', () => {
    expect(parseFilter('status:bogus').problems).toEqual(['status:bogus: no status bogus (queued, starting, working, idle, blocked, ended)']);
    expect(parseFilter('s:queued,wroking').problems).toEqual(['s:queued,wroking: no status wroking (queued, starting, working, idle, blocked, ended)']);
    expect(parseFilter('-status:nope').problems).toHaveLength(1);
    expect(parseFilter('status:x*').problems).toHaveLength(1);
    expect(parseFilter('reason:erored').problems[0]).toMatch(/^reason:erored: no reason erored \(completed, errored, .*limit, login, question, unknown\)$/);
    expect(parseFilter('protocol:json').problems[0]).toBe('protocol:json: no protocol json (claude, codex, gemini, jsonl, plain)');
    for (const good of ['status:w*', 'status:QUEUED', 'reason:login', 'reason:taken_over', 'protocol:jsonl', 'provider:anything-at-all'])
      expect(parseFilter(good).problems, good).toEqual([]);
  });

  it('the runs view and the filter reducer use it; a filter with a bad term is not applied, and says why', () => {
    const byId = Object.fromEntries(fleet.map((r) => [r.uuid, r]));
    const view = computeView(byId, { filter: 'status:working,blocked', showAll: true });
    expect(view.ids.map((id) => byId[id]!.name).sort()).toEqual(['docs', 'review-api']);
    const s = { ...initialState(), ...reduceSnapshot(initialState(), { seq: 1, runs: fleet }, T0) };
    const good = reduceFilter({ ...s, showAll: true }, 'provider:gemini');
    expect(good.view!.ids.map((id) => byId[id]!.name)).toEqual(['docs']);
    expect(good.problem).toBeUndefined();
    const bad = reduceFilter({ ...s, showAll: true, filter: 'provider:gemini' }, 'cost>x provider:gemini');
    expect(bad).toEqual({ problem: 'cost>x: cost takes a number' });
  });
});
