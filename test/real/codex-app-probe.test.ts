// The probe of `codex app-server` (JSON-RPC lines over stdio) before orcr
// drives Codex through it: the genuine CLI against the scripted model server,
// every line in both directions kept. Each test is one scenario; its
// assertions are the findings written up in test/real/README.md ("Codex
// app-server"). Runs with the live suite (ORCR_TEST_REAL=1); with
// ORCR_RECORD_CODEX_APP=1 it also rewrites test/fixtures/codex-app/<scenario>.jsonl:
//   ORCR_TEST_REAL=1 ORCR_RECORD_CODEX_APP=1 npx vitest run --config test/vitest.config.ts test/real/codex-app-probe.test.ts

import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { hang, httpError, text, type Step } from '../support/model-server.js';
import { announce, needProbe, useRigs, type Rig } from '../support/real-agents.js';
import { describeWhen } from '../support/skip.js';
import { until } from '../support/harness.js';
import { agentBin } from '../support/install-agents.mjs';
import { Transcript, type AppServer } from '../support/codex-app.js';

announce('codex');

const DEST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'codex-app');
const RECORD = process.env.ORCR_RECORD_CODEX_APP === '1';
const rig = useRigs();

/** A scenario: a rig, its transcript; the fixture is written when recording, whatever the assertions say. */
async function scenario(name: string, body: (tr: Transcript, r: Rig) => Promise<void>): Promise<void> {
  const r = await rig();
  const tr = new Transcript(r);
  try {
    await body(tr, r);
    // stdout carries JSON lines only (logs go to stderr).
    expect(tr.entries.filter((e) => e.dir === 'out' && e.raw !== undefined)).toEqual([]);
  } finally {
    if (RECORD) tr.save(path.join(DEST, `${name}.jsonl`));
  }
}

/** Codex 0.171.0 offers `exec_command {cmd}` (unified exec) for a model it has no metadata for. */
const shell = (cmd: string, extra: Record<string, unknown> = {}): Step => ({
  kind: 'reply',
  tools: [{ name: 'exec_command', input: { cmd, ...extra } }],
  usage: { input: 50, output: 5 },
});
/** apply_patch called through the shell tool: Codex intercepts it as a file change. */
const patchCmd = (file: string, body: string): string => `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${file}\n+${body}\n*** End Patch\nEOF\n`;
const NEVER = { approvalPolicy: 'never', sandbox: 'danger-full-access' };

/** What the model server was sent back for tool calls: the function_call_output texts of its last main request. */
function toolOutputs(r: Rig): string[] {
  const last = r.server.mainRequests('openai').at(-1);
  return (last?.body?.input ?? []).filter((i: { type?: string }) => i.type === 'function_call_output').map((i: { output: string }) => i.output);
}

type Exit = { code: number | null; signal: string | null };

/** The exit, or `running` if the process is still there after `ms` (then it is killed: the transcript says so). */
async function exitWithin(app: AppServer, ms: number): Promise<Exit | 'running'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'running'>((r) => (timer = setTimeout(() => r('running'), ms)));
  const got = await Promise.race([app.exited, bound]);
  clearTimeout(timer);
  if (got === 'running') {
    app.kill('SIGKILL');
    await app.exited;
  }
  return got;
}

/** Close stdin and wait (up to 15 s) for the exit. */
async function closeAndExit(app: AppServer): Promise<Exit | 'running'> {
  app.closeStdin();
  return exitWithin(app, 15_000);
}

/** Approval scenarios: policy `untrusted` asks for any command not known to be read-only. */
async function approvalScenario(tr: Transcript, r: Rig, steps: Step[]): Promise<AppServer> {
  r.server.script('openai', ...steps);
  const app = tr.start();
  const threadId = await app.open({ approvalPolicy: 'untrusted', sandbox: 'danger-full-access' });
  await app.call('orcr:turn:1', 'turn/start', { threadId, input: [{ type: 'text', text: 'make the marker' }] });
  return app;
}

/** The item/completed of the item an approval was about. */
const itemDone = (app: AppServer, itemId: string): Promise<any> =>
  app.line((l) => l.method === 'item/completed' && l.params.item.id === itemId, `item/completed ${itemId}`);

