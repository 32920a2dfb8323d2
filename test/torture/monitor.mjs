// An independent monitor for the chaos test: it reads /proc, never the
// journal, and records the most agent processes it ever saw alive at once,
// in total and per provider and workload. Usage:
//   node monitor.mjs MARKER OUT.json [MARKER2]
// Agents are processes whose argv holds MARKER (the agent script's path) and
// not "orcr-wrap" (the wrapper and its subshell carry the argv too). The agent
// script's arguments are: PROVIDER WORKLOAD ... MARKER2's agents (a stand-in
// whose argv a resume rewrites) say theirs in ORCR_CHAOS="PROVIDER WORKLOAD"
// in their environment. A run is counted once however
// many processes it has (a shell forking `sleep` briefly shows two with the
// agent's argv): by the ORCR_RUN in its environment.
import fs from 'node:fs';

const [marker, outFile, marker2] = process.argv.slice(2);
const max = { global: 0 };
let samples = 0;
let live = {};
let worst = null;

/** Still alive, and still the agent (not exec'd into something else since). */
function isLive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') return false;
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.includes(marker) || (marker2 !== undefined && argv.includes(marker2));
  } catch {
    return false;
  }
}

function sample() {
  const seen = {};
  const found = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    let argv;
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const i = argv.indexOf(marker);
    const second = i < 0 && marker2 !== undefined && argv.includes(marker2);
    if ((i < 0 && !second) || argv.includes('orcr-wrap')) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
    } catch {
      continue;
    }
    // A process caught mid-exec (a fork of the agent turning into `sleep`)
    // can show the agent's argv with an empty environment: without its run
    // id it cannot be attributed, and its parent already counts for the run.
    let run;
    let caps = null;
    try {
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      run = env.find((e) => e.startsWith('ORCR_RUN='))?.slice(9);
      if (second)
        caps =
          env
            .find((e) => e.startsWith('ORCR_CHAOS='))
            ?.slice(11)
            .split(' ') ?? null;
    } catch {
      continue;
    }
    if (!run || (second && !caps)) continue;
    if (seen[run]) continue;
    seen[run] = `${pid} ${argv.slice(Math.max(0, i)).join(' ')}`;
    found.push({ pid, run, provider: second ? caps[0] : argv[i + 1], workload: second ? caps[1] : argv[i + 2] });
  }
  // A scan of /proc takes milliseconds: an agent that exited during it and one
  // that started after it could both be in the list. Only those still alive
  // now, all at once, witness concurrency.
  const counts = { global: 0 };
  const together = found.filter((f) => isLive(f.pid));
  for (const { provider, workload } of together) {
    counts.global++;
    counts[`provider:${provider}`] = (counts[`provider:${provider}`] ?? 0) + 1;
    counts[`workload:${workload}`] = (counts[`workload:${workload}`] ?? 0) + 1;
  }
  // Keep the widest sample, so a violation can be traced to its runs.
  if (counts.global > max.global) worst = { at: Date.now(), runs: together.map((f) => seen[f.run]) };
  for (const [k, v] of Object.entries(counts)) max[k] = Math.max(max[k] ?? 0, v);
  live = seen;
  samples++;
}

function write() {
  fs.writeFileSync(outFile, JSON.stringify({ max, samples, live, worst }));
}

const timer = setInterval(sample, 10);
const flush = setInterval(write, 500);
process.on('SIGTERM', () => {
  clearInterval(timer);
  clearInterval(flush);
  sample();
  write();
  process.exit(0);
});
