// Plain text agents (aider and anything without an event stream): every line
// is output, and the first line of any output is the sign of life.

import { PLAIN_PROTOCOL } from '../core/types.js';
import { defineProtocol } from './protocol.js';
import type { Adapter, Signal } from './signals.js';
import { guarded } from './util.js';

/** Never detected: what a run's output reads as when no protocol claims it (and an unknown name, from an old journal row). */
export const plain = defineProtocol({
  name: PLAIN_PROTOCOL,
  adapter: () => createPlainAdapter(),
  reportsCost: false,
});

export function createPlainAdapter(): Adapter {
  let alive = false;
  return guarded({
    line(line: string): Signal[] {
      if (alive) return [{ kind: 'output', line }];
      alive = true;
      return [{ kind: 'alive' }, { kind: 'output', line }];
    },
  });
}