describeWhen(
  needProbe('codex'),
  'codex app-server (probe)',
  () => {
    it('handshake, pipelined; string ids echoed; a text turn; a second turn on the same thread sees the first; stdin closed when idle: exit 0', async () => {
      await scenario('handshake-two-turns', async (tr, r) => {
        r.server.script(
          'openai',
          text('Hello from the model.', { input: 100, output: 7, cached: 20 }),
          text('Second answer.', { input: 150, output: 4, cached: 100 }),
        );
        const app = tr.start();
        const threadId = await app.open(NEVER);
        const init = await app.response('orcr:init');
        expect(Object.keys(init)).toEqual(['id', 'result']);
        expect(init.result).toMatchObject({ userAgent: expect.stringContaining('0.171.0'), codexHome: expect.any(String), platformOs: 'linux' });
        const thread = (await app.response('orcr:thread')).result;
        expect(thread).toMatchObject({
          thread: { id: threadId, sessionId: threadId, path: expect.stringContaining(`${threadId}.jsonl`) },
          approvalPolicy: 'never',
        });
        const done1 = await app.turn('orcr:turn:1', threadId, 'say hello');
        expect(done1.params.turn).toMatchObject({ status: 'completed', error: null, items: [{ type: 'agentMessage', text: 'Hello from the model.' }] });
        expect(
          app
            .out()
            .filter((l) => l.method === 'item/agentMessage/delta')
            .map((l) => l.params.delta),
        ).toEqual(['Hello from ', 'the model.']);
        const done2 = await app.turn('orcr:turn:2', threadId, 'and again');
        expect(done2.params.turn.status).toBe('completed');
        const said = JSON.stringify(r.server.mainRequests('openai')[1]!.body.input);
        expect(said).toContain('say hello');
        expect(said).toContain('Hello from the model.');
        // Cumulative per thread (`total`) and the last model call (`last`); inputTokens include the cached ones.
        const usage = app.out().filter((l) => l.method === 'thread/tokenUsage/updated');
        expect(usage.at(-1).params.tokenUsage.total).toMatchObject({ inputTokens: 370, cachedInputTokens: 120, outputTokens: 11 });
        expect(usage.at(-1).params.tokenUsage.last).toMatchObject({ inputTokens: 250, cachedInputTokens: 100, outputTokens: 4 });
        expect(await closeAndExit(app)).toEqual({ code: 0, signal: null });
      });
    });

    it('protocol errors: before initialize, no clientInfo, twice initialized, unknown method, malformed lines ignored, a stray response ignored', async () => {
      await scenario('protocol-errors', async (tr, r) => {
        const app = tr.start();
        expect(await app.call('e1', 'thread/start', { cwd: r.work })).toEqual({ error: { code: -32600, message: 'Not initialized' }, id: 'e1' });
        expect(await app.call('e2', 'initialize', {})).toEqual({ error: { code: -32600, message: 'Invalid request: missing field `clientInfo`' }, id: 'e2' });
        expect((await app.call('e3', 'initialize', { clientInfo: { name: 'orcr', version: '0' } })).result.userAgent).toContain('(orcr; 0)');
        expect(await app.call('e4', 'initialize', { clientInfo: { name: 'orcr', version: '0' } })).toEqual({
          error: { code: -32600, message: 'Already initialized' },
          id: 'e4',
        });
        const unknown = await app.call('e5', 'no/such/method', {});
        expect(Object.keys(unknown)).toEqual(['error', 'id']);
        expect(unknown.error).toMatchObject({
          code: -32600,
          message: expect.stringMatching(/^Invalid request: unknown variant `no\/such\/method`, expected one of `initialize`/),
        });
        app.send('this is not json');
        await app.call('e6', 'no/such/method');
        app.send('{"id":"e7","method":');
        app.send({ id: 424242, result: { decision: 'accept' } });
        app.send({ method: 'no/such/notification', params: {} });
        expect((await app.call('e8', 'thread/start')).error).toEqual({ code: -32600, message: 'Invalid request: missing field `params`' });
        app.send({ jsonrpc: '2.0', id: 'e10', method: 'no/such/method', params: {} });
        expect((await app.response('e10')).error.code).toBe(-32600);
        // `initialized` was never sent, and thread/start works all the same.
        expect((await app.call(11, 'thread/start', { cwd: r.work })).result.thread.id).toEqual(expect.any(String));
        // Nothing answered the malformed lines, the stray response or the unknown notification.
        expect(app.out().filter((l) => l.id === 'e7' || l.id === 424242)).toEqual([]);
        expect(await closeAndExit(app)).toEqual({ code: 0, signal: null });
      });
    });

    it('command approval: accept runs it, the model is sent its output', async () => {
      await scenario('approval-command-accept', async (tr, r) => {
        const app = await approvalScenario(tr, r, [shell(`touch ${r.work}/marker && echo made-it`), text('done.')]);
        const ask = await app.method('item/commandExecution/requestApproval');
        expect(Object.keys(ask)).toEqual(['method', 'id', 'params']);
        expect(ask.id).toBe(0);
        expect(ask.params).toMatchObject({
          kind: 'command',
          command: `/bin/bash -lc 'touch ${r.work}/marker && echo made-it'`,
          cwd: r.work,
          proposedExecpolicyAmendment: ['touch', `${r.work}/marker`],
          availableDecisions: ['accept', { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['touch', `${r.work}/marker`] } }, 'cancel'],
        });
        app.send({ id: ask.id, result: { decision: 'accept' } });
        expect((await itemDone(app, ask.params.itemId)).params.item).toMatchObject({
          type: 'commandExecution',
          status: 'completed',
          aggregatedOutput: 'made-it\n',
          exitCode: 0,
        });
        await app.method('turn/completed');
        expect(fs.existsSync(path.join(r.work, 'marker'))).toBe(true);
        expect(toolOutputs(r).join('')).toMatch(/Process exited with code 0[\s\S]*Output:\nmade-it\n/);
        expect(
          app
            .out()
            .filter((l) => l.method === 'serverRequest/resolved')
            .map((l) => l.params.requestId),
        ).toEqual([0]);
        await closeAndExit(app);
      });
    });

    it('command approval: decline — not run, the model told "rejected by user", the turn goes on', async () => {
      await scenario('approval-command-decline', async (tr, r) => {
        const app = await approvalScenario(tr, r, [shell(`touch ${r.work}/marker && echo made-it`), text('ok, not done.')]);
        const ask = await app.method('item/commandExecution/requestApproval');
        app.send({ id: ask.id, result: { decision: 'decline' } });
        expect((await itemDone(app, ask.params.itemId)).params.item).toMatchObject({ status: 'declined', exitCode: null, aggregatedOutput: null });
        expect((await app.method('turn/completed')).params.turn.status).toBe('completed');
        expect(fs.existsSync(path.join(r.work, 'marker'))).toBe(false);
        expect(toolOutputs(r)).toEqual(['exec_command failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }']);
        await closeAndExit(app);
      });
    });

    it('command approval: cancel — not run, the turn ends `interrupted` at once, no further model call', async () => {
      await scenario('approval-command-cancel', async (tr, r) => {
        const app = await approvalScenario(tr, r, [shell(`touch ${r.work}/marker && echo made-it`), text('never asked for')]);
        const ask = await app.method('item/commandExecution/requestApproval');
        app.send({ id: ask.id, result: { decision: 'cancel' } });
        expect((await itemDone(app, ask.params.itemId)).params.item.status).toBe('declined');
        expect((await app.method('turn/completed')).params.turn).toMatchObject({ status: 'interrupted', error: null });
        expect(fs.existsSync(path.join(r.work, 'marker'))).toBe(false);
        expect(r.server.mainRequests('openai')).toHaveLength(1);
        await closeAndExit(app);
      });
    });

    it('command approval: acceptForSession (not offered in availableDecisions) is taken; the same command is not asked again, a different one is', async () => {
      await scenario('approval-command-accept-for-session', async (tr, r) => {
        const cmd = `touch ${r.work}/marker && echo made-it`;
        const app = await approvalScenario(tr, r, [shell(cmd), shell(cmd), shell(`touch ${r.work}/other && echo other`), text('done.')]);
        const ask = await app.method('item/commandExecution/requestApproval');
        app.send({ id: ask.id, result: { decision: 'acceptForSession' } });
        const ask2 = await app.method('item/commandExecution/requestApproval', 2);
        expect(ask2.id).toBe(1);
        expect(ask2.params.command).toContain('touch ' + path.join(r.work, 'other'));
        app.send({ id: ask2.id, result: { decision: 'accept' } });
        await app.method('turn/completed');
        const runs = app.out().filter((l) => l.method === 'item/completed' && l.params.item.type === 'commandExecution');
        expect(runs.map((l) => l.params.item.status)).toEqual(['completed', 'completed', 'completed']);
        await closeAndExit(app);
      });
    });

    it('command approval: an answer with an unknown id is ignored (the ask stays open); a malformed decision fails the command', async () => {
      await scenario('approval-command-bad-answers', async (tr, r) => {
        const cmd = `touch ${r.work}/marker && echo made-it`;
        const app = await approvalScenario(tr, r, [shell(cmd), shell(cmd), text('done.')]);
        const ask = await app.method('item/commandExecution/requestApproval');
        app.send({ id: 999, result: { decision: 'accept' } });
        // Lines are read in order: once this is answered, the stray answer has been read.
        await app.call('sync1', 'no/such/method');
        expect(
          app.out().filter((l) => l.method === 'serverRequest/resolved' || (l.method === 'item/completed' && l.params.item.type === 'commandExecution')),
        ).toEqual([]);
        app.send({ id: ask.id, result: { decision: 'yes please' } });
        expect((await itemDone(app, ask.params.itemId)).params.item.status).toBe('failed');
        const ask2 = await app.method('item/commandExecution/requestApproval', 2);
        app.send({ id: ask2.id, result: { decision: 'accept' } });
        await app.method('turn/completed');
        expect(toolOutputs(r)[0]).toBe('exec_command failed: CreateProcess { message: "Rejected(\\"approval request failed\\")" }');
        await closeAndExit(app);
        expect(app.stderr).toContain('failed to deserialize CommandExecutionRequestApprovalResponse: unknown variant `yes please`');
      });
    });

    it('policy on-request + workspace-write: a command in the sandbox runs unasked; an escalation the model requests is asked, with its justification as reason', async () => {
      await scenario('approval-on-request-escalation', async (tr, r) => {
        const why = 'May I touch a file outside the sandbox?';
        r.server.script(
          'openai',
          shell(`touch ${r.work}/inside && echo inside`),
          shell(`touch ${r.work}/escalated && echo escalated`, { sandbox_permissions: 'require_escalated', justification: why }),
          text('done.'),
        );
        const app = tr.start();
        const threadId = await app.open({ approvalPolicy: 'on-request', sandbox: 'workspace-write' });
        await app.call('orcr:turn:1', 'turn/start', { threadId, input: [{ type: 'text', text: 'touch two files' }] });
        const ask = await app.method('item/commandExecution/requestApproval');
        expect(ask.params).toMatchObject({ reason: why, command: expect.stringContaining('escalated') });
        app.send({ id: ask.id, result: { decision: 'accept' } });
        await app.method('turn/completed');
        expect(app.out().filter((l) => l.method === 'item/commandExecution/requestApproval')).toHaveLength(1);
        expect(fs.existsSync(path.join(r.work, 'inside')) && fs.existsSync(path.join(r.work, 'escalated'))).toBe(true);
        await closeAndExit(app);
      });
    });

    it('file change approval (apply_patch through exec_command): accept', async () => {
      await scenario('approval-file-accept', async (tr, r) => {
        const app = await approvalScenario(tr, r, [shell(patchCmd('hello.txt', 'hi there')), text('patched.')]);
        const ask = await app.method('item/fileChange/requestApproval');
        expect(ask).toEqual({
          method: 'item/fileChange/requestApproval',
          id: 0,
          params: {
            threadId: expect.any(String),
            turnId: expect.any(String),
            itemId: expect.any(String),
            startedAtMs: expect.any(Number),
            reason: null,
            grantRoot: null,
          },
        });
        const started = await app.line((l) => l.method === 'item/started' && l.params.item.id === ask.params.itemId, 'the file change item');
        expect(started.params.item).toMatchObject({
          type: 'fileChange',
          changes: [{ path: path.join(r.work, 'hello.txt'), kind: { type: 'add' }, diff: 'hi there\n' }],
        });
        app.send({ id: ask.id, result: { decision: 'accept' } });
        expect((await itemDone(app, ask.params.itemId)).params.item.status).toBe('completed');
        await app.method('turn/completed');
        expect(fs.readFileSync(path.join(r.work, 'hello.txt'), 'utf8')).toBe('hi there\n');
        expect(toolOutputs(r).join('')).toContain('Success. Updated the following files:\nA hello.txt');
        await closeAndExit(app);
      });
    });

    it('file change approval: decline — "patch rejected by user"', async () => {
      await scenario('approval-file-decline', async (tr, r) => {
        const app = await approvalScenario(tr, r, [shell(patchCmd('hello.txt', 'hi there')), text('not patched.')]);
        const ask = await app.method('item/fileChange/requestApproval');
        app.send({ id: ask.id, result: { decision: 'decline' } });
        expect((await itemDone(app, ask.params.itemId)).params.item.status).toBe('declined');
        await app.method('turn/completed');
        expect(fs.existsSync(path.join(r.work, 'hello.txt'))).toBe(false);
        expect(toolOutputs(r)).toEqual(['patch rejected by user']);
        await closeAndExit(app);
      });
    });

    it('usage limit (429 usage_limit_reached as the exec tests send it): error + turn/completed failed, usageLimitExceeded; a new turn on the same thread afterwards works', async () => {
      await scenario('usage-limit', async (tr, r) => {
        r.server.script('openai', httpError(429, { errorType: 'usage_limit_reached', message: 'The usage limit has been reached' }), text('Back again.'));
        const app = tr.start();
        const threadId = await app.open(NEVER);
        const failed = await app.turn('orcr:turn:1', threadId, 'do it');
        const error = {
          message: 'You’ve hit your usage limit. Try again later.',
          codexErrorInfo: 'usageLimitExceeded',
          additionalDetails: null,
          misalignment: null,
        };
        expect(failed.params.turn).toMatchObject({ status: 'failed', error });
        expect((await app.method('error')).params).toMatchObject({ error, willRetry: false, threadId });
        expect((await app.turn('orcr:turn:2', threadId, 'the limit has reset; carry on')).params.turn.status).toBe('completed');
        expect(JSON.stringify(r.server.mainRequests('openai')[1]!.body.input)).toContain('do it');
        await closeAndExit(app);
      });
    });

    it('usage limit with resets_at and plan_type in the body: the time only as a local clock time in the message', async () => {
      await scenario('usage-limit-resets-at', async (tr, r) => {
        const resetsAt = Math.floor(Date.now() / 1000) + 3600;
        r.server.script(
          'openai',
          httpError(429, {
            errorType: 'usage_limit_reached',
            message: 'The usage limit has been reached',
            fields: { plan_type: 'plus', resets_at: resetsAt, resets_in_seconds: 3600 },
          }),
        );
        const app = tr.start();
        const failed = await app.turn('orcr:turn:1', await app.open(NEVER), 'do it');
        expect(failed.params.turn.error.codexErrorInfo).toBe('usageLimitExceeded');
        // A local time ("11:59 PM"), with a date when the reset is not today ("Dec 7th, 2026 12:02 AM").
        expect(failed.params.turn.error.message).toMatch(
          /^You’ve hit your usage limit\. Upgrade to Pro .* or try again at ([A-Z][a-z]{2} \d{1,2}(st|nd|rd|th), \d{4} )?\d{1,2}:\d\d [AP]M\.$/,
        );
        const limits = app.out().filter((l) => l.method === 'account/rateLimits/updated');
        expect(limits.every((l) => l.params.rateLimits.primary === null)).toBe(true);
        await closeAndExit(app);
      });
    });

    it('usage limit with x-codex-* rate-limit headers: account/rateLimits/updated carries resetsAt (epoch seconds) before the error', async () => {
      await scenario('usage-limit-headers', async (tr, r) => {
        const resetsAt = Math.floor(Date.now() / 1000) + 3600;
        r.server.script(
          'openai',
          httpError(429, {
            errorType: 'usage_limit_reached',
            message: 'The usage limit has been reached',
            headers: {
              'x-codex-primary-used-percent': '100',
              'x-codex-primary-window-minutes': '300',
              'x-codex-primary-reset-at': String(resetsAt),
              'x-codex-secondary-used-percent': '40',
              'x-codex-secondary-window-minutes': '10080',
              'x-codex-secondary-reset-at': String(resetsAt + 86400),
            },
          }),
        );
        const app = tr.start();
        const failed = await app.turn('orcr:turn:1', await app.open(NEVER), 'do it');
        expect(failed.params.turn.error.codexErrorInfo).toBe('usageLimitExceeded');
        const limits = await app.line((l) => l.method === 'account/rateLimits/updated' && l.params.rateLimits.primary !== null, 'rate limits with a window');
        expect(limits.params.rateLimits).toMatchObject({
          limitId: 'codex',
          primary: { usedPercent: 100, windowDurationMins: 300, resetsAt },
          secondary: { usedPercent: 40, windowDurationMins: 10080, resetsAt: resetsAt + 86400 },
        });
        await closeAndExit(app);
      });
    });

    it('a plain 429 (rate_limit_exceeded, retry-after), no retries configured: responseTooManyFailedAttempts', async () => {
      await scenario('rate-limited', async (tr, r) => {
        r.server.fallback('openai', httpError(429, { retryAfterS: 1, message: 'Rate limit reached' }));
        const app = tr.start();
        const failed = await app.turn('orcr:turn:1', await app.open(NEVER), 'do it');
        expect(failed.params.turn).toMatchObject({
          status: 'failed',
          error: {
            message: 'exceeded retry limit, last status: 429 Too Many Requests',
            codexErrorInfo: { responseTooManyFailedAttempts: { httpStatusCode: 429 } },
          },
        });
        await closeAndExit(app);
      });
    });

    it('401 rejected key: httpConnectionFailed with httpStatusCode 401', async () => {
      await scenario('unauthorized', async (tr, r) => {
        r.server.fallback('openai', httpError(401, { message: 'Incorrect API key provided' }));
        const app = tr.start();
        const failed = await app.turn('orcr:turn:1', await app.open(NEVER), 'do it');
        expect(failed.params.turn).toMatchObject({
          status: 'failed',
          error: {
            message: expect.stringMatching(/^unexpected status 401 Unauthorized: Incorrect API key provided, url: /),
            codexErrorInfo: { httpConnectionFailed: { httpStatusCode: 401 } },
          },
        });
        await closeAndExit(app);
      });
    });

    it('500 with one retry of each kind allowed: error willRetry true ("Reconnecting... 1/1"), then internalServerError', async () => {
      await scenario('server-error-retried', async (tr, r) => {
        r.server.fallback('openai', httpError(500, { message: 'boom' }));
        const app = tr.start(['-c', 'model_providers.mock.request_max_retries=1', '-c', 'model_providers.mock.stream_max_retries=1']);
        const failed = await app.turn('orcr:turn:1', await app.open(NEVER), 'do it');
        const errors = app.out().filter((l) => l.method === 'error');
        expect(errors.map((l) => [l.params.error.message, l.params.willRetry])).toEqual([
          ['Reconnecting... 1/1', true],
          ['We’re currently experiencing high demand, which may cause temporary errors.', false],
        ]);
        expect(errors[0].params.error.codexErrorInfo).toEqual({ responseStreamDisconnected: { httpStatusCode: null } });
        expect(failed.params.turn).toMatchObject({ status: 'failed', error: { codexErrorInfo: 'internalServerError' } });
        // request retries inside stream retries: 2 × 2 requests.
        expect(r.server.mainRequests('openai')).toHaveLength(4);
        await closeAndExit(app);
      });
    });

    it('thread/resume in a new process after SIGKILL: the history is kept', async () => {
      await scenario('resume-after-kill', async (tr, r) => {
        r.server.script('openai', text('First process answer.'), text('Second process answer.'));
        const a = tr.start();
        const threadId = await a.open(NEVER);
        await a.turn('orcr:turn:1', threadId, 'remember the word banana');
        a.kill('SIGKILL');
        await a.exited;
        const b = tr.start();
        b.send({ id: 'orcr:init', method: 'initialize', params: { clientInfo: { name: 'orcr', version: '0.0.0-probe' } } }, { method: 'initialized' });
        const resumed = await b.call('orcr:resume', 'thread/resume', { threadId });
        expect(resumed.result.thread).toMatchObject({ id: threadId, preview: 'remember the word banana', status: { type: 'idle' } });
        expect(resumed.result.thread.turns).toHaveLength(1);
        expect(b.out().some((l) => l.method === 'deprecationNotice' && /excludeTurns: true/.test(l.params.summary))).toBe(true);
        await b.turn('orcr:turn:2', threadId, 'which word?');
        const said = JSON.stringify(r.server.mainRequests('openai').at(-1)!.body.input);
        expect(said).toContain('remember the word banana');
        expect(said).toContain('First process answer.');
        await closeAndExit(b);
      });
    });

    it('the thread id is the session id: `codex exec resume ID` and the interactive `codex resume ID` continue an app-server thread', async () => {
      await scenario('resume-by-cli', async (tr, r) => {
        r.server.script('openai', text('App-server answer.'), text('Exec answer.'), text('TUI answer.'));
        const a = tr.start();
        const threadId = await a.open(NEVER);
        await a.turn('orcr:turn:1', threadId, 'remember the word banana');
        await closeAndExit(a);
        const ex = tr.spawn(agentBin('codex'), ['exec', '--json', '--skip-git-repo-check', 'resume', threadId, '-']);
        ex.child.stdin.end('which word, exec?');
        expect((await ex.exited).code).toBe(0);
        expect(ex.out().find((l) => l.type === 'thread.started')?.thread_id).toBe(threadId);
        expect(JSON.stringify(r.server.mainRequests('openai')[1]!.body.input)).toContain('App-server answer.');
        await resumeInTui(r, threadId);
        expect(JSON.stringify(r.server.mainRequests('openai')[2]!.body.input)).toContain('Exec answer.');
      });
    });

    it('stdin closed mid-turn (the model hangs) and with an approval pending: exit 0 at once, no turn/completed', async () => {
      await scenario('stdin-closed-mid-turn', async (tr, r) => {
        r.server.script('openai', hang(), shell(`touch ${r.work}/marker`));
        const app = tr.start();
        const threadId = await app.open(NEVER);
        app.send({ id: 'orcr:turn:1', method: 'turn/start', params: { threadId, input: [{ type: 'text', text: 'do it' }] } });
        await until(() => r.server.mainRequests('openai').length === 1, 'the model request', 30_000);
        expect(await closeAndExit(app)).toEqual({ code: 0, signal: null });
        const asking = tr.start();
        const t2 = await asking.open({ approvalPolicy: 'untrusted', sandbox: 'danger-full-access' });
        asking.send({ id: 'orcr:turn:1', method: 'turn/start', params: { threadId: t2, input: [{ type: 'text', text: 'do it' }] } });
        await asking.method('item/commandExecution/requestApproval');
        expect(await closeAndExit(asking)).toEqual({ code: 0, signal: null });
        expect(tr.entries.some((e) => e.line?.method === 'turn/completed')).toBe(false);
        expect(fs.existsSync(path.join(r.work, 'marker'))).toBe(false);
      });
    });

    it('SIGTERM when idle, and mid-turn: exit 0', async () => {
      await scenario('sigterm', async (tr, r) => {
        r.server.script('openai', hang());
        const idle = tr.start();
        await idle.open(NEVER);
        idle.kill('SIGTERM');
        expect(await exitWithin(idle, 15_000)).toEqual({ code: 0, signal: null });
        const busy = tr.start();
        const threadId = await busy.open(NEVER);
        busy.send({ id: 'orcr:turn:1', method: 'turn/start', params: { threadId, input: [{ type: 'text', text: 'do it' }] } });
        await until(() => r.server.mainRequests('openai').length === 1, 'the model request', 30_000);
        busy.kill('SIGTERM');
        expect(await exitWithin(busy, 15_000)).toEqual({ code: 0, signal: null });
      });
    });
  },
  { timeout: 180_000 },
);

