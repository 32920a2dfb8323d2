// Which SDK function makes each socket method's call: a Record over the
// method table, so a method added there without an SDK function does not
// compile, and a test (test/sdk/coverage.test.ts) checks each path is a
// function of a connected Orcr. `hello` is what connect() says first.

import type { Method } from '../client/methods.js';

export const SDK_METHODS: Readonly<Record<Method, string>> = {
  hello: 'connect',
  'run.enqueue': 'runMany',
  'run.list': 'list',
  'run.get': 'show',
  'run.kill': 'kill',
  'run.send': 'send',
  'run.wait': 'wait',
  'run.resolve': 'resolve',
  'run.select': 'select',
  'run.takeover': 'takeover',
  'run.rerun': 'rerun',
  'run.diff': 'diff',
  stats: 'stats',
  spend: 'spend',
  'provider.resume': 'providers.resume',
  events: 'events',
  subscribe: 'subscribe',
  'server.status': 'server.status',
  'server.stop': 'server.stop',
  'cluster.status': 'cluster.status',
  'cluster.forget': 'cluster.forget',
  gc: 'gc',
  'worktree.finish': 'worktrees.finish',
  'worktree.prune': 'worktrees.prune',
  'queue.pause': 'queue.pause',
  'loop.create': 'loops.create',
  'loop.list': 'loops.list',
  'loop.get': 'loops.get',
  'loop.pause': 'loops.pause',
  'loop.remove': 'loops.remove',
  'loop.events': 'loops.events',
  'loop.start': 'loops.start',
  'loop.stop': 'loops.stop',
  'loop.runs': 'loops.runs',
};
