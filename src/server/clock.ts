// The supervisor's clock: wall time at process start, advanced by the
// monotonic clock. A system clock that jumps (NTP, a user) neither expires
// nor extends queue waits, holds, guards or timeouts while this process runs.
// Whole milliseconds: every time it stamps reaches users (JSON, events).

export const monoNow = (): number => Math.round(performance.timeOrigin + performance.now());
