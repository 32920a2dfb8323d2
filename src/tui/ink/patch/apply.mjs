#!/usr/bin/env node
// Applies patches/<package>+<version>.patch to the installed package (npm runs
// this at postinstall). It refuses, and fails the install, unless the package
// is exactly that version and every file it touches is byte for byte the one
// the patch was made against (sha256, listed in the patch's preamble); after
// applying, each file must hash to the recorded result. A package already
// patched is left alone. No dependencies: it runs before anything is built.
//
//   node src/tui/ink/patch/apply.mjs           apply (or confirm applied) every patch
//   node src/tui/ink/patch/apply.mjs --check   change nothing; exit 1 unless all are applied
//   node src/tui/ink/patch/apply.mjs --make PRISTINE EDITED OUT.patch
//                                    write a patch (diff -u of every file that
//                                    differs, with its hashes) keeping OUT's preamble

import crypto from 'node:crypto';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// The project root, four folders up (src/tui/ink/patch).
const root = path.resolve(here, '../../../..');
const check = process.argv.includes('--check');

class PatchError extends Error {}

const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');

/** The installed package's folder, found the way Node finds it from the project (hoisting included). */
function packageDir(name) {
  const require = createRequire(path.join(root, 'package.json'));
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj) && JSON.parse(fs.readFileSync(pj, 'utf8')).name === name) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new PatchError(`cannot find ${name}'s package.json above ${require.resolve(name)}`);
    dir = up;
  }
}

/**
 * The patch: its preamble's `sha256 before|after FILE HASH` lines (a new file
 * has no "before"), and per file its unified-diff hunks.
 */
function parse(text, name) {
  const hashes = new Map();
  const files = [];
  let file = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const h = /^sha256 (before|after) (\S+) ([0-9a-f]{64})$/.exec(l);
    if (h && files.length === 0) {
      const e = hashes.get(h[2]) ?? {};
      e[h[1]] = h[3];
      hashes.set(h[2], e);
    } else if (l.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      file = { path: lines[i + 1].slice(4).replace(/^b\//, ''), created: l === '--- /dev/null', hunks: [] };
      files.push(file);
      i++;
    } else if (l.startsWith('@@ ')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(l);
      if (!m || !file) throw new PatchError(`${name}: a hunk header it cannot read: ${l}`);
      const hunk = { oldStart: Number(m[1]), lines: [] };
      file.hunks.push(hunk);
      // The header says how many lines each side has: the body is exactly that long.
      let oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      let newLeft = m[4] === undefined ? 1 : Number(m[4]);
      while (oldLeft > 0 || newLeft > 0) {
        const b = lines[++i];
        if (b === undefined) throw new PatchError(`${name}: a hunk of ${file.path} ends early`);
        const op = b[0];
        if (op === ' ') (oldLeft--, newLeft--);
        else if (op === '-') oldLeft--;
        else if (op === '+') newLeft--;
        else throw new PatchError(`${name}: a hunk of ${file.path} has a line it cannot read: ${b}`);
        hunk.lines.push({ op, text: b.slice(1), eol: true });
        if (lines[i + 1]?.startsWith('\\ No newline at end of file')) {
          hunk.lines[hunk.lines.length - 1].eol = false;
          i++;
        }
      }
    }
  }
  for (const f of files) {
    const e = hashes.get(f.path);
    if (!e?.after || (!f.created && !e.before)) throw new PatchError(`${name}: the preamble has no sha256 before/after for ${f.path}`);
    f.before = e.before ?? null;
    f.after = e.after;
  }
  return files;
}

/** Apply one file's hunks to its text; every context and removed line must be where the hunk says. */
function applyHunks(original, f, name) {
  // Lines with their line ends, so a file without a final newline keeps it so.
  const src = original === '' ? [] : original.match(/[^\n]*\n|[^\n]+$/g);
  const out = [];
  let at = 0; // index into src
  for (const h of f.hunks) {
    const start = Math.max(0, h.oldStart - 1);
    if (start < at) throw new PatchError(`${name}: hunks of ${f.path} overlap`);
    while (at < start) out.push(src[at++]);
    for (const l of h.lines) {
      const whole = l.text + (l.eol ? '\n' : '');
      if (l.op === '+') {
        out.push(whole);
        continue;
      }
      if (src[at] !== whole) throw new PatchError(`${name}: ${f.path} line ${at + 1} is not what the patch expects`);
      if (l.op === ' ') out.push(src[at]);
      at++;
    }
  }
  while (at < src.length) out.push(src[at++]);
  return out.join('');
}

function applyPatch(patchFile) {
  const name = path.basename(patchFile);
  const m = /^(.+)\+(\d+\.\d+\.\d+[^+]*)\.patch$/.exec(name);
  if (!m) throw new PatchError(`${name}: a patch is named <package>+<version>.patch`);
  const [, pkg, version] = m;
  const dir = packageDir(pkg);
  const installed = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  if (installed !== version) {
    throw new PatchError(
      `${pkg} ${installed} is installed, but src/tui/ink/patch/${name} was made for ${version}. ` +
        `Keep "${pkg}": "${version}" in package.json, or port the patch to ${installed} (src/tui/ink/patch/README.md says how).`,
    );
  }
  const files = parse(fs.readFileSync(patchFile, 'utf8'), name);
  const state = files.map((f) => {
    const file = path.join(dir, f.path);
    const buf = fs.existsSync(file) ? fs.readFileSync(file) : null;
    const hash = buf === null ? null : sha256(buf);
    return { f, file, buf, state: hash === f.after ? 'patched' : hash === f.before ? 'pristine' : 'other', hash };
  });
  if (state.every((s) => s.state === 'patched')) return `${pkg} ${version}: patched (src/tui/ink/patch/${name})`;
  if (state.some((s) => s.state === 'other') || state.some((s) => s.state === 'patched')) {
    const word = { pristine: 'as published', patched: 'patched', other: 'neither' };
    const what = state.map((s) => `  ${path.relative(root, s.file)}: ${word[s.state]}${s.state === 'other' ? ` (${s.hash === null ? 'missing' : `sha256 ${s.hash}`})` : ''}`).join('\n');
    throw new PatchError(
      `${pkg} ${version}'s files are not all as published, nor all as src/tui/ink/patch/${name} leaves them:\n${what}\n` +
        `Reinstall it (rm -rf ${path.relative(root, dir)} && npm install).`,
    );
  }
  if (check) throw new PatchError(`${pkg} ${version} is not patched: run npm install (or node src/tui/ink/patch/apply.mjs)`);
  // Every result is made and checked before any file is written.
  const results = state.map((s) => {
    const text = applyHunks(s.buf === null ? '' : s.buf.toString('utf8'), s.f, name);
    const got = sha256(Buffer.from(text, 'utf8'));
    if (got !== s.f.after) throw new PatchError(`${name}: ${s.f.path} came out as sha256 ${got}, not the recorded ${s.f.after}`);
    return { file: s.file, text };
  });
  for (const r of results) {
    const tmp = `${r.file}.orcr-patch-${process.pid}`;
    fs.writeFileSync(tmp, r.text);
    fs.renameSync(tmp, r.file);
  }
  return `${pkg} ${version}: applied src/tui/ink/patch/${name} (${results.length} files)`;
}

/** Every file under `dir`, as paths relative to it. */
function walk(dir, rel = '') {
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.posix.join(rel, e.name);
    if (e.isDirectory()) out.push(...walk(dir, r));
    else out.push(r);
  }
  return out;
}

