// A system clock that a test moves, without libfaketime: preloaded into a
// supervisor with `node --import` (see wallClockArgs in wall-clock.ts), it
// shifts what this process reads as wall time, as LD_PRELOAD=libfaketime
// shifts what libc returns: Date.now() and `new Date()` by the offset in
// ORCR_TEST_WALL_CLOCK_FILE (seconds, e.g. "+3600", re-read as it changes,
// like FAKETIME_TIMESTAMP_FILE) or ORCR_TEST_WALL_CLOCK_OFFSET (seconds,
// fixed); performance.timeOrigin by the offset in force when the process
// started, as Node takes it from the wall clock then. The monotonic clock
// (performance.now(), process.hrtime) stays real, as it does under
// libfaketime with DONT_FAKE_MONOTONIC=1. No code of orcr's is replaced: this
// is the operating system's clock, seen from inside one process.

import fs from 'node:fs';

const file = process.env.ORCR_TEST_WALL_CLOCK_FILE;
const fixed = Number(process.env.ORCR_TEST_WALL_CLOCK_OFFSET ?? 0) * 1000 || 0;
const RealDate = Date;
const realNow = RealDate.now.bind(RealDate);

let offsetMs = fixed;
let readAt = -Infinity;
/** The offset now; the file is read again at most every 5 ms of monotonic time (a write is seen within that). */
function offset() {
  if (!file) return offsetMs;
  const t = performance.now();
  if (t - readAt >= 5) {
    readAt = t;
    try {
      offsetMs = Number(fs.readFileSync(file, 'utf8').trim()) * 1000 || 0;
    } catch {
      /* keep the last one */
    }
  }
  return offsetMs;
}

function FakeDate(...args) {
  if (!new.target) return new RealDate(realNow() + offset()).toString();
  return args.length === 0 ? new RealDate(realNow() + offset()) : new RealDate(...args);
}
FakeDate.prototype = RealDate.prototype;
FakeDate.now = () => realNow() + offset();
FakeDate.parse = RealDate.parse;
FakeDate.UTC = RealDate.UTC;
globalThis.Date = FakeDate;

const origin = performance.timeOrigin + offset();
Object.defineProperty(performance, 'timeOrigin', { get: () => origin, configurable: true });
