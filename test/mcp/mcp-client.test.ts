// `orcr mcp` driven by the official MCP TypeScript SDK's Client over its
// stdio transport (which spawns the built `orcr mcp`), as Claude Code, the
// MCP Inspector and most agents reach it: tools listed and their schemas
// compiled, every tool called, bad arguments, cancellation, progress, and a
// supervisor restart under a live client.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { CLI, MOCK_AGENT, NODE, ROOT, script, until, useHomes } from '../support/harness.js';
import { useStartedHomes } from '../support/in-process.js';
import { eventTypes, holdingRun } from '../support/slot-lending.js';

/** Homes whose supervisor the spawned CLI or `orcr mcp` starts: for the test of it stopping and starting again. */
const home = useHomes();
/** Homes whose supervisor runs in this process, started before `orcr mcp` connects (most tests). */
const liveHome = useStartedHomes();

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

async function connected(h: { dir: string; env: NodeJS.ProcessEnv }, env: Record<string, string> = {}): Promise<Client> {
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...h.env, ...env })) if (typeof v === 'string') full[k] = v;
  const transport = new StdioClientTransport({ command: NODE, args: [CLI, 'mcp'], env: full, cwd: h.dir, stderr: 'pipe' });
  const client = new Client({ name: 'orcr-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A tool's result: its one text content parsed as JSON, and whether it is a tool error. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ value: any; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean };
  expect(r.content).toHaveLength(1);
  expect(r.content[0]!.type).toBe('text');
  return { value: JSON.parse(r.content[0]!.text), isError: r.isError === true };
}

