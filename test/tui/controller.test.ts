// The TUI's controller against a real supervisor: snapshot then stream,
// stats, kill, wait on a second connection, new runs from a typed line, and
// reconnecting after the supervisor went away (rows replaced, no duplicates).

import './no-ci.js';
import fs from 'node:fs';
import path from 'node:path';
import React from 'react';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/tui/app.js';
import { queuedWhy } from '../../src/tui/view/why.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { ensureHome } from '../../src/config/home.js';
import { Controller } from '../../src/tui/connection/controller.js';
import { createTuiStore, type TuiStore } from '../../src/tui/state/store.js';
import { until } from '../support/harness.js';
import { Home, MOCK_AGENT } from './home.js';

let home: Home | null = null;
let controller: Controller | null = null;

afterEach(() => {
  controller?.stop();
  controller = null;
  home?.cleanup();
  home = null;
});

function start(h: Home): { store: TuiStore; ctl: Controller; bells: string[] } {
  const store = createTuiStore({ home: h.dir });
  const bells: string[] = [];
  const ctl = new Controller(store, ensureHome(h.dir), { writeTerminal: (b) => bells.push(b), env: { TERM: 'xterm' }, cwd: h.dir, statsIntervalMs: 200 });
  controller = ctl;
  ctl.start();
  return { store, ctl, bells };
}

const statusOf = (store: TuiStore, name: string): string | undefined => {
  const r = Object.values(store.getState().runs.byId).find((x) => x.name === name);
  return r ? (r.status === 'ended' ? `ended:${r.exit_reason}` : r.status) : undefined;
};

/** Every notice the footer shows from now on, even one the next replaces before a poll could see it. */
function notices(store: TuiStore): string[] {
  const seen: string[] = [];
  store.subscribe((s, prev) => {
    if (s.message && s.message !== prev.message) seen.push(s.message.text);
  });
  return seen;
}

