// The demo fleet's runs that ask (`orcr-tui --demo`, `orcr demo`): they lead
// the fleet, speak a protocol whose requests orcr reads, and on a real
// supervisor they ask at once — Claude Code's two before they act and one a
// question, a Codex app-server run and an ACP run each in their own
// protocol — so a newcomer meets the approvals queue in the first minute.

import { describe, expect, it } from 'vitest';
import { DEMO_CONFIG, demoSpecs } from '../../src/client/demo-fleet.js';
import { agentProtocol } from '../../src/agents/registry.js';
import type { PublicApproval } from '../../src/protocol/views.js';
import { MOCK_AGENT, until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

const home = useLiveHomes();

describe('the demo fleet', () => {
  it('is led by runs that ask: their protocol carries requests, each has a prompt', () => {
    const specs = demoSpecs('/tmp/demo');
    const asking = specs.filter((s) => s.command?.includes('ask') || s.command?.includes('ask-question'));
    expect(asking.map((s) => s.command?.[s.command.indexOf('--scenario') + 1])).toEqual(['ask', 'ask', 'ask-question', 'ask', 'ask']);
    expect(asking.map((s) => s.protocol)).toEqual(['claude', 'claude', 'claude', 'codex-app', 'acp']);
    expect(specs.slice(0, 5)).toEqual(asking);
    for (const s of asking) {
      expect(agentProtocol(s.protocol ?? null)?.approvals, s.name).toBeDefined();
      expect(s.prompt, s.name).toBeTruthy();
    }
    expect(new Set(specs.map((s) => s.name)).size).toBe(specs.length);
  });

  it('asks at once on a real supervisor: requests to act in three protocols and a question, waiting for a person', async () => {
    const h = await home(DEMO_CONFIG);
    // The built mock agent: the fleet names the one beside its module, here the source's.
    const specs = demoSpecs(h.dir)
      .slice(0, 5)
      .map((s) => ({ ...s, command: s.command?.map((a) => (a.endsWith('mock-agent.js') ? MOCK_AGENT : a)) }));
    await h.call('run.enqueue', { specs });
    const pending = await until(
      async () => {
        const list = (await h.call<{ approvals: PublicApproval[] }>('approval.list')).approvals;
        return new Set(list.map((a) => a.name)).size === 5 ? list : null;
      },
      'each asking run to ask',
      45_000,
    );
    expect(pending.filter((a) => a.question).map((a) => a.name)).toEqual([specs[2]!.name]);
    expect(pending.filter((a) => !a.question).every((a) => /^(Bash|Write|Edit): /.test(a.summary))).toBe(true);
    for (const r of await h.ps()) expect(r).toMatchObject({ status: 'blocked', blocked_kind: 'approval' });
  });
});
