// `orcr run`'s flags, declared once: the run-args parser (the CLI's and the
// TUI's `n`) reads them, and so does the CLI's shell completion. Kept apart
// from run-args.ts so that the completion loads no run-spec schema.

import type { CeilingFlag } from '../core/limits.js';
import { LOOP_ACTIONS, STALL_ACTIONS } from '../core/types.js';
import type { FlagDecls } from './flag-decl.js';

export const RUN_FLAGS = {
  provider: { type: 'string', short: 'a' },
  name: { type: 'string', short: 'n' },
  workload: { type: 'string', short: 'w' },
  prompt: { type: 'string', short: 'p' },
  protocol: { type: 'string', value: 'protocol' },
  'max-turns': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-cost': { type: 'string' },
  timeout: { type: 'string' },
  loop: { type: 'string', value: LOOP_ACTIONS },
  'turn-timeout': { type: 'string' },
  'on-stall': { type: 'string', value: STALL_ACTIONS },
  retries: { type: 'string' },
  'on-limit': { type: 'string', value: ['continue', 'end'] },
  'max-continues': { type: 'string' },
  interactive: { type: 'boolean' },
  detach: { type: 'boolean' },
  after: { type: 'string', multiple: true, value: 'run' },
  'after-any': { type: 'boolean' },
  allow: { type: 'string', multiple: true, meta: 'RULE' },
  deny: { type: 'string', multiple: true, meta: 'RULE' },
  'idle-after': { type: 'string' },
  cwd: { type: 'string', value: 'dir' },
  env: { type: 'string', short: 'e', multiple: true },
  'env-from': { type: 'string', multiple: true, value: 'file' },
  json: { type: 'boolean' },
  from: { type: 'string', value: 'file' },
  worktree: { type: 'boolean' },
  base: { type: 'string' },
} as const satisfies FlagDecls;

// Each ceiling's flag (core/limits.ts) is declared above, in the order help and completion list them: a ceiling without one does not compile.
RUN_FLAGS satisfies Record<CeilingFlag, { type: 'string' }>;
