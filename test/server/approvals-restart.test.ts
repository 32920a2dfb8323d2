// Requests outlive their supervisor: a supervisor SIGKILLed while a request
// waits leaves it in the journal, and the next one finds it, takes the
// answer and writes it to the agent (which never stopped waiting); an
// answer decided but not yet written when the supervisor died is written by
// the next one; a deadline runs across the restart.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCK_AGENT, NODE, until } from '../support/harness.js';
import { askingAgent } from '../support/asking-agent.js';
import { useServedHomes, type ServedHome } from '../support/in-process.js';

const served = useServedHomes();

interface Approval {
  id: number;
  state: string;
  delivered: boolean;
  by: unknown;
}

const pending = async (h: ServedHome): Promise<Approval[]> => (await h.call<{ approvals: Approval[] }>('approval.list', {})).approvals;
const firstPending = (h: ServedHome, what: string): Promise<Approval> => until(async () => (await pending(h))[0], what);
const answer = (h: ServedHome, p: Record<string, unknown>) => h.call('approval.answer', { via: 'cli', ...p });
const ended = (h: ServedHome, ref: string) => until(async () => ((await h.show(ref)).status === 'ended' ? h.show(ref) : null), `${ref} to end`);

describe('requests across a supervisor that dies', () => {
  it('a request pending when the supervisor is SIGKILLed is answered through the next one, and the run completes', async () => {
    const h = served();
    await h.start();
    const r = await h.run([
      '-n',
      'kept',
      '--protocol',
      'claude',
      '-p',
      'go',
      '--',
      NODE,
      MOCK_AGENT,
      '--format',
      'claude',
      '--scenario',
      'ask',
      '--seed',
      '7',
      '--delay',
      '0',
    ]);
    const asked = await firstPending(h, 'a request');
    await h.killSupervisor();
    await h.start();
    expect(await pending(h)).toEqual([expect.objectContaining({ id: asked.id, state: 'pending' })]);
    expect(await h.show('kept')).toMatchObject({ status: 'blocked', blocked_kind: 'approval', asking: { id: asked.id } });
    await until(async () => {
      for (const a of await pending(h)) await answer(h, { targets: [String(a.id)], verdict: 'allow' });
      return (await h.show('kept')).status === 'ended';
    }, 'the run to end, each request answered');
    expect(await h.show('kept')).toMatchObject({ exit_reason: 'completed' });
    expect((await h.events<{ type: string; run: string }>()).filter((e) => e.run === r.uuid).map((e) => e.type)).toContain('adopted');
  });

  it('an answer decided but not yet written when the supervisor dies is written by the next one', async () => {
    const h = served();
    await h.start();
    const a = askingAgent(h, 'late', { asks: [{ tool: 'Bash', input: { command: 'npm test' } }] });
    const r = await h.run(['-n', 'late', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const asked = await firstPending(h, 'the request');
    // The agent's input out of the writer's reach: the answer is decided and journaled, not written.
    const fifo = path.join(h.runDir(r.uuid), 'in');
    fs.renameSync(fifo, `${fifo}.away`);
    await answer(h, { targets: [String(asked.id)], verdict: 'allow', who: 'first' });
    const decided = await h.call<{ approval: Approval }>('approval.get', { id: asked.id });
    expect(decided.approval).toMatchObject({ state: 'allowed', delivered: false });
    await h.killSupervisor();
    fs.renameSync(`${fifo}.away`, fifo);
    expect(a.answers()).toEqual([]);
    await h.start();
    expect(await ended(h, 'late')).toMatchObject({ exit_reason: 'completed' });
    expect(a.answers()).toHaveLength(1);
    expect((await h.call<{ approval: Approval }>('approval.get', { id: asked.id })).approval).toMatchObject({ state: 'allowed', delivered: true });
  });

  it('a deadline runs across the restart: the next supervisor decides the request when it comes', async () => {
    const h = served({ approvals: { timeout: '1500ms', on_timeout: 'allow' } });
    await h.start();
    const a = askingAgent(h, 'd', { asks: [{ tool: 'Bash', input: { command: 'npm test' } }] });
    await h.run(['-n', 'd', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const asked = await firstPending(h, 'the request');
    await h.killSupervisor();
    await h.start();
    expect(await ended(h, 'd')).toMatchObject({ exit_reason: 'completed' });
    expect((await h.call<{ approval: Approval }>('approval.get', { id: asked.id })).approval).toMatchObject({ state: 'allowed', by: { kind: 'deadline' } });
  });
});
