// The probe of Gemini CLI's ACP mode (`gemini --acp`: JSON-RPC 2.0 lines on
// stdio) against the scripted model server, before orcr speaks ACP: what the
// genuine CLI sends and accepts, asserted, so that a new pin shows what
// changed. Sessions (session/load, take-over) are in gemini-acp-sessions.test.ts;
// the findings in test/real/README.md, "Gemini CLI --acp (0.61.0)".
//
//   ORCR_TEST_REAL=1 npx vitest run --config test/vitest.config.ts test/real/gemini-acp.test.ts
//
// With ORCR_RECORD_TRANSCRIPTS=1 as well, each scenario's lines are written to
// test/fixtures/acp/<scenario>.jsonl (format: test/fixtures/acp/README.md).

import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { until } from '../support/harness.js';
import { hang, httpError, text, toolCall, type Reply } from '../support/model-server.js';
import { announce, needProbe } from '../support/real-agents.js';
import { describeWhen } from '../support/skip.js';
import { cmdline, descendants, functionResponses, INITIALIZE, conversation, prompt, useWorlds, type AcpProbe } from './acp-probe.js';

announce('gemini');

const world = useWorlds();

/** A turn's updates, by kind. */
const kinds = (updates: any[]): string[] => updates.map((u) => u.sessionUpdate);

const QUOTA = 'Resource has been exhausted (e.g. check quota).';
const CANCELED = 'Tool "run_shell_command" was canceled by the user.';

/** Nothing on stdout but JSON-RPC, and nothing asked of the client unless expected. */
function clean(p: AcpProbe, asked = 0): void {
  expect(p.rawOut(), p.tail()).toEqual([]);
  expect(p.agentRequests()).toHaveLength(asked);
  for (const l of p.outLines()) expect(l.jsonrpc).toBe('2.0');
}

