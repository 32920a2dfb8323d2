#!/usr/bin/env node
// `npm run agents:install`: install the real agent CLIs (Claude Code, Codex,
// Gemini CLI) at pinned versions into a cache OUTSIDE this package's
// dependencies, for the integration suite in test/real/. They are large
// (hundreds of MB), so plain `npm install` never fetches them.
//
// Cache: ${ORCR_AGENTS_CACHE:-$HOME/.cache/orcr-agents}. Idempotent: versions
// already present are kept and nothing is fetched. Everything comes from the
// npm registry: Claude Code and Codex ship their native binaries inside
// platform packages (optional dependencies), so no other host is contacted.
//
// Pins: the current release of each. orcr itself needs Node 22+, as Claude
// Code has since 2.1.198 (`engines: node >=22`), so the CLIs run on the Node
// that runs orcr. Move a pin on purpose, then run this suite: a new release
// often changes what the CLI writes or asks of the model server.
//
// Plain JS (no build step): imported by test/real/*.test.ts for the pins and
// the binary paths, and run directly as the installer.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** name → { version, bin (path inside the package) } */
export const AGENTS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
};

export function cacheDir() {
  return process.env.ORCR_AGENTS_CACHE || path.join(os.homedir(), '.cache', 'orcr-agents');
}

/** Installed version of a package in the cache, or null. */
export function installedVersion(pkg, dir = cacheDir()) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version ?? null;
  } catch {
    return null;
  }
}

/** Absolute path of an agent's executable in the cache (it may not exist). */
export function agentBin(name, dir = cacheDir()) {
  return path.join(dir, 'node_modules', '.bin', AGENTS[name].bin);
}

/** Is this agent installed at its pinned version, with a runnable executable? */
export function isInstalled(name, dir = cacheDir()) {
  const a = AGENTS[name];
  if (installedVersion(a.pkg, dir) !== a.version) return false;
  try {
    fs.accessSync(agentBin(name, dir), fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function main() {
  const dir = cacheDir();
  const started = Date.now();
  fs.mkdirSync(dir, { recursive: true });
  // A package.json of its own keeps npm from walking up into a parent project.
  const manifest = path.join(dir, 'package.json');
  if (!fs.existsSync(manifest)) {
    fs.writeFileSync(manifest, JSON.stringify({ name: 'orcr-agents-cache', private: true, description: 'real agent CLIs for orcr test/real' }, null, 2) + '\n');
  }
  const missing = [];
  for (const [name, a] of Object.entries(AGENTS)) {
    const have = installedVersion(a.pkg, dir);
    if (have === a.version && isInstalled(name, dir)) console.log(`agents:install: ${a.pkg}@${a.version} already installed`);
    else {
      console.log(`agents:install: ${a.pkg}@${a.version} ${have ? `replaces ${have}` : 'is missing'}`);
      missing.push(name);
    }
  }
  if (missing.length > 0) {
    const specs = missing.map((n) => `${AGENTS[n].pkg}@${AGENTS[n].version}`);
    console.log(`agents:install: npm install --prefix ${dir} ${specs.join(' ')}`);
    const r = spawnSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--save-exact', '--loglevel=error', ...specs], {
      stdio: 'inherit',
      env: { ...process.env, npm_config_engine_strict: 'false' },
    });
    if (r.status !== 0) {
      console.error(`agents:install: npm install failed (exit ${r.status ?? r.signal})`);
      process.exit(1);
    }
  }
  let ok = true;
  for (const [name, a] of Object.entries(AGENTS)) {
    if (!isInstalled(name, dir)) {
      console.error(`agents:install: ${a.pkg}@${a.version} is still not usable at ${agentBin(name, dir)}`);
      ok = false;
      continue;
    }
    const v = spawnSync(agentBin(name, dir), ['--version'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, DISABLE_AUTOUPDATER: '1' } });
    const said = (v.stdout || v.stderr || '').trim().split('\n').pop();
    if (v.status !== 0) {
      console.error(`agents:install: ${name} --version failed (exit ${v.status ?? v.signal}): ${said}`);
      ok = false;
    } else console.log(`agents:install: ${name} → ${said}`);
  }
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`agents:install: ${missing.length > 0 ? `installed ${missing.join(', ')}` : 'nothing to do'} in ${secs}s (cache ${dir})`);
  if (!ok) process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
