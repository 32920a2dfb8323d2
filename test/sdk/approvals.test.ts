// The SDK's requests (`orcr.approvals`) against a real supervisor and the
// built mock agent asking as Claude Code does: listed, one read whole,
// approved and denied by id, by a request or a run object, by run; each
// answer recorded as the SDK's, from this process; refused from inside the
// asking run (its ORCR_RUN), and for a request no longer waiting.

import { describe, expect, it, onTestFinished } from 'vitest';
import { connect, OrcrError, type Orcr } from '../../src/sdk/index.js';
import { askingAgent } from '../support/asking-agent.js';
import { askingMock, nextRequest, request, requests, toolResults } from '../support/approvals.js';
import { until } from '../support/harness.js';
import { useStartedHomes } from '../support/in-process.js';

const home = useStartedHomes();

async function sdk(h: { dir: string }, callerEnv?: Record<string, string>): Promise<Orcr> {
  const orcr = await connect({ home: h.dir, autoStart: false, callerEnv });
  onTestFinished(() => orcr.close());
  return orcr;
}

describe('orcr.approvals', () => {
  it('list and get; approve a request object, deny by run with a message: recorded as the SDK from this process', async () => {
    const h = await home();
    const r = await h.run(['-n', 'asks', '--protocol', 'claude', '-p', 'go', '--', ...askingMock('ask', 3)]);
    const orcr = await sdk(h);
    const first = await nextRequest(h, 'a request');
    const listed = await orcr.approvals.list();
    expect(listed).toEqual(await requests(h));
    expect(await orcr.approvals.list({ run: r })).toEqual(listed);
    const got = await orcr.approvals.get(first.id);
    expect(got.approval).toEqual(listed[0]);
    expect(got.input).toEqual(expect.any(Object));
    expect(got.truncated).toBeUndefined();

    expect(await orcr.approvals.approve(listed[0]!)).toEqual([{ target: String(first.id), id: first.id, run: r.uuid, state: 'allowed' }]);
    const decided = await request(h, first.id);
    expect(decided.by).toEqual({ kind: 'person', via: 'sdk', who: expect.stringMatching(/^([\w.@+-]+, )?pid \d+$/) });
    expect(decided.by!.who).toContain(`pid ${process.pid}`);

    // Then each of the run's requests, by the run (its name), denied with words the agent reads.
    await until(
      async () => {
        if ((await requests(h, 'asks')).length > 0)
          for (const res of await orcr.approvals.deny('asks', { message: 'no: read the docs' })) expect(res.error).toBeUndefined();
        return (await h.show('asks')).status === 'ended';
      },
      'the run to end',
      30_000,
    );
    const told = toolResults(h.runDir(r.uuid)).filter((t) => t.is_error);
    expect(told.length + 1).toBe((await requests(h, 'asks', true)).length);
    expect(told.every((t) => t.content === 'no: read the docs')).toBe(true);
  });

  it("a question answered with its labels; a second answer is refused (conflict, naming who); every target refused: it throws the first one's code, naming each", async () => {
    const h = await home({ approvals: { allow: ['Bash', 'Write', 'Edit'] } });
    await h.run(['-n', 'q', '--protocol', 'claude', '-p', 'go', '--', ...askingMock('ask-question')]);
    const orcr = await sdk(h);
    const q = await nextRequest(h, 'the question');
    const options = q.questions![0]!.options.map((o) => o.label);
    await expect(orcr.approvals.approve(q.id)).rejects.toMatchObject({
      code: 'usage',
      exitCode: 2,
      message: expect.stringContaining(JSON.stringify(options[0])),
    });
    const answer = q.questions![0]!.multi ? [[options[0]!, options[1]!]] : [options[0]!];
    expect(await orcr.approvals.approve(q.id, { answers: answer })).toMatchObject([{ id: q.id, state: 'allowed' }]);
    expect((await request(h, q.id)).answers).toEqual([q.questions![0]!.multi ? `${options[0]}, ${options[1]}` : options[0]]);

    const again = await orcr.approvals.deny(q.id).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(OrcrError);
    expect(again).toMatchObject({
      code: 'conflict',
      exitCode: 4,
      message: expect.stringMatching(/^request \d+ was already allowed by the SDK \(.*pid \d+\)$/),
    });
    // One refused, one not found: every target refused, so it throws the first's code, naming each.
    await expect(orcr.approvals.approve([q.id, 999999])).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('no request 999999') });
    await expect(orcr.approvals.approve(0)).rejects.toMatchObject({ code: 'usage', message: "a request's id is a whole number from 1, got 0" });
    await expect(orcr.approvals.get(999999)).rejects.toMatchObject({ code: 'not_found', exitCode: 6 });
  });

  it('from inside the asking run (its ORCR_RUN) an answer is refused and the request waits; from another run it is taken, and says which', async () => {
    const h = await home();
    const a = askingAgent(h, 'asker', { asks: [{ tool: 'Bash', input: { command: 'make deploy' } }] });
    const r = await h.run(['-n', 'asker', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const other = await h.run(['-n', 'overseer', '--', 'sleep', '60']);
    const req = await nextRequest(h, 'the request');
    const inside = await sdk(h, { ORCR_RUN: r.uuid });
    await expect(inside.approvals.approve(req.id)).rejects.toMatchObject({
      code: 'refused',
      exitCode: 7,
      message: `a run cannot answer its own requests (request ${req.id} is run asker's)`,
    });
    expect((await request(h, req.id)).state).toBe('pending');
    const overseer = await sdk(h, { ORCR_RUN: other.uuid });
    // Words with a control character are refused, whoever gives them (the CLI, the SDK, MCP): the agent is told plain text.
    await expect(overseer.approvals.deny(req.id, { message: 'no\x1b[2J' })).rejects.toMatchObject({
      code: 'usage',
      message: 'the message holds a control character: the agent is told plain text (newlines and tabs aside)',
    });
    expect(await overseer.approvals.approve({ uuid: r.uuid })).toMatchObject([{ id: req.id, state: 'allowed' }]);
    expect((await request(h, req.id)).by!.who).toMatch(new RegExp(`pid ${process.pid}, run overseer \\(${other.uuid}\\)$`));
  });
});
