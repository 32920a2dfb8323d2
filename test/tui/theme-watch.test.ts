// The themes folder's watch, with real files and the real chokidar: a theme
// saved in the watch's first moments (before its first scan is done) is not
// lost in that scan.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { watchThemes, type ThemeWatch } from '../../src/tui/connection/theme-watch.js';
import { until } from '../support/harness.js';

let watch: ThemeWatch | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await watch?.close();
  watch = null;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

it('a theme saved before the first scan ends is read again once the watch is ready', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-themes-'));
  dirs.push(dir);
  let calls = 0;
  watch = watchThemes(dir, () => calls++);
  // Synchronously after the call: chokidar's scan has not run yet.
  fs.writeFileSync(path.join(dir, 'mine.json'), '{"name":"mine"}');
  await until(() => calls > 0, 'the early save to be reported');
  expect(calls).toBe(1);
});