/**
 * `codex resume ID PROMPT` (the interactive TUI) under a pseudo-terminal
 * (util-linux `script`), until the model is asked with the prompt. The TUI
 * starts a detached app-server daemon (CODEX_HOME/packages/app-server-daemon)
 * that outlives it: everything carrying this run's marker is killed after.
 */
async function resumeInTui(r: Rig, threadId: string): Promise<void> {
  const mark = randomUUID();
  const cmd = `${agentBin('codex')} resume ${threadId} 'which word, TUI?'`;
  const tui = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: r.work, env: { ...r.agentEnv(), TERM: 'xterm-256color', ORCR_RUN: mark }, stdio: 'pipe' });
  let screen = '';
  tui.stdout.setEncoding('utf8').on('data', (c: string) => {
    screen += c;
    // A trust prompt for the directory, if any, is answered with its default (Enter).
    if (/trust/i.test(c)) tui.stdin.write('\r');
  });
  try {
    await until(
      () => r.server.mainRequests('openai').length === 3,
      () => `the TUI's model request; its screen:\n${screen.slice(-1500)}`,
      60_000,
      100,
    );
    const procs = r.processesOf(mark).map((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
    expect(procs.some((c) => /packages\/app-server-daemon\/.*codex app-server --listen unix:\/\//.test(c))).toBe(true);
  } finally {
    tui.kill('SIGKILL');
    for (const pid of r.processesOf(mark)) process.kill(pid, 'SIGKILL');
  }
}