describeWhen(
  needProbe('gemini'),
  'Gemini CLI --acp (probe)',
  () => {
    it('handshake pipelined with string ids, no authenticate; a turn with a tool call and a thought; a second turn keeps the history; usage in _meta', async () => {
      const w = await world();
      const answer: Reply = { ...text('The word is PINEAPPLE.', { input: 800, output: 9, cached: 100 }), thought: '**Recalling the word**\nIt is PINEAPPLE.' };
      w.server.script(
        'gemini',
        toolCall('run_shell_command', { command: 'echo made-it', description: 'say it' }, { input: 700, output: 30, cached: 200 }),
        answer,
        text('It was PINEAPPLE.', { input: 900, output: 5 }),
      );
      const p = w.spawn();
      const sid = await w.open(p);
      const init = p.response('orcr:init').result;
      expect(init).toMatchObject({
        protocolVersion: 1,
        agentInfo: { name: 'gemini-cli', title: 'Gemini CLI', version: '0.61.0' },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: true, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
        },
      });
      expect(init.authMethods.map((m: { id: string }) => m.id)).toEqual(['oauth-personal', 'gemini-api-key', 'vertex-ai', 'gateway']);
      expect(p.response('orcr:open').result).toMatchObject({ modes: { currentModeId: 'default' }, models: { currentModelId: 'gemini-2.5-flash' } });

      const r1 = await p.call('session/prompt', prompt(sid, 'say it, and remember PINEAPPLE'), 'orcr:p1');
      const turn1 = p.updates('orcr:p1');
      expect(kinds(turn1)).toEqual(['tool_call', 'tool_call_update', 'agent_thought_chunk', 'agent_message_chunk', 'agent_message_chunk']);
      expect(turn1[0]).toMatchObject({ status: 'in_progress', title: 'echo made-it', kind: 'execute', locations: [] });
      expect(turn1[0].content).toEqual([{ type: 'content', content: { type: 'text', text: `[current working directory ${w.work}] (say it)` } }]);
      expect(turn1[1]).toMatchObject({ toolCallId: turn1[0].toolCallId, status: 'completed', content: [] });
      expect(turn1[2].content).toEqual({ type: 'text', text: '**Recalling the word**\nIt is PINEAPPLE.' });
      // Per prompt: every model call's prompt tokens (cached included: 900 + 900) and output; no cached figure, no cost.
      expect(r1.result).toEqual({
        stopReason: 'end_turn',
        _meta: {
          quota: {
            token_count: { input_tokens: 1800, output_tokens: 39 },
            model_usage: [{ model: 'gemini-2.5-flash', token_count: { input_tokens: 1800, output_tokens: 39 } }],
          },
        },
      });

      const r2 = await p.call('session/prompt', prompt(sid, 'what was the word?'), 'orcr:p2');
      expect(r2.result._meta.quota.token_count).toEqual({ input_tokens: 900, output_tokens: 5 });
      expect(conversation(w.server.mainRequests('gemini')[2]!).slice(-2)).toEqual(['model: The word is PINEAPPLE.', 'user: what was the word?']);
      expect(p.updates().filter((u) => u.sessionUpdate === 'available_commands_update')).toHaveLength(1);
      w.save(p, 'handshake-two-turns');
      clean(p);
    });

    for (const [name, answer] of [
      ['allow-once', { result: { outcome: { outcome: 'selected', optionId: 'proceed_once' } } }],
      ['allow-always', { result: { outcome: { outcome: 'selected', optionId: 'proceed_always' } } }],
      ['reject', { result: { outcome: { outcome: 'selected', optionId: 'cancel' } } }],
      ['cancelled', { result: { outcome: { outcome: 'cancelled' } } }],
      ['unknown-option', { result: { outcome: { outcome: 'selected', optionId: 'no-such-option' } } }],
      ['error-answer', { error: { code: -32603, message: 'orcr: no answer' } }],
    ] as const) {
      it(`permission, answered ${name}: run_shell_command not in tools.allowed → session/request_permission`, async () => {
        const w = await world({ allowed: [] });
        const marker = path.join(w.work, 'marker');
        w.server.script(
          'gemini',
          toolCall('run_shell_command', { command: `touch ${marker} && echo made-it`, description: 'make the marker' }),
          // Another `touch`: "allow always" covers it (a read-only `echo` alone is never asked).
          toolCall('run_shell_command', { command: `touch ${marker}2 && echo second-call`, description: 'again' }),
          text('All done.'),
        );
        const p = w.spawn();
        p.onRequest = () => answer;
        const sid = await w.open(p);
        const res = await p.call('session/prompt', prompt(sid, 'make the marker'), 'orcr:p1');
        w.save(p, `permission-${name}`);
        const [ask] = p.agentRequests();
        expect(ask).toMatchObject({ id: 0, method: 'session/request_permission' });
        expect(ask.params.options).toEqual([
          { optionId: 'proceed_always', name: 'Allow for this session', kind: 'allow_always' },
          { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
          { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
        ]);
        expect(ask.params.toolCall).toEqual({
          toolCallId: expect.stringMatching(/^run_shell_command__run_shell_command_\d+_0$/),
          status: 'pending',
          title: `touch ${marker} && echo made-it`,
          content: [{ type: 'content', content: { type: 'text', text: `[current working directory ${w.work}] (make the marker)` } }],
          locations: [],
          kind: 'execute',
        });
        // No tool_call notification for an asked call: the request is its first mention.
        const mine = p.updates().filter((u) => u.toolCallId === ask.params.toolCall.toolCallId);
        expect(kinds(mine)).not.toContain('tool_call');
        expect(res.result.stopReason).toBe('end_turn');
        const sent = functionResponses(w.server.mainRequests('gemini')[1]!)[0].response;
        permissionOutcome(name, { p, marker, mine, sent });
      });
    }

    it('session/cancel while a permission request is unanswered: the prompt waits for that answer, then ends cancelled', async () => {
      const w = await world({ allowed: [] });
      w.server.script('gemini', toolCall('run_shell_command', { command: `touch ${path.join(w.work, 'm')}`, description: 'touch' }), text('After.'));
      const p = w.spawn();
      const sid = await w.open(p);
      const id = p.request('session/prompt', prompt(sid, 'touch it'), 'orcr:p1');
      const ask = await p.waitOut((l) => l.method === 'session/request_permission', 'the permission request');
      p.notify('session/cancel', { sessionId: sid });
      // Not answered without the client's answer (3 s: a negative, no event to wait for).
      await new Promise((r) => setTimeout(r, 3000));
      expect(p.response(id)).toBeUndefined();
      p.send({ jsonrpc: '2.0', id: ask.id, result: { outcome: { outcome: 'cancelled' } } });
      expect((await p.answer(id)).result).toEqual({ stopReason: 'cancelled' });
      expect(w.server.mainRequests('gemini')).toHaveLength(1);
      expect(fs.existsSync(path.join(w.work, 'm'))).toBe(false);
      w.save(p, 'cancel-permission-pending');
      clean(p, 1);
    });

    it('a 429 (quota): retried silently after the suggested delay, then an error response with code 429', async () => {
      const w = await world();
      w.server.fallback('gemini', httpError(429, { retryAfterS: 7, message: QUOTA }));
      const p = w.spawn();
      const sid = await w.open(p);
      const res = await p.call('session/prompt', prompt(sid, 'do it'), 'orcr:p1', 60_000);
      expect(res.error).toEqual({ code: 429, message: `${QUOTA}\nSuggested retry after 7s.` });
      const [first, second] = w.server.mainRequests('gemini');
      expect(w.server.mainRequests('gemini')).toHaveLength(2); // general.maxAttempts: 2
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(7000);
      expect(p.updates('orcr:p1')).toEqual([]);
      w.save(p, 'error-429');
      clean(p);
    });

    it('a 401: no retry, an error response with code 401 and the API body as its message', async () => {
      const w = await world();
      w.server.fallback('gemini', httpError(401, { message: 'API key not valid. Please pass a valid API key.' }));
      const p = w.spawn();
      const sid = await w.open(p);
      const res = await p.call('session/prompt', prompt(sid, 'do it'), 'orcr:p1');
      expect(res.error.code).toBe(401);
      expect(JSON.parse(res.error.message)).toEqual({
        error: { code: 401, message: 'API key not valid. Please pass a valid API key.', status: 'UNAUTHENTICATED', details: [] },
      });
      expect(w.server.mainRequests('gemini')).toHaveLength(1);
      w.save(p, 'error-401');
      clean(p);
    });

    it('a 500: retried once (maxAttempts 2), then an error response with code 500', async () => {
      const w = await world();
      w.server.fallback('gemini', httpError(500, { message: 'Internal error encountered.' }));
      const p = w.spawn();
      const sid = await w.open(p);
      const res = await p.call('session/prompt', prompt(sid, 'do it'), 'orcr:p1', 90_000);
      expect(res.error.code).toBe(500);
      expect(JSON.parse(res.error.message).error).toMatchObject({ code: 500, status: 'INTERNAL' });
      const [first, second] = w.server.mainRequests('gemini');
      expect(w.server.mainRequests('gemini')).toHaveLength(2);
      console.log(`[gemini-acp] 500 retried after ${second!.at - first!.at} ms`);
      w.save(p, 'error-500');
      clean(p);
    });

    it('no GEMINI_API_KEY: initialize and authenticate succeed, session/new is refused with -32000', async () => {
      const w = await world();
      const p = w.spawn(['--acp'], w.env({}, ['GEMINI_API_KEY']));
      expect((await p.call('initialize', INITIALIZE, 'orcr:init')).result.protocolVersion).toBe(1);
      expect((await p.call('session/new', { cwd: w.work, mcpServers: [] }, 'orcr:open')).error).toEqual({
        code: -32000,
        message: 'Gemini API key is missing or not configured.',
      });
      expect((await p.call('authenticate', { methodId: 'gemini-api-key' }, 'orcr:auth')).result).toEqual({});
      w.save(p, 'error-no-key');
      clean(p);
    });

    it('session/cancel mid-stream and mid-tool (the command is killed); a cancel with nothing running is ignored', async () => {
      const w = await world();
      w.server.script('gemini', hang(), toolCall('run_shell_command', { command: 'sleep 300', description: 'wait long' }), text('after the cancel'));
      const p = w.spawn();
      const sid = await w.open(p);
      const id1 = p.request('session/prompt', prompt(sid, 'hang'), 'orcr:p1');
      await until(() => w.server.mainRequests('gemini').length === 1, 'the hanging request');
      p.notify('session/cancel', { sessionId: sid });
      expect((await p.answer(id1)).result).toEqual({ stopReason: 'cancelled' });

      const id2 = p.request('session/prompt', prompt(sid, 'sleep'), 'orcr:p2');
      const sleeps = () => descendants(p.pid).filter((pid) => /sleep 300/.test(cmdline(pid)));
      await until(() => sleeps().length > 0, 'sleep 300 running');
      p.notify('session/cancel', { sessionId: sid });
      expect((await p.answer(id2)).result).toEqual({ stopReason: 'cancelled' });
      const done = p.updates('orcr:p2').find((u) => u.sessionUpdate === 'tool_call_update');
      expect(done).toMatchObject({ status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'Command cancelled by user.' } }] });
      await until(() => sleeps().length === 0, 'the sleep killed');

      p.notify('session/cancel', { sessionId: sid });
      expect((await p.call('session/prompt', prompt(sid, 'and now?'), 'orcr:p3')).result.stopReason).toBe('end_turn');
      // The cancelled call has no function response in the history the model gets next.
      expect(conversation(w.server.mainRequests('gemini')[2]!).slice(-3)).toEqual([
        'user: sleep',
        expect.stringMatching(/^model: .*"name":"run_shell_command"/),
        'user: and now?',
      ]);
      // stderr comes only at exit (the CLI holds it back in ACP mode).
      p.closeStdin();
      await p.exited();
      expect(p.stderr).toMatch(/Error handling notification[\s\S]*Not currently generating/);
      w.save(p, 'cancel');
      clean(p);
    });

    it('protocol edges: unknown method, malformed lines, bad params, unknown session, session/list, stray response, set_mode; EOF exits 0', async () => {
      const w = await world();
      const p = w.spawn();
      const sid = await w.open(p);
      expect((await p.call('orcr/nonsense', { x: 1 }, 'orcr:unknown')).error).toEqual({
        code: -32601,
        message: '"Method not found": orcr/nonsense',
        data: { method: 'orcr/nonsense' },
      });
      p.sendRaw('{"jsonrpc":"2.0","id":"orcr:broken","method":"session/prompt",\n');
      p.sendRaw('not json at all\n');
      const bad = await p.call('session/prompt', { sessionId: sid }, 'orcr:badparams');
      expect(bad.error).toMatchObject({ code: -32603, message: 'Internal error', data: [{ code: 'invalid_type', path: ['prompt'] }] });
      expect((await p.call('session/prompt', prompt('no-such-session', 'hi'), 'orcr:nosession')).error).toEqual({
        code: -32602,
        message: 'Session not found: no-such-session',
      });
      expect((await p.call('session/list', {}, 'orcr:list')).error.code).toBe(-32601);
      p.send({ jsonrpc: '2.0', id: 999, result: {} });
      p.notify('orcr/unknown-notification', {});
      expect((await p.call('session/set_mode', { sessionId: sid, modeId: 'yolo' }, 'orcr:mode')).error).toEqual({
        code: -32603,
        message: 'Internal error',
        data: { details: 'Cannot enable privileged approval modes in an untrusted folder.' },
      });
      expect(p.stderr).toBe('');
      p.closeStdin();
      expect(await p.exited()).toEqual({ code: 0, signal: null });
      // The malformed line with an id got no answer at all; what was wrong is on stderr, which comes only at exit.
      expect(p.response('orcr:broken')).toBeUndefined();
      expect(p.stderr).toMatch(/Failed to parse JSON message/);
      expect(p.stderr).toMatch(/Got response to unknown request 999/);
      w.save(p, 'protocol-edges');
      clean(p);
    });

    it('file tools with no fs/terminal capability declared: the CLI reads and writes itself, never asks the client; diffs in tool_call_update', async () => {
      const w = await world({ allowed: ['run_shell_command', 'write_file', 'replace'] });
      const notes = path.join(w.work, 'notes.txt');
      fs.writeFileSync(notes, 'old line\n');
      w.server.script(
        'gemini',
        toolCall('read_file', { file_path: notes }),
        toolCall('write_file', { file_path: path.join(w.work, 'new.txt'), content: 'fresh\n' }),
        toolCall('replace', { file_path: notes, old_string: 'old line', new_string: 'new line', instruction: 'edit' }),
        text('Files handled.'),
      );
      const p = w.spawn();
      const sid = await w.open(p);
      await p.call('session/prompt', prompt(sid, 'edit the files'), 'orcr:p1');
      expect(fs.readFileSync(notes, 'utf8')).toBe('new line\n');
      const calls = p.updates('orcr:p1').filter((u) => u.sessionUpdate === 'tool_call');
      expect(calls.map((u) => [u.kind, u.title, u.locations])).toEqual([
        ['read', 'notes.txt', [{ path: notes }]],
        ['edit', 'Writing to new.txt', [{ path: path.join(w.work, 'new.txt') }]],
        ['edit', 'notes.txt: old line => new line', [{ path: notes }]],
      ]);
      const edits = p.updates('orcr:p1').filter((u) => u.sessionUpdate === 'tool_call_update' && u.kind === 'edit');
      expect(edits.map((u) => u.content)).toEqual([
        [{ type: 'diff', path: path.join(w.work, 'new.txt'), oldText: '', newText: 'fresh\n', _meta: { kind: 'add' } }],
        [{ type: 'diff', path: notes, oldText: 'old line\n', newText: 'new line\n', _meta: { kind: 'modify' } }],
      ]);
      w.save(p, 'fs-tools');
      clean(p);
    });

    it('the CLI’s own loop detector ends the prompt with stopReason max_turn_requests', async () => {
      const w = await world();
      w.server.fallback('gemini', toolCall('run_shell_command', { command: 'echo same', description: 'again' }));
      const p = w.spawn();
      const sid = await w.open(p);
      const res = await p.call('session/prompt', prompt(sid, 'keep checking'), 'orcr:p1', 90_000);
      expect(res.result.stopReason).toBe('max_turn_requests');
      expect(p.updates('orcr:p1').filter((u) => u.sessionUpdate === 'tool_call')).toHaveLength(4);
      w.save(p, 'loop');
      clean(p);
    });
  },
  { timeout: 180_000 },
);

