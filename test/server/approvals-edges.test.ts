// Requests at their edges, through a real supervisor and a stand-in agent:
// an answer to a request no longer waiting (conflict, naming who decided it)
// and two at once; an answer from inside the asking run (refused); a run
// killed while it waits; the stall clock paused while a person is asked and
// afresh after, the run's own --timeout running on; `wait` through a block a
// deadline will decide, settling at one nobody but a person can; a 10 MB
// Write and a command with control characters summarised, bounded, escaped.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../support/harness.js';
import { askingAgent } from '../support/asking-agent.js';
import { useLiveHomes, type LiveHome } from '../support/in-process.js';

const home = useLiveHomes();

interface Approval {
  id: number;
  state: string;
  summary: string;
  by: unknown;
  decided_by: string | null;
}

const firstPending = (h: LiveHome, what: string): Promise<Approval> =>
  until(async () => (await h.call<{ approvals: Approval[] }>('approval.list', {})).approvals[0], what);
const every = async (h: LiveHome, run: string): Promise<Approval[]> => (await h.call<{ approvals: Approval[] }>('approval.list', { run, all: true })).approvals;
const answer = (h: LiveHome, p: Record<string, unknown>) =>
  h.call<{ results: { id: number; state: string; error?: { code: string } }[] }>('approval.answer', { via: 'sdk', ...p });
const ended = (h: LiveHome, ref: string) => until(async () => ((await h.show(ref)).status === 'ended' ? h.show(ref) : null), `${ref} to end`);
const bash = (command: string) => ({ tool: 'Bash', input: { command } });

