// Ink as orcr's patch leaves it (src/tui/ink/patch/ink+6.8.0.patch): the installed Ink
// must be the patched one, frames must come out byte for byte as Ink draws
// them without the cross-frame caches, and every cache must stay under its
// byte budget — with a budget that is what freeing the caches gives back.

import './color-on.js';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import React, { memo } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Box, inkCacheStats, Text } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../src/tui/app.js';
import type { Actions } from '../../src/tui/input/actions.js';
import { disableInkFrameCache, enableInkFrameCache, INK_CACHE_BYTES } from '../../src/tui/ink/frame-cache.js';
import { reduceSnapshot, reduceStream } from '../../src/tui/state/reducers.js';
import { createTuiStore, type TuiStore } from '../../src/tui/state/store.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { msg, run, T0 } from './fixtures.js';
import { tick } from './helpers.js';
import { ROOT } from './home.js';

afterEach(async () => {
  cleanup();
  await enableInkFrameCache(INK_CACHE_BYTES);
});

const themes = loadThemes([builtinThemeDir()]);
const noop = (): void => {};
const actions: Actions = { kill: noop, send: noop, wait: noop, enqueue: noop, reconnect: noop, themeChanged: noop, detailsOpened: noop, rerun: noop, pauseQueue: noop, sortChanged: noop, loadOlder: noop, killMany: noop, resumeProvider: noop, takeover: noop, transcriptOpened: noop, transcriptClosed: noop, spendOpened: noop, loopsOpened: noop, pauseLoop: noop, fireLoop: noop, diffOpened: noop };

/** A fleet, then `steps` stream batches that each add a queued run and end the previous one; every frame Ink wrote. */
async function frames(steps: number, salt: string, each: () => void = noop): Promise<string[]> {
  const runs = [run({ name: 'holder', status: 'working', queue_seq: 1 })];
  for (let i = 0; i < 60; i++) runs.push(run({ name: `queued-${i}`, status: 'queued', queue_seq: 10 + i }));
  const store: TuiStore = createTuiStore({ home: '/tmp/h', now: T0 + 5000, theme: 'dark' });
  store.setState((s) => reduceSnapshot(s, { seq: 100, runs }, T0 + 5000));
  store.setState({ conn: { state: 'up', pid: 99, startedAt: T0, error: null, since: T0, starting: false } });
  const inst = render(<App store={store} actions={actions} themes={themes} onExit={noop} size={{ columns: 120, rows: 40 }} />);
  await tick();
  let seq = 100;
  let prev: ReturnType<typeof run> | null = null;
  for (let i = 0; i < steps; i++) {
    const r = run({ name: `${salt}-${i}`, status: 'queued', queue_seq: 1000 + i });
    const msgs = [msg(++seq, 'queued', r, { name: r.name })];
    if (prev) msgs.push(msg(++seq, 'ended', { ...prev, status: 'ended', exit_reason: 'canceled' }, { reason: 'canceled' }));
    prev = r;
    // The clock moves too: every elapsed time on screen is a text never measured before.
    store.setState((s) => ({ ...reduceStream(s, msgs).patch, now: s.now + 1000 }));
    await tick();
    each();
  }
  const out = inst.frames.slice();
  inst.unmount();
  return out;
}

/** What orcr-tui does not draw but Ink's Output handles: wide characters, borders, multi-line text, wrapping, clipping, colours. */
function Odd({ step }: { step: number }): React.JSX.Element {
  return (
    <Box flexDirection="column" width={50}>
      <Box borderStyle="round" borderColor="cyan" paddingX={1}>
        <Text color="green" bold>
          名前-{step} 🚀 ok
        </Text>
      </Box>
      <Text inverse>{`line one ${step}\nline two ${step % 3}\nline three`}</Text>
      <Box width={20}>
        <Text wrap="wrap">{`wrapped text ${step} ${'ab '.repeat(step % 9)}end`}</Text>
      </Box>
      {step % 3 === 0 ? (
        <Box width={12} overflow="hidden">
          <Text wrap="truncate">{`clipped ${'x'.repeat(step % 20)} end`}</Text>
        </Box>
      ) : (
        <Text>{`wide ${'界'.repeat(step % 7)}|`}</Text>
      )}
      <Box>
        <Text dimColor>{'é'.repeat(step % 5)}</Text>
        <Text color="#ff8800">|{step % 2 ? '⟳' : ' '}|</Text>
      </Box>
      {step % 4 === 0 ? <Text backgroundColor="blue">every fourth</Text> : null}
    </Box>
  );
}

/** A subtree React leaves alone (memo) but Ink must place anew: it moves, is resized by its parent, hidden and shown. */
const Card = memo(function Card({ label, grow }: { label: string; grow?: boolean }): React.JSX.Element {
  return (
    <Box borderStyle="single" flexDirection="column" flexGrow={grow ? 1 : 0}>
      <Text color="magenta">
        {label} <Text bold color="yellow">{label.length}</Text>
      </Text>
      <Box width={8} overflow="hidden">
        <Text>{`clip-${label}-xxxxxxxx`}</Text>
      </Box>
      <Text wrap="truncate-end">{`a long line that the card's width cuts short: ${label}`}</Text>
    </Box>
  );
});

