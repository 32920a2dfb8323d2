// The genuine Claude Code CLI using `orcr mcp` as an MCP server (--mcp-config):
// the scripted model calls orcr's run tool twice, and both runs exist in the
// home as children of the agent that asked for them, made with its environment.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { CLI, NODE } from '../support/harness.js';
import { text, toolCall, type RecordedRequest } from '../support/model-server.js';
import { announce, needAgent, useRigs } from '../support/real-agents.js';
import { describeWhen } from '../support/skip.js';
import { agentBin } from '../support/install-agents.mjs';

announce('claude');

const rig = useRigs();

/** The results of one tool's calls the model was sent in a request, as text. */
function toolResultTexts(req: RecordedRequest, tool: string): string[] {
  const calls = new Set<string>();
  const out: string[] = [];
  for (const m of req.body?.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    if (m.role === 'assistant') for (const b of m.content) if (b.type === 'tool_use' && b.name === tool) calls.add(b.id);
    if (m.role !== 'user') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result' || !calls.has(b.tool_use_id)) continue;
      out.push(typeof b.content === 'string' ? b.content : (b.content ?? []).map((c: { text?: string }) => c.text ?? '').join(''));
    }
  }
  return out;
}

describeWhen(
  needAgent('claude'),
  'real Claude Code with orcr mcp',
  () => {
    it('the model calls the run tool twice: both runs exist, completed, children of the calling agent, with its environment', async () => {
      const r = await rig({ config: { concurrency: { max: 2 } } });
      const mcpConfig = path.join(r.agentHome, 'mcp.json');
      // ORCR_HOME in the server's own env too: whatever Claude passes on, orcr mcp must never reach the user's ~/.orcr.
      fs.writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { orcr: { command: NODE, args: [CLI, 'mcp'], env: { ORCR_HOME: r.home.dir } } } }));
      r.server.script(
        'anthropic',
        // Claude Code 2.1.332 defers MCP tools behind its ToolSearch tool: the model asks for the one it needs first.
        toolCall('ToolSearch', { query: 'select:mcp__orcr__run', max_results: 5 }),
        toolCall('mcp__orcr__run', { name: 'child-1', command: ['sh', '-c', 'echo "one $CALLER_MARK"'] }),
        toolCall('mcp__orcr__run', { name: 'child-2', command: ['sh', '-c', 'echo "two $CALLER_MARK"'] }),
        text('Both runs are queued.'),
      );
      // Claude as orcr starts it: its own run's uuid in ORCR_RUN (a stand-in run holds the place of Claude's).
      const agent = await r.json<{ uuid: string }>(['run', '-n', 'the-agent', '--', 'sleep', '300']);
      // MCP_TIMEOUT: Claude Code goes on without a server that is slow to start (the tool is then
      // simply not offered); on a loaded machine a Node server can take longer than its default.
      const env = { ...r.agentEnv({ CALLER_MARK: 'from-claude', ORCR_HOME: r.home.dir, ORCR_RUN: agent.uuid, MCP_TIMEOUT: '60000' }) };
      const claude = spawn(
        agentBin('claude'),
        [
          '-p',
          'start two runs',
          '--output-format',
          'stream-json',
          '--verbose',
          '--mcp-config',
          mcpConfig,
          '--strict-mcp-config',
          '--allowedTools',
          'mcp__orcr__run',
        ],
        { cwd: r.work, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      let err = '';
      claude.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      claude.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
      const code = await new Promise<number | null>((resolve) => claude.on('close', resolve));
      const reqs = r.server.requests.map((q) => `${q.method} ${q.path} main=${q.main} step=${q.step?.kind ?? '-'}`).join('\n');
      expect(code, `claude exited ${code}\n--- stderr\n${err}\n--- stdout (tail)\n${out.slice(-3000)}\n--- requests\n${reqs}`).toBe(0);

      // The tool was offered, called twice, and each call's result was a run.
      const main = r.server.mainRequests('anthropic');
      const init = out.split('\n').find((l) => l.includes('"subtype":"init"')) ?? '(no init line)';
      const offered = (q: RecordedRequest): string[] => q.body.tools.map((t: { name: string }) => t.name);
      const why = `claude's init: ${init.slice(0, 2000)}\n--- stderr\n${err.slice(-2000)}\n--- tools offered\n${main.map((q) => offered(q).join(',')).join('\n')}`;
      // Listed in init, but deferred: the first request offers only the search, the one after it the tool found.
      expect(init).toContain('mcp__orcr__run');
      expect(offered(main[0]!), why).toContain('ToolSearch');
      expect(offered(main[0]!), why).not.toContain('mcp__orcr__run');
      expect(offered(main[1]!), why).toContain('mcp__orcr__run');
      const results = toolResultTexts(main.at(-1)!, 'mcp__orcr__run');
      expect(results.map((t) => JSON.parse(t).name)).toEqual(['child-1', 'child-2']);

      const runs = await r.json<{ name: string; uuid: string; parent: string | null; depth: number }[]>(['ps', '--all']);
      expect(runs.map((x) => x.name).sort()).toEqual(['child-1', 'child-2', 'the-agent']);
      // Children of the agent that called the tool.
      for (const n of ['child-1', 'child-2']) expect(runs.find((x) => x.name === n)).toMatchObject({ parent: agent.uuid, depth: 1 });
      const settled = await r.json<{ name: string; token: string }[]>(['wait', 'child-1', 'child-2', '--timeout', '30s']);
      expect(settled.map((s) => s.token)).toEqual(['completed', 'completed']);
      // Made with the environment Claude gave its MCP server.
      const lines = async (name: string) => (await r.cli(['logs', name, '--raw'])).stdout.trim();
      expect([await lines('child-1'), await lines('child-2')]).toEqual(['one from-claude', 'two from-claude']);
    });
  },
  { timeout: 180_000 },
);
