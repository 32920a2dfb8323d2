// The loop methods: durable schedules for a command.

import type { HandlerFamily } from './context.js';

type LoopMethod = 'loop.create' | 'loop.list' | 'loop.get' | 'loop.pause' | 'loop.remove' | 'loop.events' | 'loop.start' | 'loop.stop' | 'loop.runs';

export const loopHandlers: HandlerFamily<LoopMethod> = {
  'loop.create': (q, { loops }) => ({
    loop: loops.create({
      ...q,
      max_concurrency: q.max_concurrency ?? 1,
      overlap: q.overlap ?? 'queue',
      timeout_ms: q.timeout_ms ?? null,
      env: q.caller_env ?? null,
    }),
  }),
  'loop.list': (_, { loops }) => ({ loops: loops.list() }),
  'loop.get': ({ name }, { loops }) => ({ loop: loops.show(name) }),
  'loop.pause': (q, { loops }) => ({ loop: loops.setPaused(q.name, q.paused) }),
  'loop.remove': (q, { loops }) => loops.remove(q.name, q.kill_active ?? false),
  'loop.events': (q, { loops }) => ({ events: loops.events(q.name, q.limit ?? 200) }),
  'loop.start': ({ name }, { loops }) => loops.fire(name, 'hand', null),
  'loop.stop': ({ name }, { loops }) => ({ stopped: loops.stopRuns(name) }),
  'loop.runs': (q, { loops }) => ({ runs: loops.runs(q.name, q.limit ?? 100) }),
};
