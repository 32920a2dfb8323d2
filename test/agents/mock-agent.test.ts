// The compiled mock agent (dist/src/agents/mock-agent.js), spawned for real,
// its stdout piped through the matching adapter.

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAdapter, createDetectingAdapter, foldSignals } from '../../src/agents/index.js';
import type { Protocol } from '../../src/core/types.js';
import type { Adapter, Signal } from '../../src/agents/signals.js';
import { assertTurnsPaired } from './helpers.js';
import { until } from '../support/harness.js';

const BIN = fileURLToPath(new URL('../../dist/src/agents/mock-agent.js', import.meta.url));
const FORMATS = ['claude', 'codex', 'gemini', 'jsonl'] as const;

/** The compiled agent is built before any test runs (test/support/global-setup.ts), never here. */
beforeAll(() => {
  expect(existsSync(BIN), `${BIN}: build with npm run build`).toBe(true);
});

interface Mock {
  child: ChildProcessWithoutNullStreams;
  signals: Signal[];
  lines: string[];
  /** Resolves once the signals so far satisfy `pred`. */
  until(pred: (signals: Signal[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Exit code (or 128 + signal) once the process has exited and stdout is drained. */
  exited: Promise<number>;
}

function startMock(args: string[], adapter: Adapter): Mock {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const signals: Signal[] = [];
  const lines: string[] = [];
  const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
  rl.on('line', (line) => {
    lines.push(line);
    signals.push(...adapter.line(line));
  });
  const drained = new Promise<void>((resolve) => rl.on('close', resolve));
  const exit = new Promise<number>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal === 'SIGTERM' ? 143 : signal === 'SIGKILL' ? 137 : 128))),
  );
  const exited = Promise.all([exit, drained]).then(([code]) => {
    signals.push(...(adapter.end?.() ?? []));
    return code;
  });
  return {
    child,
    signals,
    lines,
    exited,
    until: (pred, timeoutMs = 15_000) =>
      until(
        () => pred(signals),
        () => `the signals to match; signals: ${JSON.stringify(signals.map((s) => s.kind))}`,
        timeoutMs,
      ).then(() => undefined),
  };
}

const count = (kind: Signal['kind']) => (signals: Signal[]) => signals.filter((s) => s.kind === kind).length;
const turnsEnded = count('turn_end');

/** The stdin line that means "one more input" for each format. */
function inputLine(format: Protocol, text: string): string {
  if (format === 'claude') return JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: 'default' });
  if (format === 'jsonl') return JSON.stringify({ type: 'input', text });
  return text;
}

