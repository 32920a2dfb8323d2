// `npm run torture -- --minutes N [--seed S]`: the chaos driver for longer,
// printing the same summary table as the short form in `npm test`.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

let values;
try {
  ({ values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, seed: { type: 'string' } }, strict: true }));
} catch (e) {
  console.error(`torture: ${e.message}\nusage: npm run torture -- --minutes N [--seed S]`);
  process.exit(2);
}
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes <= 0) {
  console.error('torture: --minutes must be a positive number');
  process.exit(2);
}
const env = { ...process.env, ORCR_TORTURE_SECONDS: String(Math.round(minutes * 60)) };
if (values.seed) env.ORCR_TORTURE_SEED = values.seed;
const r = spawnSync('npx', ['vitest', 'run', '--config', 'test/vitest.config.ts', 'test/torture/chaos.test.ts'], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
