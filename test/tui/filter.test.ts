// The runs filter's language: plain words as before, key:value and key>n
// terms, negation, combinations, and a term that does not parse said in words.

import './no-ci.js';
import { describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/tui/state/filter.js';
import { computeView } from '../../src/tui/state/runs.js';
import { reduceFilter, reduceSnapshot } from '../../src/tui/state/reducers.js';
import { initialState, type TuiState } from '../../src/tui/state/store.js';
import { run, T0 } from './fixtures.js';

const fleet = [
  run({ name: 'review-api', provider: 'claude', workload: 'review', status: 'working', cost_usd: 0.8, turns: 4, tokens: { input: 9000, output: 1000, cached: 0 } }),
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

  it('a term that does not parse is said, and the others still apply', () => {
    const f = parseFilter('cost>abc colour:red provider: status:working');
    expect(f.problems).toEqual([
      'cost>abc: cost takes a number',
      'colour:red: no field colour (status, provider, workload, name, reason, protocol, cost, tokens, turns)',
      'provider:: provider needs a value',
    ]);
    expect(fleet.filter((r) => f.test(r)).map((r) => r.name)).toEqual(['review-api']);
    expect(parseFilter('size>3').problems).toEqual(['size>3: size is not a number field (cost, tokens, turns are)']);
  });

  it('the runs view and the filter reducer use it; a bad term reaches the footer', () => {
    const byId = Object.fromEntries(fleet.map((r) => [r.uuid, r]));
    const view = computeView(byId, { filter: 'status:working,blocked', showAll: true });
    expect(view.ids.map((id) => byId[id]!.name).sort()).toEqual(['docs', 'review-api']);
    const s = { ...initialState(), ...reduceSnapshot(initialState(), { seq: 1, runs: fleet }, T0) } as TuiState;
    const patch = reduceFilter({ ...s, showAll: true }, 'cost>x provider:gemini');
    expect(patch.view!.ids.map((id) => byId[id]!.name)).toEqual(['docs']);
    expect(patch.message?.kind).toBe('error');
    expect(patch.message?.text).toBe('filter: cost>x: cost takes a number — the other terms apply');
    expect(reduceFilter(s, 'provider:gemini').message).toBeUndefined();
  });
});