/** What each permission answer led to: the command run or not, the update the client saw, what the model was sent. */
function permissionOutcome(name: string, o: { p: AcpProbe; marker: string; mine: any[]; sent: any }): void {
  const asked = o.p.agentRequests().length;
  const ran = fs.existsSync(o.marker);
  if (name === 'allow-once' || name === 'allow-always') {
    expect({ ran, asked, updates: kinds(o.mine) }).toEqual({ ran: true, asked: name === 'allow-once' ? 2 : 1, updates: ['tool_call_update'] });
    expect(o.mine[0].status).toBe('completed');
    expect(o.sent.output).toMatch(/made-it/);
  } else if (name === 'reject' || name === 'cancelled') {
    // Both are the CLI's "cancel": no update at all for the call (it stays `pending` for the client); the turn goes on.
    expect({ ran, asked, updates: o.mine }).toEqual({ ran: false, asked: 2, updates: [] });
    expect(o.sent).toEqual({ error: CANCELED });
  } else {
    expect({ ran, asked, updates: kinds(o.mine) }).toEqual({ ran: false, asked: 2, updates: ['tool_call_update'] });
    expect(o.mine[0].status).toBe('failed');
    expect(o.sent.error).toEqual(name === 'unknown-option' ? expect.stringContaining('invalid_enum_value') : '[object Object]');
    expect(o.mine[0].content[0].content.text).toBe(o.sent.error);
  }
  expect(o.p.rawOut()).toEqual([]);
}
