// P. What reading an agent's output costs orcr, per line, protocol beside
// protocol (issue 42: the two-way protocols within 1.5× of the stream readers
// they stand beside). Each protocol reads what its genuine CLI printed
// (test/real/transcripts for the streams, test/fixtures for the two-way
// protocols: the app-server's and ACP's recorded sessions), the whole session
// through a fresh adapter (model turns on, as the supervisor reads), over and
// over until at least 150 ms have passed; per line = that time / the lines
// read. Five rounds, the protocols interleaved within each, so a noisy
// moment falls on all of them. A line is the unit each reader is handed (the
// app-server prints more of them per turn: its deltas), so per turn is shown
// too.

import fs from 'node:fs';
import path from 'node:path';
import { createAdapter } from '../../src/agents/registry.js';
import type { Protocol } from '../../src/core/types.js';
import { fig, median, type Figure, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { root } from '../lib/orcr.js';

interface Sample {
  protocol: Protocol;
  label: string;
  lines: string[];
  turns: number;
}

const TRANSCRIPTS = path.join(root, 'test/real/transcripts');
const FIXTURES = path.join(root, 'test/fixtures');

/** A stream protocol's recorded output: its lines as printed. */
function streamLines(protocol: string, names: readonly string[]): string[] {
  return names.flatMap((n) =>
    fs
      .readFileSync(path.join(TRANSCRIPTS, protocol, `${n}.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== ''),
  );
}

/**
 * A two-way protocol's recorded sessions: the lines its CLI printed (the
 * probe's records of both directions, `out` kept), its answers' ids as orcr
 * names its own requests (the probes named them their own way).
 */
function recordedLines(dir: string, names: readonly string[]): string[] {
  return names.flatMap((n) => {
    const recs = fs
      .readFileSync(path.join(FIXTURES, dir, `${n}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { dir: string; line?: Record<string, unknown> });
    const ours = orcrIds(recs.filter((r) => r.dir === 'in').map((r) => r.line));
    return recs
      .filter((r) => r.dir === 'out' && r.line !== undefined)
      .map((r) => JSON.stringify('result' in r.line! || 'error' in r.line! ? { ...r.line, id: ours.get(r.line.id) ?? r.line.id } : r.line));
  });
}

/** The ids orcr gives the requests a probe wrote: initialize, the session or thread opened or loaded, each turn. */
function orcrIds(sent: (Record<string, unknown> | undefined)[]): Map<unknown, string> {
  const ours = new Map<unknown, string>();
  let turn = 0;
  for (const m of sent) {
    if (!m || typeof m.method !== 'string' || m.id === undefined) continue;
    const params = (m.params ?? {}) as { sessionId?: string };
    if (m.method === 'initialize') ours.set(m.id, 'orcr:init');
    else if (['thread/start', 'thread/resume', 'session/new'].includes(m.method)) ours.set(m.id, 'orcr:open');
    else if (m.method === 'session/load') ours.set(m.id, `orcr:load:${params.sessionId}`);
    else if (m.method === 'turn/start' || m.method === 'session/prompt') ours.set(m.id, `orcr:turn:${++turn}`);
  }
  return ours;
}

function turnsOf(protocol: Protocol, lines: readonly string[]): number {
  const a = createAdapter(protocol, { modelTurns: true });
  return lines.flatMap((l) => a.line(l)).filter((s) => s.kind === 'turn_end').length;
}

function samples(): Sample[] {
  const out: Sample[] = [];
  const add = (protocol: Protocol, label: string, lines: string[]): void => {
    out.push({ protocol, label, lines, turns: Math.max(1, turnsOf(protocol, lines)) });
  };
  add('codex', 'codex exec --json', streamLines('codex', ['tool-turn', 'repeating-tool']));
  add('codex-app', 'codex app-server', recordedLines('codex-app', ['handshake-two-turns', 'approval-command-accept', 'approval-file-accept']));
  add('gemini', 'gemini stream-json', streamLines('gemini', ['tool-turn', 'self-loop']));
  if (fs.existsSync(path.join(FIXTURES, 'acp'))) {
    // Whole sessions that work: the handshake's two turns, permissions asked and answered, a loop of tool calls.
    const SESSIONS = new Set(['handshake-two-turns', 'permission-allow-once', 'permission-allow-always', 'permission-reject', 'loop']);
    const names = fs
      .readdirSync(path.join(FIXTURES, 'acp'))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => f.slice(0, -'.jsonl'.length));
    add(
      'acp',
      'gemini --acp',
      recordedLines(
        'acp',
        names.filter((n) => SESSIONS.has(n)),
      ),
    );
  }
  add('claude', 'claude stream-json', streamLines('claude', ['tool-turn', 'two-turns']));
  return out;
}

/** CPU ns per line of one sample (this process's user + system time, not the wall's: a shared machine's other work is not counted), read whole again and again for at least `ms` of CPU. */
function perLine(s: Sample, ms: number): number {
  let lines = 0;
  const c0 = process.cpuUsage();
  let used = 0;
  while (used < ms * 1000) {
    const a = createAdapter(s.protocol, { modelTurns: true });
    for (const l of s.lines) a.line(l);
    a.end?.();
    lines += s.lines.length;
    const c = process.cpuUsage(c0);
    used = c.user + c.system;
  }
  return (used * 1000) / lines;
}

const PAIRS: readonly [Protocol, Protocol][] = [
  ['codex-app', 'codex'],
  ['acp', 'gemini'],
];

function run(ctx: Ctx): Promise<ItemResult> {
  const all = samples();
  const rounds = ctx.quick ? 5 : 21;
  const ms = 150;
  const ns = new Map<Protocol, number[]>(all.map((s) => [s.protocol, []]));
  for (let r = 0; r < rounds; r++) for (const s of all) ns.get(s.protocol)!.push(perLine(s, ms));
  ctx.log(`adapters: ${all.map((s) => `${s.protocol} ${s.lines.length} lines`).join(', ')}`);
  const I = 'P';
  const figures: Figure[] = all.flatMap((s) => {
    const xs = ns.get(s.protocol)!;
    const perTurn = xs.map((x) => (x * s.lines.length) / s.turns / 1000);
    return [fig(I, `${s.label}: per line`, 'ns', xs, { ceiling: 200_000 }), fig(I, `${s.label}: per turn (${s.turns} turns)`, 'µs', perTurn)];
  });
  for (const [two, stream] of PAIRS) {
    const a = ns.get(two);
    const b = ns.get(stream);
    if (!a || !b) continue;
    const ratios = a.map((x, i) => x / b[i]!);
    const f = fig(I, `${two} / ${stream} per line`, '×', ratios, {
      target: '≤ 1.5×',
      meets: (m) => m <= 1.5,
      ceiling: 15,
      note: `fastest rounds ${Math.min(...a).toFixed(0)} / ${Math.min(...b).toFixed(0)} ns; medians ${median(a).toFixed(0)} / ${median(b).toFixed(0)} ns (${(median(a) / median(b)).toFixed(2)}×)`,
    });
    f.median = Math.min(...a) / Math.min(...b);
    f.met = f.median <= 1.5;
    figures.push(f);
  }
  return Promise.resolve({ figures, skipped: [] });
}

export const adapters: Item = { key: 'adapters', item: 'P', title: 'reading agent output, per protocol', run };