/** `--make`: the patch that turns PRISTINE (an unpacked package) into EDITED, with the preamble OUT already has. */
function make(pristine, edited, out) {
  const old = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
  const at = old.search(/^sha256 (before|after) /m);
  const preamble = at >= 0 ? old.slice(0, at) : old.length > 0 ? old : 'What this patch changes, and why.\n\n';
  const hashes = [];
  const diffs = [];
  for (const rel of [...new Set([...walk(pristine), ...walk(edited)])].sort()) {
    const a = path.join(pristine, rel);
    const b = path.join(edited, rel);
    if (!fs.existsSync(b)) throw new PatchError(`--make: ${rel} is gone from ${edited}: a patch here only changes and adds files`);
    const after = fs.readFileSync(b);
    const before = fs.existsSync(a) ? fs.readFileSync(a) : null;
    if (before !== null && before.equals(after)) continue;
    if (before !== null) hashes.push(`sha256 before ${rel} ${sha256(before)}`);
    hashes.push(`sha256 after ${rel} ${sha256(after)}`);
    const d = spawnSync('diff', ['-u', '--label', before === null ? '/dev/null' : `a/${rel}`, '--label', `b/${rel}`, before === null ? '/dev/null' : a, b], { encoding: 'utf8' });
    if (d.status !== 1) throw new PatchError(`--make: diff failed on ${rel}: ${d.stderr}`);
    diffs.push(d.stdout);
  }
  fs.writeFileSync(out, `${preamble}${hashes.join('\n')}\n\n${diffs.join('')}`);
  return `wrote ${out}: ${hashes.filter((h) => h.startsWith('sha256 after')).length} files`;
}

try {
  const m = process.argv.indexOf('--make');
  if (m >= 0) {
    const [pristine, edited, out] = process.argv.slice(m + 1, m + 4);
    if (!out) throw new PatchError('--make needs PRISTINE EDITED OUT.patch');
    process.stdout.write(`${make(pristine, edited, out)}\n`);
    process.exit(0);
  }
  const patches = fs
    .readdirSync(here)
    .filter((f) => f.endsWith('.patch'))
    .sort();
  for (const p of patches) {
    const said = applyPatch(path.join(here, p));
    if (!check) process.stdout.write(`${said}\n`);
  }
} catch (e) {
  const msg = e instanceof PatchError ? e.message : (e.stack ?? String(e));
  process.stderr.write(`\nsrc/tui/ink/patch/apply.mjs: ${msg}\n\n`);
  process.exit(1);
}
