// The cross-frame cache patched into Ink's Output: it must take on the Ink
// this repo installs (so an upgrade that moves Ink's internals fails here,
// not silently in the bench), frames must come out byte for byte as without
// it, and it must stay bounded.

import './color-on.js';
import React from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Box, Text } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../src/tui/app.js';
import type { Actions } from '../../src/tui/input/actions.js';
import { createTuiStore, type TuiStore } from '../../src/tui/state/store.js';
import { reduceSnapshot, reduceStream } from '../../src/tui/state/reducers.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { frameCacheEntries, frameCounts, inkMeasureCacheEntries, installInkFrameCache } from '../../src/tui/ink/frame-cache.js';
import { msg, run, T0 } from './fixtures.js';
import { tick } from './helpers.js';

afterEach(() => cleanup());

const themes = loadThemes([builtinThemeDir()]);
const noop = (): void => {};
const actions: Actions = { kill: noop, send: noop, wait: noop, enqueue: noop, reconnect: noop, themeChanged: noop, detailsOpened: noop };

/** A fleet, then `steps` stream batches that each add a queued run and end the previous one; every frame Ink wrote. */
async function frames(steps: number, salt: string): Promise<string[]> {
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
    store.setState((s) => reduceStream(s, msgs).patch);
    await tick();
  }
  const out = inst.frames.slice();
  inst.unmount();
  return out;
}

/** What orcr-tui does not draw but Ink's Output handles: wide characters, borders, multi-line text, clipping, colours. */
function Odd({ step }: { step: number }): React.JSX.Element {
  return (
    <Box flexDirection="column" width={50}>
      <Box borderStyle="round" borderColor="cyan" paddingX={1}>
        <Text color="green" bold>
          名前-{step} 🚀 ok
        </Text>
      </Box>
      <Text inverse>{`line one ${step}\nline two ${step % 3}\nline three`}</Text>
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

async function oddFrames(steps: number): Promise<string[]> {
  const inst = render(<Odd step={0} />);
  for (let i = 1; i <= steps; i++) {
    inst.rerender(<Odd step={i} />);
    await tick();
  }
  const out = inst.frames.slice();
  inst.unmount();
  return out;
}

describe('Ink frame cache', () => {
  it('takes on the installed Ink and leaves every frame as it was', async () => {
    // This file runs in its own process (vitest isolates test files), so this is Ink unpatched.
    const before = await frames(25, 'job');
    const oddBefore = await oddFrames(30);
    expect(before.length).toBeGreaterThan(20);
    expect(before.join('')).toContain('\x1b['); // colours on: the tokenizer has work to do
    expect(oddBefore.join('')).toContain('名前-7');
    expect(await installInkFrameCache()).toEqual({ applied: true });
    // Ink's private measure-text cache was found (it holds what the frames above measured).
    expect(inkMeasureCacheEntries()).toBeGreaterThan(0);
    const after = await frames(25, 'job');
    expect(frameCacheEntries()).toBeGreaterThan(0);
    expect(after).toEqual(before);
    const counts = { ...frameCounts };
    expect(await oddFrames(30)).toEqual(oddBefore);
    // Both paths ran: row by row, and Ink's own get() for the frames that clip.
    expect(frameCounts.rows - counts.rows).toBeGreaterThan(10);
    expect(frameCounts.ink - counts.ink).toBeGreaterThan(5);
    // Installing twice patches once.
    expect(await installInkFrameCache()).toEqual({ applied: true });
  });

  it('starts over when it outgrows its limit', async () => {
    await installInkFrameCache(300);
    const sizes: number[] = [];
    const measured: number[] = [];
    const probe = setInterval(() => {
      sizes.push(frameCacheEntries());
      measured.push(inkMeasureCacheEntries()!);
    }, 1);
    await frames(60, 'bulk');
    clearInterval(probe);
    sizes.push(frameCacheEntries());
    // Ink's own measure cache, unbounded in Ink, stays near the limit too.
    expect(Math.max(...measured)).toBeLessThanOrEqual(300 + 400);
    expect(measured.some((n, i) => i > 0 && n < measured[i - 1]!)).toBe(true);
    // It grew past the limit by at most one frame's lines and cells (a 40-line screen), then started over.
    expect(Math.max(...sizes)).toBeGreaterThan(300);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(300 + 400);
    expect(sizes.some((n, i) => i > 0 && n < sizes[i - 1]!)).toBe(true);
    await installInkFrameCache();
  });
});
