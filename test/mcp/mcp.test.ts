// `orcr mcp` at the protocol level: a real `orcr mcp` child speaking JSON-RPC
// on its stdin/stdout, a real supervisor behind it, real runs.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, NODE, ROOT, until, useHomes, type TestHome } from '../support/harness.js';

const home = useHomes();

interface Reply {
  id: number;
  result?: any;
  error?: { code: number; message: string };
}

/** An MCP client over a child's stdio: requests by id, and every line it wrote. */
class McpPeer {
  private nextId = 1;
  private replies = new Map<number, Reply>();
  readonly lines: string[] = [];
  readonly stderr: string[] = [];
  constructor(readonly child: ChildProcess) {
    let buf = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (c: string) => {
      buf += c;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        this.lines.push(line);
        const msg = JSON.parse(line) as Reply;
        this.replies.set(msg.id, msg);
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (c: string) => this.stderr.push(c));
  }

  async request(method: string, params?: unknown): Promise<Reply> {
    const id = this.nextId++;
    this.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    return until(() => this.replies.get(id), () => `a reply to ${method} #${id} (stderr: ${this.stderr.join('')})`);
  }

  notify(method: string, params?: unknown): void {
    this.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
  }

  /** tools/call; the text content parsed as JSON, and whether it is a tool error. */
  async tool(name: string, args: Record<string, unknown>): Promise<{ value: any; isError: boolean }> {
    const r = await this.request('tools/call', { name, arguments: args });
    expect(r.error, JSON.stringify(r.error)).toBeUndefined();
    expect(r.result.content).toHaveLength(1);
    expect(r.result.content[0].type).toBe('text');
    return { value: JSON.parse(r.result.content[0].text), isError: r.result.isError === true };
  }
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function mcp(h: TestHome, env: NodeJS.ProcessEnv = {}): McpPeer {
  const child = spawn(NODE, [CLI, 'mcp'], { env: { ...h.env, ...env }, cwd: h.dir, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  return new McpPeer(child);
}

describe('orcr mcp', () => {
  it('initializes, lists its tools, and runs, waits on, shows, reads and kills runs made with the caller\'s environment', async () => {
    const h = home({ concurrency: { max: 2 } });
    const peer = mcp(h, { CALLER_MARK: 'from-the-calling-agent' });

    const init = await peer.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    expect(init.result).toMatchObject({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'orcr' } });
    peer.notify('notifications/initialized');

    const list = await peer.request('tools/list', {});
    const tools = list.result.tools as { name: string; description: string; inputSchema: { type: string; properties: object; required?: string[] } }[];
    expect(tools.map((t) => t.name).sort()).toEqual(['kill', 'logs', 'run', 'send', 'show', 'wait']);
    for (const t of tools) {
      expect(t.description.length, t.name).toBeGreaterThan(20);
      expect(t.inputSchema.type, t.name).toBe('object');
    }
    expect(tools.find((t) => t.name === 'wait')!.inputSchema.required).toEqual(['runs']);
    // The README's table of tools is the list.
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## orcr mcp'), readme.indexOf('\n## ', readme.indexOf('## orcr mcp') + 1));
    expect([...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]).sort()).toEqual(tools.map((t) => t.name).sort());

    // Two runs under a global cap of 2: both start.
    const first = await peer.tool('run', { name: 'first', command: ['sh', '-c', 'echo "$CALLER_MARK in $ORCR_RUN_NAME"'] });
    expect(first.isError).toBe(false);
    expect(first.value).toMatchObject({ name: 'first', uuid: expect.any(String) });
    const second = await peer.tool('run', { name: 'second', command: ['sh', '-c', 'echo started; exec sleep 600'] });
    expect(second.value.name).toBe('second');

    const waited = await peer.tool('wait', { runs: ['first'], timeout: '30s' });
    expect(waited.value).toEqual([{ uuid: first.value.uuid, name: 'first', token: 'completed' }]);
    const shown = await peer.tool('show', { run: first.value.uuid });
    expect(shown.value).toMatchObject({ name: 'first', status: 'ended', exit_reason: 'completed', exit_code: 0 });
    // The run started with `orcr mcp`'s environment: the calling agent's.
    const logs = await peer.tool('logs', { run: 'first' });
    expect(logs.value).toEqual({ lines: ['from-the-calling-agent in first'] });

    await until(async () => (await peer.tool('logs', { run: 'second' })).value.lines[0] === 'started', 'second to start');
    expect((await peer.tool('show', { run: 'second' })).value.status).not.toBe('queued');
    const killed = await peer.tool('kill', { runs: ['second'], force: true });
    expect(killed.value).toMatchObject([{ name: 'second', action: 'killing' }]);
    expect((await peer.tool('wait', { runs: ['second'] })).value).toMatchObject([{ name: 'second', token: 'killed' }]);

    // The CLI sees the same runs in the same home.
    expect(h.json<{ name: string }[]>(['ps', '--all']).map((r) => r.name).sort()).toEqual(['first', 'second']);
  });

  it('says what went wrong: a tool error with the CLI\'s code and exit code, a bad spec, an unknown tool or method', async () => {
    const h = home();
    const peer = mcp(h);
    // A version it does not speak: it answers with its own, and the client decides.
    const init = await peer.request('initialize', { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    expect(init.result.protocolVersion).toMatch(/^20\d\d-\d\d-\d\d$/);
    expect(init.result.protocolVersion).not.toBe('1999-01-01');

    const missing = await peer.tool('show', { run: 'nope' });
    expect(missing).toEqual({ isError: true, value: { error: { code: 'not_found', message: 'no run "nope"', exit_code: 6 } } });
    const bad = await peer.tool('run', { command: ['true'], max_turns: 'x' });
    expect(bad).toEqual({ isError: true, value: { error: { code: 'usage', message: '"max_turns" must be a whole number, got "x"', exit_code: 2 } } });
    const idle = await peer.tool('send', { run: 'nope', text: 'hi' });
    expect(idle.value.error.code).toBe('not_found');

    expect((await peer.request('tools/call', { name: 'rm', arguments: {} })).error).toMatchObject({ code: -32602 });
    expect((await peer.request('resources/list', {})).error).toMatchObject({ code: -32601 });
    expect((await peer.request('ping')).result).toEqual({});
  });

  it('ends when its input ends', async () => {
    const peer = mcp(home());
    const exited = new Promise<number | null>((r) => peer.child.once('exit', r));
    peer.child.stdin!.end();
    expect(await exited).toBe(0);
  });
});
