// A supervisor SIGKILLed while a Codex app-server run and an ACP run each
// wait for a person's answer (the built mock agent serving each protocol):
// the agents live on, the next supervisor lists both requests (read from the
// journal, not asked again), a person's answers reach each agent through its
// own protocol, and both runs complete — each prompt sent once.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requests } from '../support/approvals.js';
import { alive, MOCK_AGENT, NODE, until } from '../support/harness.js';
import { useServedHomes } from '../support/in-process.js';

const served = useServedHomes();

const mock = (format: 'codex-app' | 'acp'): string[] => [NODE, MOCK_AGENT, '--format', format, '--scenario', 'ask', '--seed', '7', '--delay', '0'];

/** The prompts the agent took: Codex echoes each as a userMessage item; an ACP agent answers each session/prompt (orcr's `orcr:turn:N` ids). */
function promptsTaken(out: string, format: 'codex-app' | 'acp'): number {
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id?: unknown; method?: string; params?: { item?: { type?: string } } })
    .filter((o) =>
      format === 'codex-app'
        ? o.method === 'item/completed' && o.params?.item?.type === 'userMessage'
        : typeof o.id === 'string' && o.id.startsWith('orcr:turn:'),
    ).length;
}

describe('two-way protocols across a supervisor SIGKILLed with requests waiting', () => {
  it('the next supervisor lists both requests; answered, both runs complete, no prompt sent twice', async () => {
    const h = served();
    await h.start();
    const codex = await h.run(['-n', 'cx', '--protocol', 'codex-app', '-p', 'add a health check', '--', ...mock('codex-app')]);
    const acp = await h.run(['-n', 'gm', '--protocol', 'acp', '-p', 'add a health check', '--', ...mock('acp')]);
    await until(async () => (await requests(h)).length === 2, 'a request of each run');
    const before = (await requests(h)).map((r) => ({ id: r.id, name: r.name, summary: r.summary }));
    const pids = [(await h.show('cx')).pid!, (await h.show('gm')).pid!];

    await h.killSupervisor();
    expect(pids.every(alive)).toBe(true);
    await h.start();

    // The same two requests, read from the journal: not asked again, none lost.
    const after = (await requests(h)).map((r) => ({ id: r.id, name: r.name, summary: r.summary }));
    expect(after).toEqual(before);
    expect(await h.show('cx')).toMatchObject({ status: 'blocked', blocked_kind: 'approval' });
    expect(await h.show('gm')).toMatchObject({ status: 'blocked', blocked_kind: 'approval' });

    // Answered (and each one after it as it comes), both complete.
    await until(
      async () => {
        for (const r of await requests(h)) expect((await h.cli(['approve', String(r.id)])).code).toBe(0);
        return (await h.show('cx')).status === 'ended' && (await h.show('gm')).status === 'ended';
      },
      'both runs to end, their requests answered',
      30_000,
    );
    expect(await h.show('cx')).toMatchObject({ exit_reason: 'completed', turns: 1 });
    expect(await h.show('gm')).toMatchObject({ exit_reason: 'completed', turns: 1 });
    // One prompt each: the codex agent echoed one user message, the ACP one answered one prompt.
    const cxOut = fs.readFileSync(path.join(h.runDir(codex.uuid), 'out'), 'utf8');
    const gmOut = fs.readFileSync(path.join(h.runDir(acp.uuid), 'out'), 'utf8');
    expect(promptsTaken(cxOut, 'codex-app')).toBe(1);
    expect(promptsTaken(gmOut, 'acp')).toBe(1);
  });
});
