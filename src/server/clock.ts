// The supervisor's clock: wall time at process start, advanced by the
// monotonic clock. A system clock that jumps (NTP, a user) neither expires
// nor extends queue waits, holds, guards or timeouts while this process runs.
// Whole milliseconds: every time it stamps reaches users (JSON, events).

export const monoNow = (): number => Math.round(performance.timeOrigin + performance.now());

/**
 * The loops' clock: wall time, not monoNow. A cron is about what the wall
 * clock says, and after the machine slept the loops must see the time that
 * passed (the monotonic clock stood still meanwhile) to skip what was missed.
 * A parameter of the supervisor (startServer's `loopClock`), so a test can
 * put a cron boundary seconds away, or a supervisor downtime minutes long,
 * without waiting for either.
 */
export type WallClock = () => number;
export const wallNow: WallClock = () => Date.now();
