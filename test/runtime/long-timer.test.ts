// setLongTimeout: re-armed in steps, fires at its target and not before, and
// never hands setTimeout a delay it would clamp to 1 ms. Real timers.

import { spawn } from 'node:child_process';
import { createHook } from 'node:async_hooks';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TIMER_STEP_MS, setLongTimeout, type LongTimeout } from '../../src/runtime/long-timer.js';
import { NODE, ROOT, until } from '../support/harness.js';

const YEAR_MS = 365 * 24 * 3600 * 1000;
const later = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const handles: LongTimeout[] = [];
afterEach(() => {
  for (const h of handles.splice(0)) h.clear();
});

describe('setLongTimeout', () => {
  it('re-arms in steps no longer than maxStepMs and fires once, at its target', async () => {
    const created: number[] = [];
    const hook = createHook({ init: (_id, type) => void (type === 'Timeout' && created.push(1)) }).enable();
    const start = performance.now();
    let firedAt = 0;
    let fired = 0;
    handles.push(setLongTimeout(() => ((firedAt = performance.now()), fired++), 150, { maxStepMs: 20 }));
    await until(() => fired > 0, 'the timer to fire', 5_000, 5);
    hook.disable();
    expect(firedAt - start).toBeGreaterThanOrEqual(150);
    // 150 ms in steps of at most 20 ms: at least 8 timers (more from vitest itself do not matter).
    expect(created.length).toBeGreaterThanOrEqual(8);
    expect(handles[0]!.pending).toBe(false);
    // A timer armed after it with a longer delay fires after it: nothing is left that could fire twice.
    await later(40);
    expect(fired).toBe(1);
  });

  it('does not fire a year-long timer after 1 ms, and gives setTimeout no delay it would clamp', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    let fired = false;
    const h = setLongTimeout(() => (fired = true), YEAR_MS);
    handles.push(h);
    // A clamped timer (1 ms) armed before this 30 ms one would fire before it: timers fire in order of expiry.
    await later(30);
    process.off('warning', onWarning);
    expect(fired).toBe(false);
    expect(h.pending).toBe(true);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });

  it('clear() stops it between steps', async () => {
    let fired = false;
    const h = setLongTimeout(() => (fired = true), 100, { maxStepMs: 20 });
    handles.push(h);
    await later(45);
    h.clear();
    expect(h.pending).toBe(false);
    await later(150); // past its target, in expiry order
    expect(fired).toBe(false);
  });

  it('fires a delay of 0 (or a negative one) on a later turn, never inside the call', async () => {
    let n = 0;
    handles.push(
      setLongTimeout(() => n++, 0),
      setLongTimeout(() => n++, -5),
    );
    expect(n).toBe(0);
    await until(() => n === 2, 'both timers');
  });

  it('refuses a step setTimeout would clamp', () => {
    expect(() => setLongTimeout(() => undefined, 10, { maxStepMs: MAX_TIMER_STEP_MS + 1 })).toThrow(/maxStepMs must be between 1 and 2147483647/);
    expect(() => setLongTimeout(() => undefined, 10, { maxStepMs: 0 })).toThrow(RangeError);
  });

  it('an unref()ed timer does not keep the process alive; a ref()ed one does until it fires', async () => {
    const mod = path.join(ROOT, 'dist/src/runtime/long-timer.js');
    const run = (code: string): Promise<{ code: number | null; out: string }> =>
      new Promise((resolve) => {
        const child = spawn(NODE, ['--input-type=module', '-e', `import { setLongTimeout } from ${JSON.stringify(mod)};\n${code}`], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.on('close', (code) => resolve({ code, out }));
      });
    // Both processes end on their own; the first only because its year-long timer is unref'd.
    expect(await run(`setLongTimeout(() => console.log('fired'), ${YEAR_MS}, { unref: true });`)).toEqual({ code: 0, out: '' });
    expect(await run(`setLongTimeout(() => console.log('fired'), ${YEAR_MS}).unref();`)).toEqual({ code: 0, out: '' });
    expect(await run(`setLongTimeout(() => console.log('fired'), 60, { unref: true, maxStepMs: 10 }).ref();`)).toEqual({ code: 0, out: 'fired\n' });
  });
});
