// Plain text agents (aider and anything without an event stream): every line
// is output, and the first line of any output is the sign of life.

import type { Adapter, Signal } from './signals.js';
import { guarded } from './util.js';

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