function Moving({ step }: { step: number }): React.JSX.Element {
  const items = Array.from({ length: 2 + (step % 4) }, (_, i) => `item-${(step + i) % 7}`);
  return (
    <Box flexDirection="column" width={60}>
      <Box flexDirection="row">
        <Text>{'>'.repeat(step % 6)}</Text>
        <Card label="fixed" />
      </Box>
      {step % 2 ? <Text color="green">inserted line {step}</Text> : null}
      <Box display={step % 3 === 0 ? 'none' : 'flex'}>
        <Card label="sometimes" />
      </Box>
      <Box width={30 + (step % 3) * 7}>
        <Card label="resized" grow />
      </Box>
      {items.map((label) => (
        <Card key={label} label={label} />
      ))}
    </Box>
  );
}

async function movingFrames(steps: number): Promise<string[]> {
  const inst = render(<Moving step={0} />);
  for (let i = 1; i <= steps; i++) {
    inst.rerender(<Moving step={i} />);
    await tick();
  }
  const out = inst.frames.slice();
  inst.unmount();
  return out;
}

async function oddFrames(steps: number, each: () => void = noop): Promise<string[]> {
  const inst = render(<Odd step={0} />);
  for (let i = 1; i <= steps; i++) {
    inst.rerender(<Odd step={i} />);
    await tick();
    each();
  }
  const out = inst.frames.slice();
  inst.unmount();
  return out;
}

describe('Ink, patched', () => {
  it('the installed Ink is 6.8.0 with src/tui/ink/patch/ink+6.8.0.patch applied, file for file', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'src/tui/ink/patch/apply.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('frames with the cross-frame caches are byte for byte the frames Ink draws without them', async () => {
    await disableInkFrameCache();
    const before = await frames(25, 'job');
    const oddBefore = await oddFrames(30);
    expect(inkCacheStats().crossFrame).toBe(false);
    expect(before.length).toBeGreaterThan(20);
    expect(before.join('')).toContain('\x1b['); // colours on: the tokenizer has work to do
    expect(oddBefore.join('')).toContain('名前-7');

    expect(await enableInkFrameCache()).toEqual({ applied: true });
    const s0 = inkCacheStats();
    expect(s0.crossFrame).toBe(true);
    expect(await frames(25, 'job')).toEqual(before);
    const s1 = inkCacheStats();
    expect(await oddFrames(30)).toEqual(oddBefore);
    const s2 = inkCacheStats();
    // Both paths ran: row by row, and Ink's own get() for the frames that clip.
    expect(s1.frames.rows - s0.frames.rows).toBeGreaterThan(20);
    expect(s2.frames.rows - s1.frames.rows).toBeGreaterThan(10);
    expect(s2.frames.ink - s1.frames.ink).toBeGreaterThan(5);
    const rows = s2.caches.find((c) => c.name === 'output rows')!;
    expect(rows.entries).toBeGreaterThan(0);
  });

  it('a subtree drawn before is reused only where it comes out as Ink draws it: moved, resized by its parent, hidden and shown', async () => {
    await disableInkFrameCache();
    const before = await movingFrames(30);
    expect(before.join('')).toContain('inserted line 29');
    await enableInkFrameCache();
    expect(await movingFrames(30)).toEqual(before);
  });

  it('every cache, measure-text and wrap-text included, stays under its byte budget, starting over as it fills', async () => {
    const budget = 256 * 1024;
    await enableInkFrameCache(budget);
    const samples: ReturnType<typeof inkCacheStats>[] = [];
    const sample = (): void => void samples.push(inkCacheStats());
    await frames(80, 'bulk', sample);
    await oddFrames(120, sample);
    const max = new Map<string, number>();
    for (const s of samples) {
      expect(s.caches.reduce((a, c) => a + c.maxBytes, 0)).toBeLessThanOrEqual(budget);
      for (const c of s.caches) {
        expect(c.bytes, c.name).toBeLessThanOrEqual(c.maxBytes);
        max.set(c.name, Math.max(max.get(c.name) ?? 0, c.bytes));
      }
    }
    // Each was used, and the busy ones filled and turned over (their bytes went down between two frames).
    for (const name of ['measure-text', 'wrap-text', 'output styled chars', 'output widths', 'output rows']) expect(max.get(name), name).toBeGreaterThan(0);
    for (const name of ['measure-text', 'output styled chars', 'output rows']) {
      const seen = samples.map((s) => s.caches.find((c) => c.name === name)!.bytes);
      expect(seen.some((b, i) => i > 0 && b < seen[i - 1]!), `${name} turned over`).toBe(true);
    }
  });

  it("the caches' byte counts are honest: freeing them gives back about what they said they held", () => {
    // Its own process, with a GC to call: the heap before and after the caches are emptied.
    const r = spawnSync(process.execPath, ['--expose-gc', path.join(ROOT, 'test/tui/ink-cache-heap.mjs')], { encoding: 'utf8', cwd: ROOT, timeout: 60_000 });
    expect(r.stderr).toBe('');
    const { said, freed } = JSON.parse(r.stdout) as { said: number; freed: number };
    expect(said).toBeGreaterThan(4 * 1024 * 1024);
    // The estimate may err high (a budget then holds less), never far low (a budget that does not bound).
    expect(freed).toBeLessThan(said * 1.25);
    expect(freed).toBeGreaterThan(said * 0.3);
  });
});
