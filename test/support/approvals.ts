// What the tests of answering requests share: the mock agent asking as
// Claude Code does under `--permission-prompt-tool stdio` (`--scenario ask`:
// a command, a new file or an edit; `ask-question`: a question first), the
// requests waiting as the supervisor lists them, and what the agent was told.

import fs from 'node:fs';
import path from 'node:path';
import { MOCK_AGENT, NODE, until } from './harness.js';
import type { Remote } from './in-process.js';

/** `orcr run --protocol claude -- <this>`: the built mock agent, asking before each tool. */
export const askingMock = (scenario: 'ask' | 'ask-question', seed = 7): string[] => [
  NODE,
  MOCK_AGENT,
  '--format',
  'claude',
  '--scenario',
  scenario,
  '--seed',
  String(seed),
  '--delay',
  '0',
];

export interface Request {
  id: number;
  run: string;
  name: string;
  tool: string;
  summary: string;
  question: boolean;
  questions: { question: string; options: { label: string }[]; multi: boolean }[] | null;
  always: string | null;
  state: string;
  by: { kind: string; via?: string; who?: string | null; rule?: string } | null;
  decided_by: string | null;
  message: string | null;
  answers: string[] | null;
}

/** The requests waiting (of one run), oldest first; `all`: decided ones too. */
export async function requests(h: Remote, run?: string, all = false): Promise<Request[]> {
  return (await h.call<{ approvals: Request[] }>('approval.list', { ...(run ? { run } : {}), ...(all ? { all } : {}) })).approvals;
}

/** The oldest request waiting (of the run), once there is one. */
export function nextRequest(h: Remote, what: string, run?: string): Promise<Request> {
  return until(async () => (await requests(h, run))[0], what);
}

/** One request as the journal has it now. */
export async function request(h: Remote, id: number): Promise<Request> {
  return (await h.call<{ approval: Request }>('approval.get', { id })).approval;
}

/** The tool results the agent printed: what it was told of each tool it asked for. */
export function toolResults(runDir: string): { content: string; is_error: boolean }[] {
  const out: { content: string; is_error: boolean }[] = [];
  for (const l of fs.readFileSync(path.join(runDir, 'out'), 'utf8').split('\n').filter(Boolean)) {
    const o = JSON.parse(l) as { type: string; message?: { content?: { tool_use_id?: string; content?: string; is_error?: boolean }[] } };
    if (o.type !== 'user' || !Array.isArray(o.message?.content)) continue;
    for (const b of o.message.content) if (b.tool_use_id) out.push({ content: String(b.content), is_error: b.is_error === true });
  }
  return out;
}
