// Config `notify` through the real supervisor: a local HTTP server stands in
// for the webhook and the ntfy topic, a script for `command` and for
// notify-send. Every wait is for something the supervisor did.

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { script, until, useHomes, type TestHome } from '../support/harness.js';
import { useLiveHomes, type LiveHome } from '../support/in-process.js';
import { ATTEMPTS } from '../../src/server/notify-queue.js';

/** Homes whose supervisor runs in this process: what it logs is in `h.log` (server.log is `orcr serve`'s file of those lines). */
const home = useLiveHomes();
/** Homes whose supervisor the spawned CLI starts: its PATH is the CLI's, and it writes server.log. */
const spawned = useHomes();

interface Hit {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Sink {
  url: string;
  hits: Hit[];
  /** The webhook posts, parsed. */
  json(): { summary: string; count: number; events: { event: string; type: string; data: Record<string, unknown>; run: Record<string, any> | null }[] }[];
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A local HTTP server that records every request and answers with `status`. */
async function sink(status = 200): Promise<Sink> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', headers: req.headers, body });
      res.statusCode = status;
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, hits, json: () => hits.filter((h) => h.path === '/hook').map((h) => JSON.parse(h.body)) };
}

/** What an in-process supervisor logged. */
const logged = (h: LiveHome): string => h.log.join('\n');

const serverLog = (h: TestHome): string => {
  try {
    return fs.readFileSync(path.join(h.dir, 'server.log'), 'utf8');
  } catch {
    return '';
  }
};

