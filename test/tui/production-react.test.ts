// React (through Ink's reconciler) picks its development or production build
// from NODE_ENV as it loads, and the development one costs the TUI several
// times the CPU per frame. orcr-tui sets NODE_ENV before it imports ink and
// react, dynamically; a static import of anything that reaches them runs
// before that line and loads the development build whatever the user's
// NODE_ENV. Here: the built entry's static imports, followed through orcr's
// own files, never reach ink or react. (Ink 7's take-over hook, imported
// statically, once made the TUI run on React's development build: 18–19% of
// a core at bench item 7's load instead of 11–12%.)

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/harness.js';

const ENTRY = path.join(ROOT, 'dist/src/tui/main.js');
const STATIC = /^\s*import\s+(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

/** Bare modules reached by static imports from `file`, following orcr's own relative imports; with the chain to each. */
function staticReach(file: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const seen = new Set<string>();
  const walk = (f: string, chain: string[]): void => {
    if (seen.has(f)) return;
    seen.add(f);
    for (const [, spec] of fs.readFileSync(f, 'utf8').matchAll(STATIC)) {
      if (spec!.startsWith('.')) walk(path.resolve(path.dirname(f), spec!), [...chain, path.relative(ROOT, f)]);
      else if (!found.has(spec!)) found.set(spec!, [...chain, path.relative(ROOT, f)]);
    }
  };
  walk(file, []);
  return found;
}

describe('orcr-tui loads React for production', () => {
  it('its entry reaches neither ink nor react through static imports (they would load before NODE_ENV is set)', () => {
    const reach = staticReach(ENTRY);
    expect(reach.size, 'the walk found no imports at all').toBeGreaterThan(3);
    for (const bare of ['ink', 'react', 'react-reconciler', 'ink-testing-library']) {
      expect(reach.has(bare), `${bare} is imported statically via ${reach.get(bare)?.join(' → ')}`).toBe(false);
    }
  });
});