describe('answers that are refused', () => {
  it('an answer to a request already answered is a conflict naming who answered; of two at once, one wins and the other is told', async () => {
    const h = await home();
    const a = askingAgent(h, 'two', { asks: [bash('npm test'), bash('npm run lint')] });
    await h.run(['-n', 'two', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const first = await firstPending(h, 'the first request');
    await answer(h, { targets: [String(first.id)], verdict: 'allow', who: 'pts/3' });
    const again = await answer(h, { targets: [String(first.id)], verdict: 'deny' }).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: 'conflict', message: `request ${first.id} was already allowed by the SDK (pts/3)` });
    const second = await until(async () => (await every(h, 'two')).find((x) => x.id !== first.id && x.state === 'pending'), 'the second request');
    const both = await Promise.allSettled([
      answer(h, { targets: [String(second.id)], verdict: 'deny', message: 'first', who: 'a' }),
      answer(h, { targets: [String(second.id)], verdict: 'allow', who: 'b' }),
    ]);
    expect(both.map((b) => b.status)).toEqual(['fulfilled', 'rejected']);
    expect((both[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'conflict', message: `request ${second.id} was already denied by the SDK (a)` });
    await ended(h, 'two');
    expect(a.answers()).toHaveLength(2);
  });

  it('an answer from inside the asking run (its ORCR_RUN) is refused, and the request waits on; another caller may answer', async () => {
    const h = await home();
    const a = askingAgent(h, 'self', { asks: [bash('git push')] });
    const r = await h.run(['-n', 'self', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const asked = await firstPending(h, 'the request');
    const own = await answer(h, { targets: [String(asked.id)], verdict: 'allow', caller: r.uuid }).catch((e: unknown) => e);
    expect(own).toMatchObject({ code: 'refused' });
    expect((own as Error).message).toContain('a run cannot answer its own requests');
    expect((await every(h, 'self'))[0]).toMatchObject({ state: 'pending' });
    const other = await h.run(['-n', 'other', '--', 'sleep', '30']);
    await answer(h, { targets: ['self'], verdict: 'allow', caller: other.uuid });
    await ended(h, 'self');
    expect((await every(h, 'self'))[0]).toMatchObject({ state: 'allowed', decided_by: `the SDK (run other (${other.uuid}))` });
  });

  it('a run killed while it waits leaves no request pending: it is withdrawn with the run', async () => {
    const h = await home();
    const a = askingAgent(h, 'kill', { asks: [bash('rm -rf /')] });
    const r = await h.run(['-n', 'k', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const asked = await firstPending(h, 'the request');
    await h.kill(['k']);
    expect(await ended(h, 'k')).toMatchObject({ exit_reason: 'killed', asking: null });
    expect((await h.call<{ approvals: Approval[] }>('approval.list', {})).approvals).toEqual([]);
    expect((await every(h, 'k'))[0]).toMatchObject({ id: asked.id, state: 'withdrawn' });
    const withdrawn = (await h.events<{ type: string; run: string; data: unknown }>()).filter((e) => e.run === r.uuid && e.type === 'approval_withdrawn');
    expect(withdrawn.map((e) => e.data)).toEqual([{ id: asked.id, why: 'ended' }]);
    const late = await answer(h, { targets: [String(asked.id)], verdict: 'allow' }).catch((e: unknown) => e);
    expect(late).toMatchObject({ code: 'conflict' });
    expect((late as Error).message).toMatch(/withdrawn/);
  });
});

describe('a request the agent withdraws', () => {
  it('its turn interrupted, the agent no longer waits: the request is withdrawn, the run back at work, and an answer to it a conflict', async () => {
    const h = await home();
    const a = askingAgent(h, 'cancel', { asks: [{ ...bash('make deploy'), cancel: true }, bash('make test')] });
    const r = await h.run(['-n', 'cancel', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    // The second by its summary: the first is pending too until its cancel is read (seen under load).
    const second = await until(
      async () => (await every(h, 'cancel')).find((x) => x.state === 'pending' && x.summary === 'Bash: make test'),
      'the second request',
    );
    const [first] = await every(h, 'cancel');
    expect(first).toMatchObject({ state: 'withdrawn', summary: 'Bash: make deploy' });
    expect(await answer(h, { targets: [String(first!.id)], verdict: 'allow' }).catch((e: unknown) => e)).toMatchObject({
      code: 'conflict',
      message: `request ${first!.id} was withdrawn by the agent (its turn was interrupted, or the run ended)`,
    });
    await answer(h, { targets: [String(second.id)], verdict: 'allow' });
    await ended(h, 'cancel');
    const events = (await h.events<{ type: string; run: string; data: unknown }>()).filter((e) => e.run === r.uuid);
    expect(events.filter((e) => e.type === 'approval_withdrawn').map((e) => e.data)).toEqual([{ id: first!.id, why: 'agent' }]);
    expect(a.answers()).toHaveLength(1);
  });
});

describe("a run's clocks while a person is asked", () => {
  it('no stall while a request waits (its turn timeout long past); its own --timeout runs on and ends it', async () => {
    const h = await home();
    const a = askingAgent(h, 'wait', { asks: [bash('sleep 1')] });
    await h.run(['-n', 'long', '--protocol', 'claude', '--turn-timeout', '300ms', '--timeout', '2s', '-p', 'go', '--', ...a.argv]);
    await firstPending(h, 'the request');
    const r = await ended(h, 'long');
    expect(r).toMatchObject({ exit_reason: 'timeout', exit_detail: null });
    const types = (await h.events<{ type: string; run: string }>()).filter((e) => e.run === r.uuid).map((e) => e.type);
    expect(types).not.toContain('stall');
  });

  it('answered after longer than its turn timeout, its stall clock starts afresh: it goes on to complete', async () => {
    const h = await home({ approvals: { timeout: '1s', on_timeout: 'allow' } });
    const a = askingAgent(h, 'fresh', { asks: [bash('npm test')] });
    await h.run(['-n', 'fresh', '--protocol', 'claude', '--turn-timeout', '400ms', '-p', 'go', '--', ...a.argv]);
    const r = await ended(h, 'fresh');
    expect(r).toMatchObject({ exit_reason: 'completed' });
    expect((await every(h, 'fresh'))[0]).toMatchObject({ state: 'allowed', by: { kind: 'deadline' } });
  });
});

describe('orcr wait and a run blocked on a request', () => {
  it('waits through a block its deadline will decide; settles at `blocked` (exit 4) on one that has none', async () => {
    const h = await home({ approvals: { timeout: 'never' } });
    const a = askingAgent(h, 'never', { asks: [bash('npm publish')] });
    await h.run(['-n', 'never', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    await firstPending(h, 'the request');
    expect(await h.settle(['never'])).toEqual([expect.objectContaining({ token: 'blocked' })]);
    expect(await h.waitCode('never')).toBe(4);

    const d = await home({ approvals: { timeout: '1h' } });
    const b = askingAgent(d, 'later', { asks: [bash('npm publish')] });
    await d.run(['-n', 'later', '--protocol', 'claude', '-p', 'go', '--', ...b.argv]);
    const asked = await firstPending(d, 'the request');
    expect(await d.settle(['later'], 300)).toEqual([expect.objectContaining({ token: 'pending' })]);
    const waiting = d.settle(['later']);
    await answer(d, { targets: [String(asked.id)], verdict: 'allow' });
    expect(await waiting).toEqual([expect.objectContaining({ token: 'completed' })]);
  });
});

describe('what a request shows of its input', () => {
  it('a 10 MB Write: its summary bounded everywhere, its input kept whole in the run folder, `approval.get` cut at 1 MiB; allowed, the agent gets it whole', async () => {
    const h = await home();
    const content = 'x'.repeat(10 * 1024 * 1024);
    const a = askingAgent(h, 'big', { asks: [{ tool: 'Write', input: { file_path: '/tmp/somewhere/big.txt', content } }] });
    const r = await h.run(['-n', 'big', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const asked = await firstPending(h, 'the request');
    expect(asked.summary).toBe('Write: /tmp/somewhere/big.txt (10.0 MiB)');
    const got = await h.call<{ input: unknown; truncated?: boolean }>('approval.get', { id: asked.id });
    expect(got.truncated).toBe(true);
    expect(typeof got.input).toBe('string');
    expect(Buffer.byteLength(got.input as string)).toBeLessThanOrEqual(1024 * 1024);
    const kept = JSON.parse(fs.readFileSync(path.join(h.runDir(r.uuid), 'approvals', `${asked.id}.json`), 'utf8')) as { input: { content: string } };
    expect(kept.input.content).toHaveLength(content.length);
    // Events carry the summary, never the input.
    const events = (await h.events<{ run: string; data: unknown }>()).filter((e) => e.run === r.uuid);
    expect(Math.max(...events.map((e) => JSON.stringify(e.data).length))).toBeLessThan(2000);
    await answer(h, { targets: ['big'], verdict: 'allow' });
    await ended(h, 'big');
    const sent = a.answers()[0] as { response: { response: { updatedInput: { content: string } } } };
    expect(sent.response.response.updatedInput.content).toHaveLength(content.length);
  });

  it('control characters in a command are shown escaped, in the summary, WHY and the events; the agent gets the command as it was', async () => {
    const h = await home();
    const command = 'echo \x1b[31mred\x1b[0m\x07 && printf "a\\nb"\nrm x\r';
    const a = askingAgent(h, 'ctl', { asks: [bash(command)] });
    await h.run(['-n', 'ctl', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const asked = await firstPending(h, 'the request');
    expect(asked.summary).toBe('Bash: echo \\x1b[31mred\\x1b[0m\\x07 && printf "a\\nb"\\nrm x\\r');
    expect(asked.summary).not.toMatch(/[\x00-\x1f\x7f]/);
    expect((await h.show('ctl')).asking?.summary).toBe(asked.summary);
    await answer(h, { targets: ['ctl'], verdict: 'allow' });
    await ended(h, 'ctl');
    const sent = a.answers()[0] as { response: { response: { updatedInput: { command: string } } } };
    expect(sent.response.response.updatedInput.command).toBe(command);
  });
});
