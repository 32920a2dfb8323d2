// What people see of an agent's requests, through the real CLI and
// supervisor: `ps` and `show` word a run blocked on one (`blocked:approval
// approve Bash: npm test`), `show` lists each request with who decided it
// and the denial's words, the CLI's own refusals are an event, a count and a
// mark (`⊘ 2 denied`), and `logs --pretty` shows each request and its
// decision where they happened in the output.

import { describe, expect, it } from 'vitest';
import { until } from '../support/harness.js';
import { askingAgent } from '../support/asking-agent.js';
import { useLiveHomes } from '../support/in-process.js';

const home = useLiveHomes();

describe('a run blocked on its requests, as the CLI shows it', () => {
  it('ps and show word the block; show lists each request, who decided it and the words of a denial; logs --pretty shows them in place', async () => {
    const h = await home({ approvals: { allow: ['Write'] } });
    const a = askingAgent(h, 'asks', {
      asks: [
        { tool: 'Write', input: { file_path: '/tmp/w/notes.txt', content: 'hi\n' } },
        { tool: 'Bash', input: { command: 'npm test' } },
        { tool: 'Bash', input: { command: 'npm publish' } },
      ],
    });
    await h.run(['-n', 'asks', '--protocol', 'claude', '-p', 'ship it', '--', ...a.argv]);
    const first = await until(async () => (await h.call<{ approvals: { id: number }[] }>('approval.list', {})).approvals[0], 'a request');
    const ps = await h.cli(['ps']);
    expect(ps.stdout).toMatch(/asks .* blocked:approval approve Bash: npm test /);
    const shown = (await h.cli(['show', 'asks'])).stdout;
    expect(shown).toMatch(/^status +blocked:approval approve Bash: npm test$/m);
    expect(shown).toMatch(/^request +#\d+ allowed Write: \/tmp\/w\/notes\.txt \(3 B\) — by the allow rule Write at \S+$/m);
    expect(shown).toMatch(new RegExp(`^request +#${first.id} pending Bash: npm test, decided by its deadline \\(deny\\) at \\S+$`, 'm'));
    await h.call('approval.answer', { targets: [String(first.id)], verdict: 'allow', via: 'cli', who: 'pts/4' });
    const second = await until(
      async () => (await h.call<{ approvals: { id: number }[] }>('approval.list', {})).approvals.find((x) => x.id !== first.id),
      'the next request',
    );
    await h.call('approval.answer', { targets: [String(second.id)], verdict: 'deny', message: 'not from here', via: 'tui' });
    await until(async () => (await h.show('asks')).status === 'ended', 'the run to end');
    const after = (await h.cli(['show', 'asks'])).stdout;
    expect(after).toMatch(/^request +#\d+ allowed Bash: npm test — by the CLI \(pts\/4\) at \S+$/m);
    expect(after).toMatch(/^request +#\d+ denied Bash: npm publish — by the TUI at \S+: "not from here"$/m);
    const json = await h.json<{ approvals: { id: number; state: string; decided_by: string | null }[]; denials: number; asking: unknown }>(['show', 'asks']);
    expect(json.approvals.map((x) => [x.state, x.decided_by])).toEqual([
      ['allowed', 'the allow rule Write'],
      ['allowed', 'the CLI (pts/4)'],
      ['denied', 'the TUI'],
    ]);
    expect(json).toMatchObject({ denials: 0, asking: null });

    const pretty = (await h.cli(['logs', 'asks', '--pretty'])).stdout.split('\n');
    const at = (row: string): number => pretty.indexOf(row);
    expect(at('? asks: Bash: npm test')).toBeGreaterThan(at('› ship it'));
    expect(at('  ✓ allowed by the CLI (pts/4)')).toBe(at('? asks: Bash: npm test') + 1);
    expect(at('  ⊘ denied by the TUI: not from here')).toBe(at('? asks: Bash: npm publish') + 1);
    expect(at('? asks: Write: /tmp/w/notes.txt (3 B)')).toBeGreaterThan(at('› ship it'));
    expect(at('  ✓ allowed by the allow rule Write')).toBe(at('? asks: Write: /tmp/w/notes.txt (3 B)') + 1);
  });

  it("the agent CLI's own refusals: a `denied` event each, a count on the run, `⊘ 2 denied` in ps, a line in show", async () => {
    const h = await home();
    const a = askingAgent(h, 'refused', {
      asks: [],
      denied: [
        { tool: 'Bash', message: "touch in '/w/x' needs approval." },
        { tool: 'Write', message: "Claude requested permissions to write to /w/y, but you haven't granted it yet." },
      ],
    });
    const r = await h.run(['-n', 'refused', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    await until(async () => (await h.show('refused')).status === 'ended', 'the run to end');
    const events = (await h.events<{ type: string; run: string; data: Record<string, unknown> }>()).filter((e) => e.run === r.uuid && e.type === 'denied');
    expect(events.map((e) => e.data)).toEqual([
      { tool: 'Bash', message: "touch in '/w/x' needs approval.", count: 1 },
      { tool: 'Write', message: "Claude requested permissions to write to /w/y, but you haven't granted it yet.", count: 2 },
    ]);
    expect(await h.show('refused')).toMatchObject({ denials: 2, exit_reason: 'completed' });
    expect((await h.cli(['ps', '--all'])).stdout).toMatch(/refused .* ended:completed ⊘ 2 denied /);
    expect((await h.cli(['show', 'refused'])).stdout).toMatch(/^denied +2 tool calls refused by the agent CLI's own settings \(nobody was asked\)$/m);
    expect((await h.json<{ denials: number }[]>(['ps', '--all'])).map((x) => x.denials)).toEqual([2]);
  });
});
