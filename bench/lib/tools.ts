// The tools orcr is compared with, installed at bench time where missing:
// GNU parallel through apt-get (when root and apt-get are there), pm2 into a
// cache directory with `npm install --prefix` (never a dependency of orcr).

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { which } from './proc.js';

const PM2_VERSION = '7.0.4';

export type Tool = { ok: true; path: string; version: string } | { ok: false; reason: string };

function isGnuParallel(p: string): string | null {
  try {
    const v = execFileSync(p, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    const first = v.split('\n')[0] ?? '';
    return first.includes('GNU parallel') ? first.trim() : null;
  } catch {
    return null;
  }
}

const HOW_PARALLEL = 'install GNU parallel (Debian/Ubuntu: apt-get install parallel; macOS: brew install parallel) and run the bench again';

/** GNU parallel, installed with apt-get when missing and possible (not in the quick form). */
export function ensureParallel(install: boolean, log: (m: string) => void): Tool {
  let p = which('parallel');
  let v = p ? isGnuParallel(p) : null;
  if (v) return { ok: true, path: p!, version: v };
  if (!install)
    return {
      ok: false,
      reason: p ? `${p} is not GNU parallel; ${HOW_PARALLEL}` : `GNU parallel not installed (the quick form installs nothing); ${HOW_PARALLEL}`,
    };
  const apt = which('apt-get');
  if (!apt || process.getuid?.() !== 0) return { ok: false, reason: `GNU parallel not installed and apt-get as root is not available here; ${HOW_PARALLEL}` };
  log('installing GNU parallel with apt-get…');
  const quiet = { stdio: 'ignore' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 180_000 };
  let r = spawnSync(apt, ['install', '-y', '-qq', 'parallel'], quiet);
  if (r.status !== 0) {
    spawnSync(apt, ['update', '-qq'], quiet);
    r = spawnSync(apt, ['install', '-y', '-qq', 'parallel'], quiet);
  }
  p = which('parallel');
  v = p ? isGnuParallel(p) : null;
  if (v) return { ok: true, path: p!, version: v };
  return { ok: false, reason: `apt-get install parallel failed (exit ${r.status}); ${HOW_PARALLEL}` };
}

function benchCache(): string {
  const c = process.env.ORCR_BENCH_CACHE;
  return c && c.trim() !== '' ? path.resolve(c) : path.join(os.homedir(), '.cache', 'orcr-bench');
}

/** pm2 in the bench cache, installed with `npm install --prefix` when missing (not in the quick form). */
export function ensurePm2(install: boolean, log: (m: string) => void): Tool {
  const cache = benchCache();
  const bin = path.join(cache, 'node_modules', 'pm2', 'bin', 'pm2');
  const version = (): string | null => {
    try {
      return (JSON.parse(fs.readFileSync(path.join(cache, 'node_modules', 'pm2', 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return null;
    }
  };
  let v = version();
  if (v && fs.existsSync(bin)) return { ok: true, path: bin, version: `pm2 ${v}` };
  const how = `run: npm install --prefix ${cache} pm2@${PM2_VERSION}`;
  if (!install) return { ok: false, reason: `pm2 not in ${cache} (the quick form installs nothing); ${how}` };
  log(`installing pm2@${PM2_VERSION} into ${cache}…`);
  fs.mkdirSync(cache, { recursive: true });
  const npm = which('npm');
  if (!npm) return { ok: false, reason: `npm not found; ${how}` };
  const r = spawnSync(npm, ['install', '--prefix', cache, `pm2@${PM2_VERSION}`, '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: 300_000,
  });
  v = version();
  if (r.status === 0 && v && fs.existsSync(bin)) return { ok: true, path: bin, version: `pm2 ${v}` };
  return { ok: false, reason: `npm install of pm2 failed (${(r.stderr ?? '').trim().split('\n').pop() ?? r.status}); ${how}` };
}
