// When a provider's usage-limit hold lifts, the runs it held back do not all
// start in the same second (a provider just past its reset refuses most of a
// burst: Claude Code's issue #53922): they start one per
// providers.NAME.resume_pace. A limit met in the rush right after a lift, or
// one whose stated reset has passed already, holds briefly, not for
// limit_hold. A real supervisor in this process, Claude Code stand-ins that
// speak its stream-json.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODE, script, tempDir, until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';
import { SHORT_HOLD_MS } from '../../src/core/run-progress.js';

const home = useLiveHomes();

function place(): { dir: string } {
  return { dir: tempDir('orcr-reset-') };
}

/** Claude Code's stand-in: its first call stops on a usage limit saying `text`; a `--resume` call finishes, unless the file `again` exists (then it stops again). */
function standIn(at: { dir: string }, text: string): string {
  return script(
    at,
    'claude',
    `#!${NODE}
const fs = require('node:fs');
const args = process.argv.slice(2);
const resumed = args[0] === '--resume';
const session = resumed ? args[1] : 's-' + process.env.ORCR_RUN;
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
process.stdin.once('data', () => {
  out({ type: 'system', subtype: 'init', session_id: session });
  const usage = { input_tokens: 3, output_tokens: 1 };
  out({ type: 'assistant', message: { id: 'm', content: [{ type: 'text', text: 'working' }], usage }, session_id: session });
  if (!resumed || fs.existsSync(${JSON.stringify(path.join(at.dir, 'again'))})) {
    out({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: ${JSON.stringify(text)}, session_id: session, usage });
    process.exit(1);
  }
  out({ type: 'result', subtype: 'success', is_error: false, result: 'done', session_id: session, usage });
  process.exit(0);
});
`,
  );
}

interface Ev {
  seq: number;
  ts: number;
  run: string | null;
  type: string;
  data: Record<string, unknown>;
}

describe('after a reset', () => {
  it('the runs a hold kept back start one per resume_pace when it lifts, not all at once, and each completes', async () => {
    const at = place();
    const agent = standIn(at, "You've hit your limit");
    const h = await home({ concurrency: { max: 5 }, timings: { limit_hold: '2s' }, providers: { claude: { command: [agent], resume_pace: '1s' } } });
    const runs = [];
    for (const n of ['a', 'b', 'c']) runs.push(await h.run(['-n', n, '-a', 'claude', '-p', 'go']));
    // Each stops on the limit; all three wait, queued, for the hold to lift.
    await until(async () => (await h.ps()).filter((r) => r.status === 'queued' && r.attempts.length === 1).length === 3, 'the three to be queued again');
    expect((await h.settle(['a', 'b', 'c'], 60_000)).map((s) => s.token)).toEqual(['completed', 'completed', 'completed']);
    const events = await h.events<Ev>();
    const uuids = new Set(runs.map((r) => r.uuid));
    const lifted = events.find((e) => e.type === 'hold_lifted')!;
    const second = events.filter((e) => e.type === 'starting' && uuids.has(e.run!) && e.seq > lifted.seq).map((e) => e.ts);
    expect(second).toHaveLength(3);
    // One at the lift, the next a second later, the last a second after that (a little early or late on a busy machine, never together).
    expect(second[1]! - second[0]!).toBeGreaterThanOrEqual(900);
    expect(second[2]! - second[1]!).toBeGreaterThanOrEqual(900);
  });

  it('while they wait their turn, WHY says the provider resumes at a pace', async () => {
    const at = place();
    const agent = standIn(at, "You've hit your limit");
    const h = await home({ concurrency: { max: 5 }, timings: { limit_hold: '1s' }, providers: { claude: { command: [agent], resume_pace: '1h' } } });
    for (const n of ['a', 'b']) await h.run(['-n', n, '-a', 'claude', '-p', 'go']);
    const paced = await until(async () => (await h.ps()).find((r) => r.waiting?.reason === 'pace') ?? null, 'a run to wait for its turn');
    expect(paced.waiting).toMatchObject({ name: 'claude', every_ms: 3_600_000, active: 1 });
    expect((await h.cli(['ps'])).stdout).toMatch(/resuming claude · next in (59m|1h)/);
  });

  it("a limit met right after its provider's hold lifted, saying nothing of its reset, holds briefly, not for limit_hold", async () => {
    const at = place();
    const agent = standIn(at, "You've hit your limit");
    const h = await home({ timings: { limit_hold: '5h' }, providers: { claude: { command: [agent] } } });
    await h.run(['-n', 'rush', '-a', 'claude', '-p', 'go']);
    await until(async () => (await h.show('rush')).attempts.length === 1, 'the first limit');
    fs.writeFileSync(path.join(at.dir, 'again'), '');
    // Lifted: the resumed attempt meets the limit again at once.
    await h.cli(['provider', 'resume', 'claude']);
    const held = await until(async () => {
      const r = await h.show('rush');
      return r.attempts.length === 2 && r.status === 'queued' ? r : null;
    }, 'the second limit');
    const left = Date.parse(held.waiting!.until!) - Date.now();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(SHORT_HOLD_MS);
    fs.rmSync(path.join(at.dir, 'again'));
    await h.cli(['provider', 'resume', 'claude']);
    expect(await h.wait('rush')).toBe('rush completed');
  });

  it('a limit whose stated reset has passed already holds briefly, not for limit_hold', async () => {
    const at = place();
    const agent = standIn(at, "You've hit your limit · resets at 2026-01-01 00:00 UTC");
    const h = await home({ timings: { limit_hold: '5h' }, providers: { claude: { command: [agent] } } });
    await h.run(['-n', 'past', '-a', 'claude', '-p', 'go']);
    const held = await until(async () => {
      const r = await h.show('past');
      return r.attempts.length === 1 && r.status === 'queued' ? r : null;
    }, 'the limit');
    const left = Date.parse(held.waiting!.until!) - Date.now();
    expect(left).toBeLessThanOrEqual(SHORT_HOLD_MS);
    const hold = (await h.events<Ev>()).find((e) => e.type === 'hold')!;
    expect(hold.data.retry_after_s).toBe(0);
  });
});
