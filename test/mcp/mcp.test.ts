// `orcr mcp` at the protocol level: a real `orcr mcp` child speaking JSON-RPC
// on its stdin/stdout, a real supervisor behind it, real runs.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, NODE, ROOT, until, useHomes } from '../support/harness.js';
import { useStartedHomes } from '../support/in-process.js';
import { eventTypes, holdingRun } from '../support/slot-lending.js';

/** Homes whose supervisor the spawned CLI or `orcr mcp` starts: for the tests of it stopping and starting again. */
const home = useHomes();
/** Homes whose supervisor runs in this process, started before `orcr mcp` connects (most tests). */
const liveHome = useStartedHomes();

interface Reply {
  id: number | string | null;
  result?: any;
  error?: { code: number; message: string };
}

interface Notification {
  method: string;
  params?: any;
}

/** An MCP client over a child's stdio: requests by id, and every line it wrote. */
class McpPeer {
  private nextId = 1;
  private replies = new Map<number | string | null, Reply>();
  readonly lines: string[] = [];
  /** Every message it wrote, in order: replies, batches (arrays) and notifications. */
  readonly messages: unknown[] = [];
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
        const msg = JSON.parse(line) as Reply | Reply[] | Notification;
        this.messages.push(msg);
        if (!Array.isArray(msg) && 'id' in msg) this.replies.set(msg.id, msg);
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (c: string) => this.stderr.push(c));
  }

  /** Send a request; its id, without waiting for the reply. */
  send(method: string, params?: unknown): number {
    const id = this.nextId++;
    this.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    return id;
  }

  reply(id: number | string | null, what = 'a reply'): Promise<Reply> {
    return until(
      () => this.replies.get(id),
      () => `${what} #${String(id)} (stderr: ${this.stderr.join('')})`,
    );
  }

  hasReply(id: number | string | null): boolean {
    return this.replies.has(id);
  }

  async request(method: string, params?: unknown): Promise<Reply> {
    const id = this.send(method, params);
    return this.reply(id, `a reply to ${method}`);
  }

  /** A line as given: anything, valid JSON-RPC or not. */
  raw(line: string): void {
    this.child.stdin!.write(line + '\n');
  }

  notifications(method: string): Notification[] {
    return this.messages.filter((m): m is Notification => !Array.isArray(m) && (m as Notification).method === method);
  }

  async initialize(protocolVersion = '2025-06-18'): Promise<void> {
    const init = await this.request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    expect(init.result.protocolVersion).toBe(protocolVersion);
    this.notify('notifications/initialized');
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

function mcp(h: { dir: string; env: NodeJS.ProcessEnv }, env: NodeJS.ProcessEnv = {}): McpPeer {
  const child = spawn(NODE, [CLI, 'mcp'], { env: { ...h.env, ...env }, cwd: h.dir, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  return new McpPeer(child);
}

describe('orcr mcp', () => {
  it("initializes, lists its tools, and runs, waits on, shows, reads and kills runs made with the caller's environment", async () => {
    const h = await liveHome({ concurrency: { max: 2 } });
    const peer = mcp(h, { CALLER_MARK: 'from-the-calling-agent' });

    const init = await peer.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    expect(init.result).toMatchObject({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'orcr' } });
    peer.notify('notifications/initialized');

    const list = await peer.request('tools/list', {});
    const tools = list.result.tools as { name: string; description: string; inputSchema: { type: string; properties: object; required?: string[] } }[];
    expect(tools.map((t) => t.name).sort()).toEqual(['kill', 'logs', 'ps', 'run', 'send', 'show', 'wait']);
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

    // A run spec's "after": this one waits for first (ended completed: it starts at once).
    const third = await peer.tool('run', { name: 'third', after: ['first'], command: ['sh', '-c', 'echo "$ORCR_AFTER"'] });
    expect(third.value.after).toEqual([first.value.uuid]);
    expect((await peer.tool('wait', { runs: ['third'] })).value).toMatchObject([{ name: 'third', token: 'completed' }]);
    expect((await peer.tool('logs', { run: 'third' })).value).toEqual({ lines: [first.value.uuid] });
    expect(tools.find((t) => t.name === 'run')!.inputSchema.properties).toHaveProperty('after');

    // The CLI sees the same runs in the same home.
    expect((await h.json<{ name: string }[]>(['ps', '--all'])).map((r) => r.name).sort()).toEqual(['first', 'second', 'third']);
  });

  it("says what went wrong: a tool error with the CLI's code and exit code, a bad spec, an unknown tool or method", async () => {
    const h = await liveHome();
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
    expect((await peer.request('tools/call', {})).error).toMatchObject({ code: -32602, message: expect.stringMatching(/^tools\/call needs "name"/) });
    expect((await peer.request('tools/call', { name: 'show', arguments: [1] })).error).toMatchObject({
      code: -32602,
      message: '"arguments" must be an object, got [1]',
    });
    expect((await peer.request('resources/list', {})).error).toMatchObject({ code: -32601 });
    expect((await peer.request('ping')).result).toEqual({});
  });

  it('ends when its input ends', async () => {
    const peer = mcp(await liveHome());
    const exited = new Promise<number | null>((r) => peer.child.once('exit', r));
    peer.child.stdin!.end();
    expect(await exited).toBe(0);
  });
});

describe('orcr mcp inside a run', () => {
  it('a wait on its own children lends the calling run its slot: with concurrency.max 1 they run, and the wait returns', async () => {
    const h = await liveHome({ concurrency: { max: 1 } });
    const parent = await holdingRun(h, 'parent');
    // As orcr starts an agent: ORCR_RUN is its run's uuid, and the agent's `orcr mcp` inherits it.
    const peer = mcp(h, { ORCR_RUN: parent.uuid });
    await peer.initialize();
    const c1 = await peer.tool('run', { name: 'c1', command: ['sh', '-c', 'echo one'] });
    const c2 = await peer.tool('run', { name: 'c2', command: ['sh', '-c', 'echo two'] });
    expect([c1.value.parent, c2.value.parent]).toEqual([parent.uuid, parent.uuid]);
    expect([c1.value.status, c2.value.status]).toEqual(['queued', 'queued']);

    // No timeout: before the fix this never returned (both children queued behind their own parent).
    const waited = await peer.tool('wait', { runs: ['c1', 'c2'] });
    expect(waited.value).toEqual([
      { uuid: c1.value.uuid, name: 'c1', token: 'completed' },
      { uuid: c2.value.uuid, name: 'c2', token: 'completed' },
    ]);
    expect(await eventTypes(h, parent.uuid)).toEqual(expect.arrayContaining(['slot_lent', 'slot_taken_back']));
  });
});

describe('orcr mcp and its supervisor', () => {
  it('after the supervisor stops and another starts, the next call connects again (the first call after a stop starts one)', async () => {
    const h = home();
    const peer = mcp(h);
    await peer.initialize();
    const a = await peer.tool('run', { name: 'a', command: ['true'] });
    expect((await peer.tool('wait', { runs: ['a'] })).value[0].token).toBe('completed');
    const before = h.serverPid();

    expect(h.cli(['server', 'stop']).code).toBe(0);
    expect(h.serverPid()).toBeNull();
    // No supervisor now: this call starts one, as any verb does.
    const shown = await peer.tool('show', { run: 'a' });
    expect(shown).toMatchObject({ isError: false, value: { uuid: a.value.uuid, status: 'ended' } });
    const after = h.serverPid();
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);

    // And once more, with a supervisor started by someone else meanwhile.
    expect(h.cli(['server', 'stop']).code).toBe(0);
    expect(h.cli(['ps']).code).toBe(0);
    expect((await peer.tool('ps', { all: true })).value.map((r: { name: string }) => r.name)).toEqual(['a']);
  });

  it('a wait in flight when the supervisor is stopped on purpose says stopped; the next call goes on', async () => {
    const h = home();
    const peer = mcp(h);
    await peer.initialize();
    await peer.tool('run', { name: 'long', command: ['sleep', '600'] });
    const id = peer.send('tools/call', { name: 'wait', arguments: { runs: ['long'] } });
    // The wait is at the supervisor: its own connection, beside the tools' one and this status's.
    await until(() => h.json<{ clients: number }>(['server', 'status']).clients >= 3, 'the wait to reach the supervisor');
    expect(h.cli(['server', 'stop']).code).toBe(0);
    const r = await peer.reply(id);
    expect(r.result.isError).toBe(true);
    expect(JSON.parse(r.result.content[0].text).error).toMatchObject({ code: 'stopped', exit_code: 7 });
    expect((await peer.tool('show', { run: 'long' })).value.status).not.toBe('ended');
    await peer.tool('kill', { runs: ['long'], force: true });
  });

  it('a request over 8 MiB (in UTF-8 bytes) is a usage error before it is sent, and the connection stays', async () => {
    const h = await liveHome();
    const peer = mcp(h);
    await peer.initialize();
    await peer.tool('run', { name: 'small', command: ['true'] });
    // 4.5 M characters, 9 MB in UTF-8: under the limit counted in characters, over it in bytes.
    const big = await peer.tool('run', { name: 'big', command: ['true'], prompt: 'é'.repeat(4.5 * 1024 * 1024) });
    expect(big.isError).toBe(true);
    expect(big.value.error).toMatchObject({ code: 'usage', exit_code: 2 });
    expect(big.value.error.message).toMatch(
      /^the prompt: too large to send: the request would be 9 MiB \(\d+ bytes as JSON\), and the supervisor takes at most 8 MiB/,
    );
    const sent = await peer.tool('send', { run: 'small', text: 'x'.repeat(9 * 1024 * 1024) });
    expect(sent.value.error).toMatchObject({ code: 'usage', exit_code: 2, message: expect.stringMatching(/^the text: too large to send/) });
    // Nothing was queued, and the same connection answers.
    expect((await peer.tool('ps', { all: true })).value.map((r: { name: string }) => r.name)).toEqual(['small']);
  });
});

describe('orcr mcp speaks JSON-RPC as the spec says', () => {
  it('a line that is no request object (null, 42, "x", [], true, {}) is an Invalid Request, and the server lives on', async () => {
    const peer = mcp(await liveHome());
    await peer.initialize();
    const bad = [
      'null',
      '42',
      '"x"',
      '[]',
      'true',
      '{}',
      '{"jsonrpc":"2.0","id":{},"method":"ping"}',
      '{"jsonrpc":"2.0","id":7,"method":"ping","params":3}',
      '{"id":8,"method":"ping"}',
    ];
    for (const line of bad) peer.raw(line);
    const ok = await peer.request('ping');
    expect(ok.result).toEqual({});
    const errors = peer.messages.filter((m) => !Array.isArray(m) && (m as Reply).error);
    expect(errors).toHaveLength(bad.length);
    for (const e of errors) expect((e as Reply).error!.code).toBe(-32600);
    // Where the id could be read, the error carries it.
    expect(errors.map((e) => (e as Reply).id)).toEqual([null, null, null, null, null, null, null, 7, 8]);
    expect(peer.child.exitCode).toBeNull();
  });

  it('a batch is answered as a batch under 2025-03-26, and refused (Invalid Request) under the versions without batches', async () => {
    const h = await liveHome();
    const old = mcp(h);
    await old.initialize('2025-03-26');
    old.raw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        5,
        { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
        { jsonrpc: '2.0', id: 'c', method: 'nope' },
      ]),
    );
    const batch = (await until(() => old.messages.find((m) => Array.isArray(m)), 'a batch reply')) as Reply[];
    const byId = new Map(batch.map((r) => [r.id, r]));
    expect(batch).toHaveLength(4); // no answer to the notification
    expect(byId.get('a')!.result).toEqual({});
    expect(byId.get('b')!.result.tools.length).toBeGreaterThan(5);
    expect(byId.get('c')!.error!.code).toBe(-32601);
    expect(byId.get(null)!.error!.code).toBe(-32600);

    const now = mcp(h);
    await now.initialize('2025-06-18');
    now.raw(JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'ping' }]));
    const refused = await now.reply(null, 'the refusal of a batch');
    expect(refused.error).toMatchObject({ code: -32600, message: expect.stringMatching(/batch/) });
    expect(now.messages.some((m) => Array.isArray(m))).toBe(false);
    expect(now.hasReply('a')).toBe(false);
  });

  it('notifications/cancelled stops a wait: nothing is answered for it, and its supervisor-side wait is dropped (the lent slot comes back)', async () => {
    const h = await liveHome({ concurrency: { max: 1 } });
    const parent = await holdingRun(h, 'parent');
    const peer = mcp(h, { ORCR_RUN: parent.uuid });
    await peer.initialize();
    await peer.tool('run', { name: 'child', command: ['sleep', '600'] });
    const id = peer.send('tools/call', { name: 'wait', arguments: { runs: ['child'] } });
    await until(async () => (await eventTypes(h, parent.uuid)).includes('slot_lent'), 'the wait to lend the slot');
    peer.notify('notifications/cancelled', { requestId: id, reason: 'the user changed their mind' });
    await until(async () => (await eventTypes(h, parent.uuid)).includes('slot_taken_back'), 'the cancelled wait to give the slot back');
    expect((await peer.request('ping')).result).toEqual({});
    expect(peer.hasReply(id)).toBe(false);
    // A cancel for a request that is done, or never was, is ignored.
    peer.notify('notifications/cancelled', { requestId: 999 });
    expect((await peer.request('ping')).result).toEqual({});
  });

  it('a wait with a progressToken gets notifications/progress while it waits', async () => {
    const peer = mcp(await liveHome(), { ORCR_MCP_PROGRESS_MS: '100' });
    await peer.initialize();
    await peer.tool('run', { name: 'long', command: ['sleep', '600'] });
    const id = peer.send('tools/call', { name: 'wait', arguments: { runs: ['long'], timeout: '1500ms' }, _meta: { progressToken: 'tok-1' } });
    const r = await peer.reply(id);
    expect(JSON.parse(r.result.content[0].text)).toMatchObject([{ name: 'long', token: 'pending' }]);
    const progress = peer.notifications('notifications/progress');
    expect(progress.length).toBeGreaterThanOrEqual(3);
    for (const p of progress)
      expect(p.params).toMatchObject({ progressToken: 'tok-1', progress: expect.any(Number), message: expect.stringContaining('long') });
    const values = progress.map((p) => p.params.progress as number);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    // Without a token, no progress.
    const before = peer.notifications('notifications/progress').length;
    await peer.tool('wait', { runs: ['long'], timeout: '500ms' });
    expect(peer.notifications('notifications/progress')).toHaveLength(before);
    await peer.tool('kill', { runs: ['long'], force: true });
  });

  it('arguments are checked as the schemas say: logs.tail a whole number of at least 1, no unknown argument', async () => {
    const peer = mcp(await liveHome());
    await peer.initialize();
    await peer.tool('run', { name: 'r', command: ['sh', '-c', 'echo 1; echo 2; echo 3'] });
    await peer.tool('wait', { runs: ['r'] });
    expect((await peer.tool('logs', { run: 'r', tail: 2 })).value).toEqual({ lines: ['2', '3'] });
    for (const tail of [1.5, -3, 0, '2']) {
      const r = await peer.tool('logs', { run: 'r', tail });
      expect(r.isError, String(tail)).toBe(true);
      expect(r.value.error, String(tail)).toMatchObject({
        code: 'usage',
        exit_code: 2,
        message: `"tail" must be a whole number of at least 1, got ${JSON.stringify(tail)}`,
      });
    }
    const unknown = await peer.tool('show', { run: 'r', verbose: true });
    expect(unknown.value.error).toMatchObject({ code: 'usage', message: 'show takes no argument "verbose" (it takes: run)' });
  });

  it("ps lists the fleet as the SDK's list does: active runs by default, all, status and provider filters", async () => {
    const h = await liveHome();
    const peer = mcp(h);
    await peer.initialize();
    await peer.tool('run', { name: 'done', command: ['true'] });
    await peer.tool('wait', { runs: ['done'] });
    await peer.tool('run', { name: 'busy', provider: 'sleeper', command: ['sleep', '600'] });
    const names = async (args: Record<string, unknown>): Promise<string[]> => (await peer.tool('ps', args)).value.map((r: { name: string }) => r.name);
    expect(await names({})).toEqual(['busy']);
    expect(await names({ all: true })).toEqual(['done', 'busy']);
    expect(await names({ all: true, status: 'ended' })).toEqual(['done']);
    expect(await names({ all: true, provider: 'sleeper' })).toEqual(['busy']);
    // The rows `orcr ps --json` gives (the same fields; the time meters move between the two calls).
    const row = (await peer.tool('ps', {})).value[0];
    const cli = (await h.json<Record<string, unknown>[]>(['ps']))[0]!;
    expect(Object.keys(row).sort()).toEqual(Object.keys(cli).sort());
    expect(row).toMatchObject({ uuid: cli.uuid, name: 'busy', provider: 'sleeper', status: cli.status, command: ['sleep', '600'] });
    const bad = await peer.tool('ps', { status: 'bogus' });
    expect(bad.value.error).toMatchObject({
      code: 'usage',
      message: expect.stringContaining('"status" must be one of queued, starting, working, idle, blocked, ended'),
    });
    await peer.tool('kill', { runs: ['busy'], force: true });
  });
});