describe('mock agent', () => {
  describe.each(FORMATS)('%s', (format) => {
    it('work: N turns, each with tools and usage, then exit 0', async () => {
      const m = startMock(['--format', format, '--turns', '3', '--delay', '0', '--seed', '11'], createAdapter(format));
      expect(await m.exited).toBe(0);
      assertTurnsPaired(m.signals);
      const fold = foldSignals(m.signals);
      expect(fold).toMatchObject({ alive: true, turns: 3, turns_started: 3, ok: true, blocked: null, output_lines: 0 });
      expect(fold.tools.length).toBeGreaterThanOrEqual(3);
      expect(fold.tools.length).toBeLessThanOrEqual(9);
      expect(fold.tokens.input).toBeGreaterThan(0);
      expect(fold.tokens.output).toBeGreaterThan(0);
      expect(fold.tokens.cached).toBeGreaterThan(0);
      if (format === 'claude' || format === 'jsonl') expect(fold.cost_usd).toBeGreaterThan(0);
      expect(fold.last_text).toMatch(/^Turn 3 done/);
    });

    it('work: the detecting adapter recognises the format and agrees on the totals', async () => {
      const detecting = createDetectingAdapter();
      const a = startMock(['--format', format, '--delay', '0', '--seed', '5'], detecting);
      const b = startMock(['--format', format, '--delay', '0', '--seed', '5'], createAdapter(format));
      await Promise.all([a.exited, b.exited]);
      expect(detecting.protocol()).toBe(format);
      expect(foldSignals(a.signals)).toEqual(foldSignals(b.signals));
    });

    it('is deterministic for a seed', async () => {
      const run = async (seed: string): Promise<string[]> => {
        const m = startMock(['--format', format, '--delay', '0', '--seed', seed], createAdapter(format));
        await m.exited;
        return m.lines;
      };
      const [a, b, c] = await Promise.all([run('3'), run('3'), run('4')]);
      expect(a).toEqual(b);
      expect(a).not.toEqual(c);
    });

    it('crash: a turn, then exit 3 mid-turn without a result', async () => {
      const m = startMock(['--format', format, '--scenario', 'crash', '--delay', '0'], createAdapter(format));
      expect(await m.exited).toBe(3);
      const fold = foldSignals(m.signals);
      expect(fold.turns).toBe(1);
      expect(fold.turns_started).toBe(2);
      expect(count('result')(m.signals)).toBe(1);
      expect(m.signals.filter((s) => s.kind !== 'usage').at(-1)?.kind).not.toBe('turn_end');
    });

    it('limit: reports a usage limit, then exits 1', async () => {
      const m = startMock(['--format', format, '--scenario', 'limit', '--delay', '0'], createAdapter(format));
      await m.until((s) => s.some((x) => x.kind === 'blocked'));
      expect(await m.exited).toBe(1);
      const fold = foldSignals(m.signals);
      expect(fold.blocked?.kind).toBe('limit');
      expect(fold.turns_started).toBe(2);
      if (format === 'claude') expect(m.signals).toContainEqual(expect.objectContaining({ kind: 'blocked', blocked: 'limit', retry_after_s: 1 }));
      if (format === 'jsonl') expect(fold.blocked).toEqual({ kind: 'limit', retry_after_s: 30 });
      if (format !== 'jsonl') expect(fold.ok).toBe(false);
    });

    it('interactive: a turn for the prompt, a turn per input, exit 0 at stdin EOF', async () => {
      const m = startMock(['--format', format, '--scenario', 'interactive', '--delay', '0', '--prompt', 'hello'], createAdapter(format));
      await m.until((s) => turnsEnded(s) === 1);
      m.child.stdin.write(inputLine(format, 'second task') + '\n');
      await m.until((s) => turnsEnded(s) === 2);
      m.child.stdin.write(inputLine(format, 'third task') + '\n');
      m.child.stdin.end();
      expect(await m.exited).toBe(0);
      assertTurnsPaired(m.signals);
      expect(foldSignals(m.signals)).toMatchObject({ turns: 3, ok: true });
    });

    it('loop: the same tool call every turn until killed, and SIGTERM ends it promptly', async () => {
      const m = startMock(['--format', format, '--scenario', 'loop', '--delay', '1'], createAdapter(format));
      await m.until((s) => turnsEnded(s) >= 3);
      const killedAt = Date.now();
      m.child.kill('SIGTERM');
      expect(await m.exited).toBe(143);
      expect(Date.now() - killedAt).toBeLessThan(2000);
      const tools = m.signals.filter((s): s is Extract<Signal, { kind: 'tool' }> => s.kind === 'tool');
      expect(tools.length).toBeGreaterThanOrEqual(3);
      for (const t of tools) expect({ name: t.name, input: t.input }).toEqual({ name: tools[0]!.name, input: tools[0]!.input });
    });
  });

  it('auth (claude): login block, error result, exit 1', async () => {
    const m = startMock(['--format', 'claude', '--scenario', 'auth', '--delay', '0'], createAdapter('claude'));
    expect(await m.exited).toBe(1);
    expect(foldSignals(m.signals)).toMatchObject({ ok: false, blocked: { kind: 'login' }, turns: 1 });
  });

  it('never-starts: prints nothing, and SIGTERM ends it promptly', async () => {
    const m = startMock(['--format', 'jsonl', '--scenario', 'never-starts'], createAdapter('jsonl'));
    // The moment it would have printed by: a twin started just after it has
    // booted and then waited 400 ms (slow-start, delay x 10) before its first line.
    const twin = startMock(['--format', 'jsonl', '--scenario', 'slow-start', '--delay', '40', '--turns', '1'], createAdapter('jsonl'));
    try {
      await twin.until(() => twin.lines.length > 0);
      expect(m.lines).toEqual([]);
      twin.child.kill('SIGTERM');
      await twin.exited;
      m.child.kill('SIGTERM');
      expect(await m.exited).toBe(143);
      expect(m.signals).toEqual([]);
    } finally {
      // A failed assertion must not leave either of them running.
      twin.child.kill('SIGKILL');
      m.child.kill('SIGKILL');
    }
  });

  it('slow-start: waits delay x 10 before its first line', async () => {
    const started = Date.now();
    const m = startMock(['--format', 'codex', '--scenario', 'slow-start', '--delay', '40', '--turns', '1'], createAdapter('codex'));
    await m.until((s) => s.some((x) => x.kind === 'alive'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(await m.exited).toBe(0);
    expect(foldSignals(m.signals).turns).toBe(1);
  });

  it('rejects bad arguments with exit 2', () => {
    const r = spawnSync(process.execPath, [BIN, '--format', 'nope'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown format/);
  });
});
