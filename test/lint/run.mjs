// npm run lint: package.json's lint:* scripts (the compiler over src and tests,
// eslint's type-aware rules, the formatting, knip), side by side as many at
// once as there are cores, in the order listed (the longest first), each one's
// output printed whole when it fails. Fails when any fails. Each is a process
// of its own on one core (about 95 s of CPU in all, eslint ~48 s of it), so on
// two cores the lint takes about as long as eslint alone, not the four in a row.
//
//   node test/lint/run.mjs     (npm run lint)
//   npm run lint:eslint        one of them alone

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
const checks = Object.keys(scripts).filter((name) => name.startsWith('lint:'));
const env = { ...process.env, PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}` };

/** Run one script through the shell, as npm would, its output kept for the end. */
function run(name) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(scripts[name], { cwd: root, env, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (err) => out.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const ok = code === 0;
      const how = ok ? 'passed' : signal !== null ? `killed by ${signal}` : `failed (exit ${code})`;
      process.stdout.write(`${ok ? '✓' : '✗'} npm run ${name}: ${how} in ${seconds} s\n`);
      const text = Buffer.concat(out).toString('utf8').trimEnd();
      if (!ok && text !== '') process.stdout.write(`${text}\n\n`);
      resolve(ok);
    });
  });
}

const queue = [...checks];
let failed = 0;
async function worker() {
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) if (!(await run(name))) failed++;
}
const started = performance.now();
await Promise.all(Array.from({ length: Math.min(os.availableParallelism(), checks.length) }, worker));
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(failed === 0 ? `lint: all ${checks.length} passed in ${seconds} s\n` : `lint: ${failed} of ${checks.length} failed (${seconds} s)\n`);
process.exitCode = failed === 0 ? 0 : 1;