describe('orcr mcp under the official MCP client', () => {
  it('lists its tools, each input schema valid JSON Schema (2020-12, strict) that accepts good arguments and refuses bad ones', async () => {
    const client = await connected(await liveHome());
    expect(client.getServerVersion()).toMatchObject({ name: 'orcr' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['kill', 'logs', 'ps', 'run', 'send', 'show', 'wait']);

    // The client's own validator, on an Ajv that checks each schema against the meta-schema and refuses unknown keywords.
    const ajv = new Ajv2020({ strict: true, validateSchema: true, allErrors: true });
    const validator = new AjvJsonSchemaValidator(ajv);
    const good: Record<string, Record<string, unknown>> = {
      run: { command: ['true'], name: 'x', timeout: '1m', max_turns: 3, env: { A: 'b' }, protocol: 'jsonl', loop: 'warn' },
      wait: { runs: ['x'], timeout: '30s' },
      show: { run: 'x' },
      logs: { run: 'x', tail: 5, stderr: true },
      send: { run: 'x', text: 'hi' },
      kill: { runs: ['x'], force: true },
      ps: { all: true, status: 'ended', provider: 'claude' },
    };
    const bad: Record<string, Record<string, unknown>> = {
      run: { command: [] },
      wait: { runs: [] },
      show: {},
      logs: { run: 'x', tail: 1.5 },
      send: { run: 'x' },
      kill: { runs: 'x' },
      ps: { status: 'bogus' },
    };
    for (const t of tools) {
      expect(ajv.validateSchema(t.inputSchema), `${t.name}: ${ajv.errorsText()}`).toBe(true);
      const check = validator.getValidator(t.inputSchema);
      expect(check(good[t.name]).valid, t.name).toBe(true);
      expect(check(bad[t.name]).valid, t.name).toBe(false);
      expect(check({ ...good[t.name], nonsense: 1 }).valid, `${t.name} takes no unknown argument`).toBe(false);
      expect(t.description!.length, t.name).toBeGreaterThan(30);
    }
  });

  it('calls every tool on an interactive agent: run, wait, send, show, logs, ps, kill', async () => {
    const h = await liveHome();
    const client = await connected(h);
    const run = await call(client, 'run', {
      name: 'chat',
      interactive: true,
      protocol: 'jsonl',
      command: [NODE, MOCK_AGENT, '--format', 'jsonl', '--scenario', 'interactive', '--delay', '10'],
      prompt: 'first',
    });
    expect(run).toMatchObject({ isError: false, value: { name: 'chat', uuid: expect.any(String) } });
    expect((await call(client, 'wait', { runs: ['chat'], timeout: '30s' })).value).toEqual([{ uuid: run.value.uuid, name: 'chat', token: 'turn_complete' }]);
    const sent = await call(client, 'send', { run: 'chat', text: 'second' });
    expect(sent).toMatchObject({ isError: false, value: { name: 'chat', input_seq: expect.any(Number) } });
    expect((await call(client, 'wait', { runs: ['chat'], timeout: '30s' })).value[0].token).toBe('turn_complete');
    expect((await call(client, 'show', { run: 'chat' })).value).toMatchObject({ name: 'chat', status: 'idle', turns: 2 });
    const logs = await call(client, 'logs', { run: 'chat', tail: 3 });
    expect(logs.value.lines).toHaveLength(3);
    for (const l of logs.value.lines) expect(JSON.parse(l)).toHaveProperty('type');
    expect((await call(client, 'ps', {})).value.map((r: { name: string }) => r.name)).toEqual(['chat']);
    expect((await call(client, 'kill', { runs: ['chat'] })).value).toMatchObject([{ name: 'chat', action: 'killing' }]);
    expect((await call(client, 'wait', { runs: ['chat'] })).value[0].token).toMatch(/^(killed|completed)$/);
    expect((await call(client, 'ps', {})).value).toEqual([]);
  });

  it('bad arguments are tool errors the model can read; an unknown tool is a protocol error', async () => {
    const client = await connected(await liveHome());
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['show', {}, /^"run" must be a string: a run's uuid, a unique uuid prefix or its name$/],
      ['logs', { run: 'x', tail: 1.5 }, /^"tail" must be a whole number of at least 1, got 1.5$/],
      ['logs', { run: 'x', tail: -3 }, /^"tail" must be a whole number of at least 1, got -3$/],
      ['wait', { runs: 'x' }, /^"runs" must be a non-empty array/],
      ['wait', { runs: ['x'], timeout: 'soon' }, /^timeout: /],
      ['run', { command: ['true'], max_turns: 'x' }, /"max_turns" must be a whole number/],
      ['ps', { status: 'bogus' }, /^"status" must be one of queued/],
      ['kill', { runs: ['x'], hard: true }, /^kill takes no argument "hard" \(it takes: runs, force\)$/],
    ];
    for (const [name, args, message] of cases) {
      const r = await call(client, name, args);
      expect(r.isError, name).toBe(true);
      expect(r.value.error.code, name).toBe('usage');
      expect(r.value.error.exit_code, name).toBe(2);
      expect(r.value.error.message, name).toMatch(message);
    }
    await expect(client.callTool({ name: 'rm', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    // An empty run names none, as `orcr show ''` says: the method's param takes it, and the answer is not_found.
    expect(await call(client, 'show', { run: '' })).toEqual({ isError: true, value: { error: { code: 'not_found', message: 'no run ""', exit_code: 6 } } });
  });

  it('an aborted wait stops: the call rejects and the supervisor drops its wait (the slot it lent comes back)', async () => {
    const h = await liveHome({ concurrency: { max: 1 } });
    const parent = await holdingRun(h, 'parent');
    const client = await connected(h, { ORCR_RUN: parent.uuid });
    await call(client, 'run', { name: 'kid', command: ['sleep', '600'] });
    const ac = new AbortController();
    const waiting = client.callTool({ name: 'wait', arguments: { runs: ['kid'] } }, undefined, { signal: ac.signal }).catch((e: unknown) => e);
    await until(async () => (await eventTypes(h, parent.uuid)).includes('slot_lent'), 'the wait to lend the slot');
    ac.abort('enough');
    expect(await waiting).toMatchObject({ message: expect.stringContaining('enough') });
    await until(async () => (await eventTypes(h, parent.uuid)).includes('slot_taken_back'), 'the slot back');
    // The server is still there for the next call.
    expect((await call(client, 'show', { run: 'kid' })).value.status).toBe('working');
  });

  it("progress keeps a long wait alive past the client's request timeout (resetTimeoutOnProgress)", async () => {
    const h = await liveHome();
    const client = await connected(h, { ORCR_MCP_PROGRESS_MS: '150' });
    await call(client, 'run', { name: 'long', command: ['sleep', '600'] });
    // Without progress the client gives up at its timeout…
    await expect(client.callTool({ name: 'wait', arguments: { runs: ['long'], timeout: '5s' } }, undefined, { timeout: 1500 })).rejects.toMatchObject({
      code: -32001,
    });
    // …with it, the wait runs to its own end.
    const seen: { progress: number; total?: number }[] = [];
    const r = (await client.callTool({ name: 'wait', arguments: { runs: ['long'], timeout: '5s' } }, undefined, {
      timeout: 1500,
      resetTimeoutOnProgress: true,
      onprogress: (p) => seen.push(p),
    })) as { content: { text: string }[] };
    expect(JSON.parse(r.content[0]!.text)).toMatchObject([{ name: 'long', token: 'pending' }]);
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(seen[0]).toMatchObject({ total: 5 });
    await call(client, 'kill', { runs: ['long'], force: true });
  });

  it('after the supervisor is stopped and another starts, the same client goes on', async () => {
    const h = home();
    const client = await connected(h);
    await call(client, 'run', { name: 'a', command: ['true'] });
    await call(client, 'wait', { runs: ['a'] });
    const first = h.serverPid();
    expect(h.cli(['server', 'stop']).code).toBe(0);
    expect((await call(client, 'ps', { all: true })).value.map((r: { name: string }) => r.name)).toEqual(['a']);
    expect(h.serverPid()).not.toBe(first);
    expect(h.cli(['server', 'stop']).code).toBe(0);
    expect(h.cli(['server', 'status']).code).toBe(7);
    expect(h.cli(['ps']).code).toBe(0); // another starter
    expect((await call(client, 'show', { run: 'a' })).value.exit_reason).toBe('completed');
  });
});

describe('an agent that is a run, using orcr mcp through the official client', () => {
  it('under concurrency.max 1 it starts two children and waits on them (no timeout): its slot is lent, and everything completes', async () => {
    const h = await liveHome({ concurrency: { max: 1 } });
    const sdk = (p: string): string => JSON.stringify(path.join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm', p));
    // The agent: orcr starts it with ORCR_RUN set, and its `orcr mcp` inherits that, as an agent's MCP server does.
    const agent = script(
      h,
      'agent.mjs',
      `import { Client } from ${sdk('client/index.js')};
import { StdioClientTransport } from ${sdk('client/stdio.js')};
const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string'));
const client = new Client({ name: 'agent', version: '1' });
await client.connect(new StdioClientTransport({ command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(CLI)}, 'mcp'], env }));
const text = (r) => JSON.parse(r.content[0].text);
for (const n of ['c1', 'c2']) text(await client.callTool({ name: 'run', arguments: { name: n, command: ['sh', '-c', 'echo ' + n] } }));
const settled = text(await client.callTool({ name: 'wait', arguments: { runs: ['c1', 'c2'] } }, undefined, { timeout: 120000 }));
console.log(settled.map((s) => s.name + ' ' + s.token).join(', '));
await client.close();
`,
    );
    const parent = await h.run(['-n', 'agent', '--', NODE, agent]);
    const waited = await h.cli(['wait', 'agent', '--timeout', '40s']);
    expect(waited.stdout + waited.stderr).toBe('agent completed\n');
    expect((await h.cli(['logs', 'agent'])).stdout).toBe('c1 completed, c2 completed\n');
    const kids = (await h.ps({ all: true })).filter((r) => r.name !== 'agent');
    expect(kids.map((k) => [k.name, k.parent, k.exit_reason])).toEqual([
      ['c1', parent.uuid, 'completed'],
      ['c2', parent.uuid, 'completed'],
    ]);
    expect(await eventTypes(h, parent.uuid)).toEqual(expect.arrayContaining(['slot_lent', 'slot_taken_back']));
  });
});