describe('controller with a real supervisor', () => {
  it('snapshot, stream, stats, kill in place, wait, new run; bell on ended', async () => {
    home = new Home({ concurrency: { max: 1 } });
    const a = home.run(['-n', 'long-a', '--', 'sh', '-c', 'sleep 30']);
    home.run(['-n', 'next-b', '--', 'sh', '-c', 'sleep 0.3']);
    const c = home.run(['-n', 'later-c', '--', 'sh', '-c', 'sleep 30']);
    const { store, ctl, bells } = start(home);
    await until(() => store.getState().loaded && store.getState().conn.state === 'up', 'the snapshot');
    await until(() => statusOf(store, 'long-a') === 'working' && statusOf(store, 'next-b') === 'queued', 'working + queued');
    expect(store.getState().view.positions[Object.values(store.getState().runs.byId).find((r) => r.name === 'next-b')!.uuid]).toBe(1);
    const global = await until(() => store.getState().stats?.caps.find((cap) => cap.cap === 'global' && cap.active === 1 && cap.queued === 2), 'stats');
    expect(global.holders).toEqual([a.uuid]);
    expect(global.waiting).toHaveLength(2);

    const seen = notices(store);
    const said = (text: string, what: string) => until(() => seen.includes(text), `the footer to say "${text}" (${what})`);
    ctl.runs.kill(c.uuid, false); // queued → canceled
    await said('canceled later-c: it had not started', 'a queued run killed');
    await until(() => statusOf(store, 'later-c') === 'ended:canceled', 'canceled in place');

    ctl.runs.kill(a.uuid, false);
    await said('kill sent to long-a', 'the kill');
    await until(() => statusOf(store, 'long-a') === 'ended:killed', 'killed in place');
    await until(() => store.getState().message?.text.includes('long-a ended: killed'), 'the notice');
    expect(bells).toContain('\x07');
    ctl.runs.kill(a.uuid, false);
    await said('long-a had already ended (killed): nothing to kill', 'a kill of an ended run');
    ctl.runs.send(a.uuid, 'hello?');
    await until(() => seen.find((t) => t.startsWith('send to long-a: the run has ended')), "the server's refusal, in its words");
    const b = Object.values(store.getState().runs.byId).find((r) => r.name === 'next-b')!;
    ctl.runs.wait(b.uuid);
    expect(seen.at(-1)).toBe('waiting on next-b until it is idle or ended…');
    await until(() => store.getState().waits.find((w) => w.uuid === b.uuid && w.state === 'settled'), 'the wait to settle');
    expect(store.getState().waits.find((w) => w.uuid === b.uuid)!.token).toBe('completed');
    await said('wait on next-b: completed', 'the wait');

    ctl.runs.enqueue(`-n typed -- sh -c 'echo "from the prompt"; exit 3'`);
    await until(() => seen.find((t) => /^queued typed \([0-9a-f]{8}\)$/.test(t)), 'the new run queued, by name');
    await until(() => statusOf(store, 'typed') === 'ended:errored', 'the typed run to end');
    ctl.runs.enqueue(`--bogus`);
    await until(() => store.getState().message?.kind === 'error' && store.getState().message!.text.includes('new run'), 'a usage error in the footer');
    ctl.runs.enqueue(`-- sh -c 'unterminated`);
    await until(() => store.getState().message?.text.includes('unterminated single quote'), 'a split error');

    // The log saw the transitions, each once.
    const seqs = store
      .getState()
      .log.slice(0, store.getState().log.size)
      .map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
  });

  it('send to an idle interactive agent, and the details pane reads /proc and the output', async () => {
    home = new Home({ concurrency: { max: 2 } });

    const chat = home.run([
      '-n',
      'chat',
      '--protocol',
      'jsonl',
      '--interactive',
      '--',
      process.execPath,
      MOCK_AGENT,
      '--format',
      'jsonl',
      '--scenario',
      'interactive',
      '--delay',
      '50',
    ]);
    const { store, ctl } = start(home);
    await until(() => statusOf(store, 'chat') === 'idle', 'chat idle', 30_000);
    store.setState({ selected: chat.uuid, mode: 'details' });
    ctl.output.detailsOpened();
    await until(() => {
      const d = store.getState().details;
      const doc = store.getState().outputDoc;
      return d && d.uuid === chat.uuid && d.pids.length > 0 && d.rssBytes! > 0 && doc?.uuid === chat.uuid && doc.raw.length > 0;
    }, 'details with processes and output');
    ctl.output.refresh();
    await until(() => store.getState().details?.cpu !== null, 'a CPU figure from two samples');
    ctl.runs.send(chat.uuid, 'one more thing');
    await until(() => store.getState().message?.text === 'sent to chat (input #1)', 'sent');
    await until(() => {
      const r = store.getState().runs.byId[chat.uuid];
      return r && r.status === 'idle' && r.input_seq === 1;
    }, 'the turn to end');
    // An empty line is refused here, with a word in the footer: the agent gets no empty turn.
    ctl.runs.send(chat.uuid, '');
    await until(() => store.getState().message?.text === 'nothing sent to chat: the line was empty', 'the refusal in the footer');
    expect(store.getState().message?.kind).toBe('error');
    expect(home.json<{ input_seq: number; status: string }>(['show', chat.uuid])).toMatchObject({ input_seq: 1, status: 'idle' });
  });

  it('P pauses and resumes the queue, R reruns an ended run, through the real supervisor', async () => {
    home = new Home({ concurrency: { max: 2 } });
    const done = home.run(['-n', 'done', '--', 'true']);
    expect(home.cli(['wait', 'done']).code).toBe(0);
    const { store, ctl } = start(home);
    await until(() => statusOf(store, 'done') === 'ended:completed' && store.getState().stats, 'the ended run and stats');
    ctl.runs.pauseQueue(true);
    await until(() => store.getState().stats?.paused === true, 'stats to say paused');
    expect(store.getState().message?.text).toMatch(/^queue paused: nothing starts \(0 queued\)/);
    ctl.runs.rerun(done.uuid);
    await until(() => statusOf(store, 'done-2') === 'queued', 'the rerun, queued behind the pause');
    expect(home.json<{ waiting: { reason: string } }>(['show', 'done-2']).waiting.reason).toBe('paused');
    // The row's WHY agrees with the supervisor, whatever the caps say.
    const rerun = Object.values(store.getState().runs.byId).find((r) => r.name === 'done-2')!;
    expect(queuedWhy(rerun, store.getState().stats, 1, Date.now())?.text).toBe('queue paused');
    ctl.runs.pauseQueue(false);
    await until(() => statusOf(store, 'done-2') === 'ended:completed' && store.getState().stats?.paused === false, 'the rerun to run once resumed');
  });

  it('killMany kills the tagged runs in one request and says what each came to', async () => {
    home = new Home({ concurrency: { max: 2 } });
    const a = home.run(['-n', 'tag-a', '--', 'sh', '-c', 'sleep 30']);
    const b = home.run(['-n', 'tag-b', '--', 'sh', '-c', 'sleep 30']);
    const c = home.run(['-n', 'tag-c', '--', 'sh', '-c', 'sleep 30']);
    const { store, ctl } = start(home);
    await until(
      () => statusOf(store, 'tag-a') === 'working' && statusOf(store, 'tag-b') === 'working' && statusOf(store, 'tag-c') === 'queued',
      'two working, one queued',
    );
    // Every notice, even one the runs' endings replace before a poll could see it.
    const seen = notices(store);
    ctl.runs.killMany([a.uuid, b.uuid, c.uuid], false);
    await until(
      () => seen.includes('3 runs: kill sent to 2, 1 canceled before they started'),
      () => `the summary among ${JSON.stringify(seen)}`,
    );
    await until(
      () => ['tag-a', 'tag-b'].every((n) => statusOf(store, n) === 'ended:killed') && statusOf(store, 'tag-c') === 'ended:canceled',
      'all three ended',
    );
  });

  it('resumeProvider lifts a usage-limit hold through the real supervisor', async () => {
    home = new Home({ concurrency: { max: 2 } });
    const limited = path.join(home.dir, 'limited.sh');
    fs.writeFileSync(limited, `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"blocked","kind":"limit","retry_after_s":3600}'\nexit 1\n`, {
      mode: 0o755,
    });
    home.run(['-n', 'hit', '-a', 'claude', '--protocol', 'jsonl', '--', limited]);
    const { store, ctl } = start(home);
    await until(() => (store.getState().stats?.holds.claude ?? 0) > Date.now(), 'the hold in stats');
    const seen = notices(store);
    ctl.runs.resumeProvider('claude');
    await until(() => store.getState().stats && store.getState().stats!.holds.claude === undefined, 'the hold lifted');
    await until(
      () => seen.includes('claude resumed: its queued runs may start now'),
      () => `the notice among ${JSON.stringify(seen)}`,
    );
  });

  it('o takes a run over: a working run stops at the end of its turn (taken_over), then its own CLI opens on its session in its folder; o again stops one now; a run without a session says why', async () => {
    home = new Home({ concurrency: { max: 3 } });
    // Stand-ins for the agents' CLIs: each records its argv and folder, and exits.
    const bin = path.join(home.dir, 'bin');
    const record = path.join(home.dir, 'opened');
    fs.mkdirSync(bin);
    for (const cli of ['claude', 'codex']) fs.writeFileSync(path.join(bin, cli), `#!/bin/sh\necho "${cli} $* @ $(pwd)" >> '${record}'\n`, { mode: 0o755 });
    const work = path.join(home.dir, 'work');
    fs.mkdirSync(work);
    const claude = (name: string, delay: string): string =>
      home!.run([
        '-n',
        name,
        '-a',
        'claude',
        '--protocol',
        'claude',
        '--interactive',
        '--cwd',
        work,
        '-p',
        'go',
        '--',
        process.execPath,
        MOCK_AGENT,
        '--format',
        'claude',
        '--scenario',
        'interactive',
        '--delay',
        delay,
      ]).uuid;
    const slow = claude('slow-turn', '1500');
    const fast = claude('stuck', '20000');
    const plain = home.run(['-n', 'plain', '--', 'sh', '-c', 'sleep 30']).uuid;
    const store = createTuiStore({ home: home.dir });
    const handed: number[] = [];
    const ctl = new Controller(store, ensureHome(home.dir), {
      env: { ...process.env, TMUX: '', PATH: `${bin}:${process.env.PATH}` },
      cwd: home.dir,
      statsIntervalMs: 200,
      handOver: async (run) => {
        handed.push(Date.now());
        run();
      },
    });
    controller = ctl;
    ctl.start();
    const sessionOf = (uuid: string): string | null => store.getState().runs.byId[uuid]?.session_id ?? null;
    await until(
      () =>
        statusOf(store, 'slow-turn') === 'working' &&
        sessionOf(slow) &&
        statusOf(store, 'stuck') === 'working' &&
        sessionOf(fast) &&
        statusOf(store, 'plain') === 'working',
      'three working runs with sessions',
    );
    const seen = notices(store);
    // A run that says no session (a plain command): o says why, and nothing stops.
    ctl.takeover.start(plain);
    expect(seen.at(-1)).toMatch(/^o: plain runs sh: o takes over Claude Code, Codex and Gemini runs only/);
    // Working: it finishes its turn first.
    ctl.takeover.start(slow);
    await until(
      () => seen.some((m) => m.startsWith('slow-turn stops at the end of its turn, then claude opens on its session')),
      () => `the promise among ${JSON.stringify(seen)}`,
    );
    expect(handed).toEqual([]);
    await until(() => statusOf(store, 'slow-turn') === 'ended:taken_over', 'the run to end taken over');
    await until(() => fs.existsSync(record) && fs.readFileSync(record, 'utf8').includes('claude --resume'), 'the CLI to open');
    expect(fs.readFileSync(record, 'utf8').trim()).toBe(`claude --resume ${sessionOf(slow)} @ ${work}`);
    expect(home.json<{ exit_reason: string; exit_detail: string }>(['show', 'slow-turn'])).toMatchObject({
      exit_reason: 'taken_over',
      exit_detail: 'at the end of its turn',
    });
    // A long turn: o asks, o again stops it now.
    ctl.takeover.start(fast);
    await until(() => seen.some((m) => m.startsWith('stuck stops at the end of its turn')), 'the first o');
    ctl.takeover.start(fast);
    await until(() => statusOf(store, 'stuck') === 'ended:taken_over', 'the second o to stop it');
    await until(() => fs.readFileSync(record, 'utf8').trim().split('\n').length === 2, 'the second CLI');
    expect(home.json<{ exit_detail: string }>(['show', 'stuck']).exit_detail).toBe('stopped mid-turn');
    expect(handed).toHaveLength(2);
    expect(statusOf(store, 'plain')).toBe('working');
  });

  it('a run an agent makes is its child: listed right under it, indented', async () => {
    home = new Home({ concurrency: { max: 3 } });
    const { CLI } = await import('./home.js');
    // The parent is a script that makes a child through the real CLI (ORCR_RUN and ORCR_HOME come from orcr).
    const parent = path.join(home.dir, 'parent.sh');
    fs.writeFileSync(parent, `#!/bin/sh\n'${process.execPath}' '${CLI}' run -n kid -- sh -c 'sleep 30' > /dev/null\nsleep 30\n`, { mode: 0o755 });
    home.run(['-n', 'boss', '--', parent]);
    home.run(['-n', 'loner', '--', 'sh', '-c', 'sleep 30']);
    const { store } = start(home);
    const byName = (n: string) => Object.values(store.getState().runs.byId).find((r) => r.name === n);
    await until(() => byName('kid')?.status === 'working', 'the child to work');
    const boss = byName('boss')!;
    expect(byName('kid')!.parent).toBe(boss.uuid);
    await until(() => store.getState().view.depth?.[byName('kid')!.uuid] === 1, 'the child indented under its parent');
    const ids = store.getState().view.ids;
    expect(ids.indexOf(byName('kid')!.uuid)).toBe(ids.indexOf(boss.uuid) + 1);
  });

  it('bytes from a real agent (command, cwd, tool, text, output) reach the rendered frame as plain text only', async () => {
    home = new Home({ concurrency: { max: 2 } });
    // OSC 52 (clipboard), OSC 0 (title), CSI clear screen, 8-bit C1 CSI, newline.
    const NASTY = '\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b[2J\u009b31m\n';
    const cwd = path.join(home.dir, `dir${NASTY}x`);
    fs.mkdirSync(cwd);
    const json = (o: unknown): string => JSON.stringify(o);
    const script = [
      `printf '%s\\n' '${json({ type: 'ready' })}' '${json({ type: 'turn_start' })}'; sleep 0.5`,
      // Apart from the events, and with none after them: the tool and the words change the row alone, and still reach the screen.
      `printf '%s\\n' '${json({ type: 'tool', name: `Tool${NASTY}X` })}' '${json({ type: 'text', text: `say${NASTY}hi` })}'`,
      `printf 'raw\\033]52;c;cHduZWQ=\\007\\033]0;pwned\\007\\033[2J\\302\\23331m out\\n'`,
      'sleep 30',
    ].join('\n');
    const file = path.join(home.dir, 'agent.sh');
    fs.writeFileSync(file, script + '\n');
    // Names and workloads with control characters are refused at `orcr run`; every other field is the agent's to fill.
    const r = home.run(['-n', 'name-A', '-w', 'wl-B', '--cwd', cwd, '--protocol', 'jsonl', '--', 'sh', file, `arg${NASTY}C`]);
    const { store, ctl } = start(home);
    await until(() => store.getState().runs.byId[r.uuid]?.last_text?.includes('hi'), 'the agent to speak');
    const inst = render(
      React.createElement(App, { store, actions: ctl, themes: loadThemes([builtinThemeDir()]), onExit: () => undefined, size: { columns: 120, rows: 40 } }),
    );
    try {
      const plain = (f: string): void => {
        expect(f).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
        // The agent's JSON lines show its escapes as harmless text ("\u001b]52;…"); every other line shows no trace of them.
        const prose = f
          .split('\n')
          .filter((l) => !l.startsWith('{"type"'))
          .join('\n');
        for (const leak of ['cHduZWQ=', 'pwned', '[2J']) expect(prose).not.toContain(leak);
        // The SGR's parameters, not a duration that happens to read "31ms" or "1m31s".
        expect(prose).not.toMatch(/(?<![\d.s])31m(?!s)/);
        expect(f.split('\n')).toHaveLength(39);
      };
      let f = await until(() => {
        const x = inst.lastFrame() ?? '';
        return /● working\s+name-A/.test(x) && x.includes('wl-B') ? x : null;
      }, 'the row');
      plain(f);
      inst.stdin.write('\r');
      f = await until(() => {
        const x = inst.lastFrame() ?? '';
        return x.includes('Details: name-A') && x.includes('raw out') ? x : null;
      }, 'the details with the output');
      plain(f);
      expect(f).toContain('tool Tool X');
      expect(f).toContain('"say hi"');
      expect(f).toContain('dir x');
      expect(f).toContain("'arg C'");
    } finally {
      inst.unmount();
    }
  });

  it('queue positions agree with the supervisor (priority first); WHY names the global cap when only it binds; a refused config.json reaches the store', async () => {
    const config = { concurrency: { max: 1, workloads: { urgent: { priority: 5 } } } };
    home = new Home(config);
    home.run(['-n', 'busy', '--', 'sh', '-c', 'sleep 30']);
    home.run(['-n', 'first-in', '--', 'sh', '-c', 'sleep 30']);
    home.run(['-n', 'second-in', '--', 'sh', '-c', 'sleep 30']);
    home.run(['-n', 'late-urgent', '-w', 'urgent', '--', 'sh', '-c', 'sleep 30']);
    const { store } = start(home);
    const byName = (n: string) => Object.values(store.getState().runs.byId).find((r) => r.name === n)!;
    await until(
      () => store.getState().stats && byName('late-urgent') && store.getState().view.positions[byName('late-urgent').uuid] === 1,
      "the supervisor's positions",
    );
    const ps = new Map(home.ps().map((r) => [r.name, r.queue_position]));
    expect(ps.get('late-urgent')).toBe(1);
    for (const n of ['first-in', 'second-in', 'late-urgent']) expect(store.getState().view.positions[byName(n).uuid]).toBe(ps.get(n));
    const s = store.getState();
    expect(queuedWhy(byName('second-in'), s.stats, s.view.positions[byName('second-in').uuid], Date.now())?.text).toBe('global 1/1');

    home.writeConfig('{ "concurrency": { "max": "eight" } }');
    const err = await until(() => store.getState().stats?.configError, 'the refused config in stats');
    expect(err.message).toMatch(/concurrency\.max/);
    home.writeConfig(config);
    await until(() => store.getState().stats && store.getState().stats!.configError === null, 'a good config clears it');
  });

  it('says when the supervisor goes away, keeps the rows, and re-subscribes when it is back', async () => {
    home = new Home({ concurrency: { max: 2 } });
    home.run(['-n', 'keep-1', '--', 'sh', '-c', 'sleep 30']);
    home.run(['-n', 'keep-2', '--', 'sh', '-c', 'sleep 30']);
    home.run(['-n', 'wait-3', '--', 'sh', '-c', 'sleep 30']);
    const { store, ctl } = start(home);
    await until(
      () => statusOf(store, 'keep-1') === 'working' && statusOf(store, 'keep-2') === 'working' && statusOf(store, 'wait-3') === 'queued',
      'the fleet',
    );
    const before = Object.keys(store.getState().runs.byId).sort();

    expect(home.cli(['server', 'stop']).code).toBe(0);
    await until(() => store.getState().conn.state === 'down', 'down');
    expect(store.getState().message?.text).toContain('the supervisor went away');
    expect(Object.keys(store.getState().runs.byId).sort()).toEqual(before); // last state kept

    // While it is away, a run is added and one ends: the new snapshot must show both.
    home.run(['-n', 'added-4', '--', 'sh', '-c', 'sleep 30']); // auto-starts a supervisor
    const keep1 = home.ps().find((r) => r.name === 'keep-1')!;
    home.cli(['kill', keep1.uuid]);
    await until(() => store.getState().conn.state === 'up', 'reconnected', 30_000);
    await until(() => statusOf(store, 'added-4') !== undefined && statusOf(store, 'keep-1') === 'ended:killed', 'the new snapshot');
    const ps = home.ps();
    await until(() => {
      const mine = Object.values(store.getState().runs.byId);
      const now = home!.ps();
      return mine.length === now.length && now.every((r) => statusOf(store, r.name) === (r.status === 'ended' ? `ended:${r.exit_reason}` : r.status));
    }, 'the rows to match orcr ps');
    expect(Object.keys(store.getState().runs.byId)).toHaveLength(ps.length);
    expect(store.getState().view.ids).toHaveLength(ps.length);
    ctl.session.reconnect();
    await until(() => store.getState().message?.text === 'connected', 'r while connected says so');
  });
});
