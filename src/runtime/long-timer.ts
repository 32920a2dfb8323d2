// A timeout of any length. Node clamps a setTimeout delay above 2^31−1 ms
// (~24.8 days) to 1 ms, so a long timer is re-armed in steps no longer than
// that toward a target on the monotonic clock.

/** The longest delay setTimeout honours. */
export const MAX_TIMER_STEP_MS = 2 ** 31 - 1;

export interface LongTimeoutOptions {
  /** Do not keep the process alive for this timer (as `timeout.unref()`). Default false. */
  unref?: boolean;
  /** The longest single setTimeout; tests pass a small one to see re-arming without waiting weeks. */
  maxStepMs?: number;
}

export interface LongTimeout {
  /** Cancel it; it will not fire. Safe to call more than once, or after it fired. */
  clear(): void;
  unref(): LongTimeout;
  ref(): LongTimeout;
  /** Still waiting (neither fired nor cleared). */
  readonly pending: boolean;
}

/**
 * Call `fn` once, `delayMs` from now, however long that is. The target is
 * measured on `performance.now()`, so a wall-clock change (NTP, a user setting
 * the date) neither fires it early nor late. A delay that is negative or NaN
 * fires on the next timer turn, as setTimeout does; Infinity never fires.
 */
export function setLongTimeout(fn: () => void, delayMs: number, opts: LongTimeoutOptions = {}): LongTimeout {
  const maxStep = opts.maxStepMs ?? MAX_TIMER_STEP_MS;
  if (!(maxStep >= 1 && maxStep <= MAX_TIMER_STEP_MS)) {
    throw new RangeError(`maxStepMs must be between 1 and ${MAX_TIMER_STEP_MS}, got ${maxStep}`);
  }
  const delay = Number.isNaN(delayMs) || delayMs < 0 ? 0 : delayMs;
  const target = performance.now() + delay;
  let refed = opts.unref !== true;
  let timer: NodeJS.Timeout | null = null;
  let pending = true;

  const schedule = (remaining: number): void => {
    timer = setTimeout(step, Math.max(1, Math.ceil(Math.min(remaining, maxStep))));
    if (!refed) timer.unref();
  };
  const step = (): void => {
    // Node's timers run on the loop's cached millisecond clock and can wake
    // early by our measure: then this is one more step, not the end.
    const remaining = target - performance.now();
    if (remaining > 0) return schedule(remaining);
    timer = null;
    pending = false;
    fn();
  };

  const handle: LongTimeout = {
    clear() {
      pending = false;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
    unref() {
      refed = false;
      timer?.unref();
      return handle;
    },
    ref() {
      refed = true;
      timer?.ref();
      return handle;
    },
    get pending() {
      return pending;
    },
  };

  if (delay === Infinity) {
    return handle; // nothing to arm: it never fires, and keeps nothing alive
  }
  // Armed even for a delay of 0, so fn never runs inside this call.
  schedule(delay);
  return handle;
}
