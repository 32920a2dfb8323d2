// A. Requests waiting for a person (issue 41): 200 runs (50 quick) of the
// built mock agent speaking Claude Code under `--protocol claude`, each
// asking before its first tool with no rule to answer it. Per request: from
// its line landing in the run's output file (seen by this process through
// inotify, as the supervisor sees it) to the request listed by
// `approval.list` (what `orcr approvals` reads), and to its `approval_asked`
// event pushed to a client subscribed as the TUI subscribes (the TUI learns of
// requests that way, not by asking). Then the supervisor's CPU while every
// request waits. Then each answered in turn: from sending `approval.answer`
// to the agent's tool result in its output (the tool ran), and to the
// method's reply (the supervisor writes the answer before it replies). Runs are started
// one after another, each once the previous one's request is listed, so a
// request is measured with up to N − 1 others waiting, never beside a burst
// of agents starting.

import fs from 'node:fs';
import path from 'node:path';
import type { RunEvent } from '../../src/core/events.js';
import { fig, median, pct, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, node, root, withOrcr } from '../lib/orcr.js';
import { CpuMeter, sleep } from '../lib/proc.js';

const MOCK = path.join(root, 'dist/src/agents/mock-agent.js');

/** performance.now() once the file's text satisfies pred: checked at once, then on each change inotify reports. */
function whenFile(file: string, pred: (text: string) => boolean, timeoutMs = 60_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      let text = '';
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        return false;
      }
      if (!pred(text)) return false;
      done(null, performance.now());
      return true;
    };
    const watcher = fs.watch(file, () => void check());
    const timer = setTimeout(() => done(new Error(`${file}: not seen in ${timeoutMs} ms`), 0), timeoutMs);
    function done(e: Error | null, at: number): void {
      watcher.close();
      clearTimeout(timer);
      if (e) reject(e);
      else resolve(at);
    }
    check();
  });
}

async function until<T>(fn: () => T | null | Promise<T | null>, what: string, timeoutMs = 60_000): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

interface Asked {
  uuid: string;
  id: number;
  out: string;
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const n = ctx.quick ? 50 : 200;
  const windows = ctx.quick ? 2 : 3;
  return withOrcr({ concurrency: { max: n + 10 } }, async (dir, sup) => {
    const work = path.join(dir, 'work');
    fs.mkdirSync(work);
    const client = await connect(dir);
    const pushed = new Map<string, number>();
    client.onEvent((m) => {
      const e: RunEvent = m.event;
      if (e.type === 'approval_asked' && e.run && !pushed.has(e.run)) pushed.set(e.run, performance.now());
    });
    // As the TUI subscribes (src/tui/connection/session.ts): a snapshot, then events and changed rows.
    await client.call('subscribe', { snapshot: true, rows: true, ended: 1000 });

    const listed: number[] = [];
    const push: number[] = [];
    const asked: Asked[] = [];
    for (let i = 0; i < n; i++) {
      const spec = {
        name: `ask-${i}`,
        cwd: work,
        protocol: 'claude' as const,
        prompt: 'go',
        command: [node, MOCK, '--format', 'claude', '--scenario', 'ask', '--seed', String(i + 1), '--delay', '0'],
      };
      const uuid = (await client.call('run.enqueue', { specs: [spec] })).runs[0]!.uuid;
      const out = path.join(dir, 'runs', uuid, 'out');
      await until(() => (fs.existsSync(out) ? true : null), `${spec.name}'s output file`);
      const t0 = await whenFile(out, (t) => t.includes('"control_request"'));
      const id = await until(async () => (await client.call('approval.list', { run: uuid })).approvals[0]?.id ?? null, `${spec.name}'s request listed`);
      listed.push(performance.now() - t0);
      const at = await until(() => pushed.get(uuid) ?? null, `${spec.name}'s approval_asked pushed`);
      push.push(at - t0);
      asked.push({ uuid, id, out });
      if ((i + 1) % 50 === 0) ctx.log(`  ${i + 1} asking`);
    }

    // Every run waits on its request: the supervisor's share of a core, after a settle.
    await sleep(2000);
    const cpu: number[] = [];
    const meter = new CpuMeter(() => [sup.pid]);
    for (let w = 0; w < windows; w++) {
      meter.start();
      await sleep(5000);
      cpu.push(meter.read());
    }
    const waiting = (await client.call('approval.list', {})).approvals.length;

    const toTool: number[] = [];
    const replied: number[] = [];
    for (const a of asked) {
      const before = fs.readFileSync(a.out, 'utf8').length;
      const t0 = performance.now();
      const tool = whenFile(a.out, (t) => t.slice(before).includes('"tool_result"'));
      await client.call('approval.answer', { targets: [String(a.id)], verdict: 'allow', via: 'cli' });
      // The supervisor writes the answer to the agent's input before it replies: the rest is the agent's.
      replied.push(performance.now() - t0);
      toTool.push((await tool) - t0);
    }
    client.close();

    const I = 'A';
    return {
      figures: [
        fig(I, `request → listed by approval.list (median of ${n})`, 'ms', [median(listed)]),
        fig(I, 'request → listed by approval.list (p99)', 'ms', [pct(listed, 99)], { target: '< 100 ms', meets: (m) => m < 100, ceiling: 1000 }),
        fig(I, `request → approval_asked pushed to a subscriber (median of ${n})`, 'ms', [median(push)]),
        fig(I, 'request → approval_asked pushed (p99)', 'ms', [pct(push, 99)], { target: '< 100 ms', meets: (m) => m < 100, ceiling: 1000 }),
        fig(I, `answer → approval.answer replied, the answer written (median of ${n})`, 'ms', [median(replied)]),
        fig(I, 'answer → approval.answer replied (p99)', 'ms', [pct(replied, 99)]),
        fig(I, `answer → the agent's tool runs (median of ${n})`, 'ms', [median(toTool)]),
        fig(I, "answer → the agent's tool runs (p99)", 'ms', [pct(toTool, 99)], { target: '< 100 ms', meets: (m) => m < 100, ceiling: 1000 }),
        fig(I, `supervisor CPU while ${waiting} requests wait (${windows} × 5 s)`, '% core', cpu, { target: '< 2%', meets: (m) => m < 2, ceiling: 20 }),
      ],
      skipped: [],
    };
  });
}

export const approvals: Item = { key: 'approvals', item: 'A', title: 'requests waiting for a person', run };