describe('notify', () => {
  it('50 runs ending errored within the batch (5 s by default) are one webhook call listing all 50 and one ntfy message; the next ending is the next call', async () => {
    const s = await sink();
    const h = await home({ concurrency: { max: 60 }, notify: { webhook: `${s.url}/hook`, ntfy: `${s.url}/topic` } });
    const gate = path.join(h.dir, 'gate');
    const agent = script(h, 'fail.sh', `#!/bin/sh\nwhile [ ! -f "${gate}" ]; do sleep 0.05; done\nexit 1\n`);
    const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify({ name: `e-${i + 1}`, command: [agent] })).join('\n');
    expect(await h.runFrom(lines)).toHaveLength(50);
    // All 50 spawned, then released together: their endings fall in one window.
    await until(async () => (await h.ps()).filter((r) => r.pid !== null).length === 50, '50 spawned agents');
    fs.writeFileSync(gate, '');
    const [post] = await until(() => s.json().length === 1 && s.json(), 'the webhook call');
    expect(post!.count).toBe(50);
    expect(post!.events.map((e) => e.run!.name).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `e-${i + 1}`).sort());
    expect(new Set(post!.events.map((e) => e.event))).toEqual(new Set(['ended_not_completed']));
    expect(post!.events[0]!.run).toMatchObject({ status: 'ended', exit_reason: 'errored', exit_code: 1 });
    expect(post!.summary).toMatch(/^50 runs ended not completed: e-\d+ errored, /);
    const ntfy = await until(() => s.hits.filter((x) => x.path === '/topic').length === 1 && s.hits.filter((x) => x.path === '/topic'), 'the ntfy post');
    expect(ntfy[0]!.body).toBe(post!.summary);
    expect(ntfy[0]!.headers.title).toBe('orcr');

    // One more ending is the second call: the burst was one. Its -e value and its words stay home.
    await h.run(['-n', 'after', '-e', 'SECRET_TOKEN=s3cr3t-value', '--', 'sh', '-c', 'echo "the secret is $SECRET_TOKEN"; exit 3']);
    await until(() => s.json().length === 2, 'the second webhook call');
    const second = s.json()[1]!;
    expect(second.events.map((e) => [e.event, e.run!.name])).toEqual([['ended_not_completed', 'after']]);
    expect(second.events[0]!.run).toMatchObject({ exit_code: 3, env_keys: ['SECRET_TOKEN'] });
    expect(second.events[0]!.run).not.toHaveProperty('last_text');
    await until(() => s.hits.filter((x) => x.path === '/topic').length === 2, 'the second ntfy post');
    for (const hit of s.hits) expect(hit.body).not.toContain('s3cr3t-value');
    expect(s.hits).toHaveLength(4);
  });

  it(`a sink answering 500 is tried ${ATTEMPTS} times, the failure is logged, and runs go on meanwhile`, async () => {
    const s = await sink(500);
    const h = await home({ notify: { webhook: `${s.url}/hook`, batch: '0s' } });
    await h.run(['-n', 'bad', '--', 'sh', '-c', 'exit 1']);
    await until(() => s.hits.length >= 1, 'the first attempt');
    // Retries are under way: the supervisor still runs agents.
    await h.run(['-n', 'ok', '--', 'true']);
    expect(await h.wait('ok')).toBe('ok completed');
    await until(
      () => logged(h).includes('gave up'),
      () => `the give-up in server.log:\n${logged(h)}`,
    );
    expect(logged(h)).toMatch(new RegExp(`notify: webhook 127\\.0\\.0\\.1:\\d+: gave up after ${ATTEMPTS} attempts \\(HTTP 500\\)`));
    expect(logged(h)).toMatch(/notify: webhook 127\.0\.0\.1:\d+: attempt 1\/\d failed \(HTTP 500\); retrying in 500 ms/);
    // The URL's path (often a webhook's secret) is not logged.
    expect(logged(h)).not.toContain('/hook');
    expect(s.hits).toHaveLength(ATTEMPTS);
    expect(JSON.parse(s.hits[0]!.body).events[0].run.name).toBe('bad');
  });

  it('a question is blocked, a usage limit is one hold (not also blocked), 80% of a budget is budget', async () => {
    const s = await sink();
    const h = await home({ notify: { webhook: `${s.url}/hook`, batch: '0s' } });
    const jsonl = (name: string, lines: object[]) =>
      script(h, name, `#!/bin/sh\n${lines.map((l) => `printf '%s\\n' '${JSON.stringify(l)}'`).join('\n')}\nsleep 60\n`);
    await h.run([
      '-n',
      'ask',
      '--protocol',
      'jsonl',
      '--',
      jsonl('ask.sh', [{ type: 'ready' }, { type: 'turn_start' }, { type: 'blocked', kind: 'question' }]),
    ]);
    await h.run([
      '-n',
      'limited',
      '--protocol',
      'jsonl',
      '--',
      jsonl('limited.sh', [{ type: 'ready' }, { type: 'turn_start' }, { type: 'blocked', kind: 'limit', retry_after_s: 600 }]),
    ]);
    await h.run([
      '-n',
      'spender',
      '--protocol',
      'jsonl',
      '--max-tokens',
      '1000',
      '--',
      jsonl('spender.sh', [{ type: 'ready' }, { type: 'turn_start' }, { type: 'usage', input_tokens: 800, output_tokens: 50 }]),
    ]);
    const told = () =>
      s
        .json()
        .flatMap((p) => p.events.map((e) => `${e.event} ${e.run!.name} ${e.type}`))
        .sort();
    await until(
      () => told().length >= 3,
      () => `three notifications, got ${JSON.stringify(told())}`,
    );
    // The limit's blocked event and its hold were committed together: had both been told, both would be here.
    expect(told()).toEqual(['blocked ask blocked', 'budget spender budget_warning', 'hold limited hold']);
    await h.cli(['kill', '--all', '--yes']);
  });

  it('command gets the JSON on its stdin', async () => {
    const h = await home();
    const out = path.join(h.dir, 'told.json');
    const cmd = script(h, 'told.sh', '#!/bin/sh\ncat > "$1.tmp" && mv "$1.tmp" "$1"\n');
    h.writeConfig({ notify: { command: [cmd, out], batch: '0s' } });
    await h.run(['-n', 'c', '--', 'sh', '-c', 'exit 2']);
    const told = await until(() => fs.existsSync(out) && JSON.parse(fs.readFileSync(out, 'utf8')), 'the command to be run');
    expect(told).toMatchObject({ source: 'orcr', count: 1, summary: 'c ended: errored' });
    expect(told.events[0]).toMatchObject({
      event: 'ended_not_completed',
      type: 'ended',
      data: { reason: 'errored', exit_code: 2 },
      run: { name: 'c', exit_reason: 'errored' },
    });
  });

  it('only the configured events are told, and a reloaded config is followed', async () => {
    const s = await sink();
    const h = await home({ notify: { webhook: `${s.url}/hook`, events: ['awaiting_input'], batch: '0s' } });
    await h.run(['-n', 'quiet', '--', 'sh', '-c', 'exit 1']);
    expect(await h.wait('quiet')).toBe('quiet errored');
    const agent = script(h, 'chat.sh', `#!/bin/sh\necho '{"type":"ready"}'\ncat > /dev/null\n`);
    await h.run(['-n', 'chat', '--interactive', '--protocol', 'jsonl', '--', agent]);
    await until(() => s.json().length >= 1, 'the awaiting_input call');
    expect(s.json().flatMap((p) => p.events.map((e) => [e.event, e.run!.name]))).toEqual([['awaiting_input', 'chat']]);

    h.writeConfig({ notify: { webhook: `${s.url}/hook`, events: ['ended_not_completed'], batch: '0s' } });
    await until(async () => (await h.events<{ type: string }>()).some((e) => e.type === 'config_reloaded'), 'the reload');
    await h.kill(['chat']);
    await until(() => s.json().length >= 2, 'the ended call');
    expect(s.json().flatMap((p) => p.events.map((e) => [e.event, e.run!.name, e.run!.exit_reason]))).toEqual([
      ['awaiting_input', 'chat', null],
      ['ended_not_completed', 'chat', 'killed'],
    ]);
  });

  it("desktop runs notify-send from the supervisor's PATH with the summary", async () => {
    const h = spawned();
    const bin = path.join(h.dir, 'bin');
    fs.mkdirSync(bin);
    const out = path.join(h.dir, 'desktop.txt');
    fs.writeFileSync(path.join(bin, 'notify-send'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${out}.tmp" && mv "${out}.tmp" "${out}"\n`, { mode: 0o755 });
    h.writeConfig({ notify: { desktop: true, batch: '0s' } });
    const env = { ...h.env, PATH: `${bin}:${process.env.PATH}` };
    h.cli(['run', '-n', 'd', '--', 'sh', '-c', 'exit 4'], { env });
    const args = await until(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8'), 'notify-send to be run');
    expect(args).toBe('--app-name=orcr\norcr\nd ended: errored\n');
  });

  it('desktop without notify-send says so once in server.log', async () => {
    const h = spawned({ notify: { desktop: true } });
    h.cli(['stats'], { env: { ...h.env, PATH: path.dirname(process.execPath) } });
    await until(
      () => serverLog(h).includes('notify-send is not on'),
      () => `the log line:\n${serverLog(h)}`,
    );
    h.writeConfig({ notify: { desktop: true, batch: '1s' } });
    await until(() => h.json<{ type: string }[]>(['events']).some((e) => e.type === 'config_reloaded'), 'the reload');
    expect(serverLog(h).split('notify-send is not on').length - 1).toBe(1);
  });

  it('a bad notify config is refused naming the key: at start (exit 2), and on reload (config_rejected, the old config stays)', async () => {
    const bad = spawned({ notify: { webhook: 'not a url' } });
    const r = bad.cli(['stats']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('notify.webhook: must be an http:// or https:// URL');

    const s = await sink();
    const h = await home({ notify: { webhook: `${s.url}/hook`, batch: '0s' } });
    await h.startSupervisor();
    h.writeConfig({ notify: { webhook: `${s.url}/hook`, events: ['ended'] } });
    const rejected = await until(
      async () => (await h.events<{ type: string; data: { error: string } }>()).find((e) => e.type === 'config_rejected'),
      'config_rejected',
    );
    expect(rejected.data.error).toMatch(/notify\.events\.0: unknown event "ended"/);
    await h.run(['-n', 'still', '--', 'sh', '-c', 'exit 1']);
    await until(() => s.json().length === 1, 'a call under the old config');
    expect(s.json()[0]!.events[0]!.run!.name).toBe('still');
  });
});
