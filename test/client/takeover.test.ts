// Taking a run over (`o`): which interactive command opens its session, from
// its protocol's record, or why there is none. The genuine CLIs are checked in
// test/real (Gemini's `--resume ID`: gemini.test.ts, and of an ACP run: acp.test.ts).

import { describe, expect, it } from 'vitest';
import { takeoverCommand } from '../../src/client/takeover.js';
import type { PublicRun } from '../../src/client/methods.js';

const run = (patch: Partial<PublicRun>): PublicRun =>
  ({ name: 'r', provider: 'claude', command: ['claude', '-p'], cwd: '/w', session_id: 'S1', ...patch }) as PublicRun;

describe('takeoverCommand', () => {
  it("opens each agent CLI's own session by its id, in the run's folder", () => {
    expect(takeoverCommand(run({}))).toEqual({ file: 'claude', args: ['--resume', 'S1'], cwd: '/w' });
    expect(takeoverCommand(run({ provider: 'codex', command: ['codex', 'exec', '--json', '-'], session_id: 'T1' }))).toEqual({
      file: 'codex',
      args: ['resume', 'T1'],
      cwd: '/w',
    });
    // Gemini CLI resumes a saved session by its UUID (its --help names only "latest" and an index).
    expect(
      takeoverCommand(run({ provider: 'gemini', command: ['gemini', '--output-format', 'stream-json'], session_id: '3abcb565-4a1c-45c5-a5bd-e3ff9c6e951b' })),
    ).toEqual({
      file: 'gemini',
      args: ['--resume', '3abcb565-4a1c-45c5-a5bd-e3ff9c6e951b'],
      cwd: '/w',
    });
  });

  it('an ACP run of Gemini CLI (`gemini --acp`) is taken over as a Gemini run: its session is one of the CLI’s own', () => {
    expect(takeoverCommand(run({ provider: 'gemini-acp', command: ['gemini', '--acp'], session_id: 'a1' }))).toEqual({
      file: 'gemini',
      args: ['--resume', 'a1'],
      cwd: '/w',
    });
  });

  it("keeps a run's pinned binary of that CLI, else the CLI on PATH", () => {
    expect(takeoverCommand(run({ command: ['/opt/bin/claude', '-p'] }))).toMatchObject({ file: '/opt/bin/claude' });
    expect(takeoverCommand(run({ command: ['node', 'mock-agent.js'] }))).toMatchObject({ file: 'claude' });
  });

  it('says why not: a run of no agent CLI, or one whose agent named no session yet', () => {
    expect(takeoverCommand(run({ name: 'plain', provider: 'sh', command: ['sh'] }))).toEqual({
      why: 'plain runs sh: o takes over Claude Code, Codex and Gemini runs only',
    });
    expect(takeoverCommand(run({ name: 'j', provider: 'jsonl' }))).toEqual({ why: 'j runs jsonl: o takes over Claude Code, Codex and Gemini runs only' });
    expect(takeoverCommand(run({ session_id: null }))).toEqual({ why: 'r has no session id yet (its agent has not said one): nothing to resume' });
  });
});
