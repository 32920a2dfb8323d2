// The loop methods: durable schedules for a command.

import type { HandlerFamily } from './context.js';

type LoopMethod = 'loop.create' | 'loop.list' | 'loop.get' | 'loop.pause' | 'loop.remove' | 'loop.events' | 'loop.start' | 'loop.stop' | 'loop.runs';

export const loopHandlers: HandlerFamily<LoopMethod> = {
  'loop.create': (q, { supervisor: s }) => ({
    loop: s.loops.create({
      ...q,
      max_concurrency: q.max_concurrency ?? 1,
      overlap: q.overlap ?? 'queue',
      timeout_ms: q.timeout_ms ?? null,
      env: q.caller_env ?? null,
    }),
  }),
  'loop.list': (_, { supervisor: s }) => ({ loops: s.loops.list() }),
  'loop.get': ({ name }, { supervisor: s }) => ({ loop: s.loops.show(name) }),
  'loop.pause': (q, { supervisor: s }) => ({ loop: s.loops.setPaused(q.name, q.paused) }),
  'loop.remove': (q, { supervisor: s }) => s.loops.remove(q.name, q.kill_active ?? false),
  'loop.events': (q, { supervisor: s }) => ({ events: s.loops.events(q.name, q.limit ?? 200) }),
  'loop.start': ({ name }, { supervisor: s }) => s.loops.fire(name, 'hand', null),
  'loop.stop': ({ name }, { supervisor: s }) => ({ stopped: s.loops.stopRuns(name) }),
  'loop.runs': (q, { supervisor: s }) => ({ runs: s.loops.runs(q.name, q.limit ?? 100) }),
};
