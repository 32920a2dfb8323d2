// A two-way agent that breaks its protocol, through a real supervisor: each
// break is told (a `protocol_error` event, in `show`'s events and the event
// log), answered as JSON-RPC says where it says so (-32700 to a frame that is
// not JSON, -32601 to a method orcr does not serve — the agent would wait on
// it), nothing stops the supervisor, and a run whose agent dies mid-frame
// ends with the reason.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODE, until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

const home = useLiveHomes();
const PEER = path.join(import.meta.dirname, '..', 'fixtures', 'agents', 'bad-rpc-peer.mjs');

describe('a JSON-RPC peer that breaks the protocol', () => {
  it('is told of each break and answered where the spec says; the turn goes on and the run completes', async () => {
    const h = await home();
    const r = await h.run(['-n', 'bad', '--protocol', 'codex-app', '-p', 'go', '--cwd', h.dir, '--', NODE, PEER]);
    expect((await h.wait('bad')).trim()).toBe('bad completed');
    const events = await h.events();
    const errors = events.filter((e) => e.run === r.uuid && e.type === 'protocol_error').map((e) => e.data as { message: string; fatal: boolean });
    expect(errors.map((e) => e.fatal)).toEqual([false, false, false, false]);
    expect(errors[0]!.message).toMatch(/not JSON/);
    expect(errors[1]!.message).toMatch(/no request of orcr's/);
    expect(errors[2]!.message).toMatch(/fs\/readTextFile.*does not serve/);
    // The 3 MiB frame is cut at the output's line limit: told as a frame that is not JSON.
    expect(errors[3]!.message).toMatch(/not JSON/);
    const peerIn = fs
      .readFileSync(path.join(h.dir, 'peer-in'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(peerIn).toContainEqual({ id: null, error: { code: -32700, message: 'Parse error' } });
    expect(peerIn).toContainEqual({ id: 41, error: { code: -32601, message: 'Method not found' } });
    // The turn the agent finished after all of it counts, with its last words.
    expect(await h.show('bad')).toMatchObject({ status: 'ended', exit_reason: 'completed', turns: 1, last_text: 'still here' });
    // `show` says it, and the events list each.
    const shown = await h.cli(['show', 'bad']);
    expect(shown.stdout).toMatch(/errors +4 in its agent's protocol \(orcr events\); the last: a frame that is not JSON/);
    const listed = await h.cli(['events']);
    expect(listed.stdout.split('\n').filter((l) => l.includes('protocol_error') && l.includes('bad'))).toHaveLength(4);
  });

  it('an agent that dies mid-frame: the run ends with its reason, the supervisor goes on', async () => {
    const h = await home();
    await h.run(['-n', 'cut', '--protocol', 'codex-app', '-p', 'go', '--cwd', h.dir, '--', NODE, PEER, '--mid-frame']);
    await h.wait('cut');
    const run = await h.show('cut');
    expect(run.status).toBe('ended');
    expect(run.exit_reason).not.toBe('completed');
    // The supervisor still answers and runs the next one.
    await h.run(['-n', 'after', '--', 'true']);
    expect((await h.wait('after')).trim()).toBe('after completed');
    await until(async () => (await h.events()).some((e) => e.type === 'protocol_error'), 'the broken frame told');
  });
});
