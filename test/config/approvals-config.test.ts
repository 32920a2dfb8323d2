// config.json's `approvals`, at the top, for a provider and for a workload:
// rules in Claude Code's syntax (one that does not read is refused at load,
// named), a timeout as a duration or "never", what a deadline decides.

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';

describe('config approvals', () => {
  it('reads the three scopes: rules, a timeout ("never": none) and on_timeout', () => {
    const c = parseConfig({
      approvals: { allow: ['Read', 'Bash(npm test:*)'], deny: ['Bash(rm:*)'], ask: ['WebFetch(domain:example.com)'], timeout: '10m', on_timeout: 'deny' },
      providers: { claude: { approvals: { allow: ['Edit(src/**)'], timeout: 'never' } } },
      concurrency: { workloads: { ci: { approvals: { on_timeout: 'allow', timeout: 30_000 } } } },
    });
    expect(c.approvals).toEqual({
      allow: ['Read', 'Bash(npm test:*)'],
      deny: ['Bash(rm:*)'],
      ask: ['WebFetch(domain:example.com)'],
      timeout: 600_000,
      on_timeout: 'deny',
    });
    expect(c.providers.claude!.approvals).toEqual({ allow: ['Edit(src/**)'], timeout: null });
    expect(c.concurrency.workloads.ci!.approvals).toEqual({ on_timeout: 'allow', timeout: 30_000 });
    expect(parseConfig({}).approvals).toBeUndefined();
  });

  it('refuses a rule that does not read, naming the rule and where it is', () => {
    expect(() => parseConfig({ approvals: { allow: ['Read', 'Bash(npm test'] } })).toThrow(
      'config.json: approvals.allow.1: rule "Bash(npm test" has no closing ")"',
    );
    expect(() => parseConfig({ providers: { p: { approvals: { deny: ['WebFetch(example.com)'] } } } })).toThrow(
      'config.json: providers.p.approvals.deny.0: rule "WebFetch(example.com)" WebFetch takes domain:HOST (WebFetch(domain:example.com))',
    );
    expect(() => parseConfig({ approvals: { timeout: '0s' } })).toThrow(/approvals.timeout: must be more than 0/);
    expect(() => parseConfig({ approvals: { on_timeout: 'ask' } })).toThrow('config.json: approvals.on_timeout: must be one of allow, deny');
    expect(() => parseConfig({ approvals: { allows: [] } })).toThrow('config.json: approvals.allows: unknown key');
  });
});
