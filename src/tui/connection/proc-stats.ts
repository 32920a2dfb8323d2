// CPU and memory of a run's process group, from /proc (Linux). The run's pid
// is its group leader (the wrapper); the agent and its children share the
// group. CPU is the delta of utime+stime between two samples. Reads /proc
// only: it never signals a process.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export interface ProcStat {
  pid: number;
  pgrp: number;
  /** utime + stime, in clock ticks */
  ticks: number;
  /** resident set, in pages */
  rssPages: number;
  /** field 22: start time in ticks since boot, to tell a reused pid apart */
  start: string;
}

/**
 * Parse /proc/PID/stat. The command name (field 2) is in parentheses and may
 * itself contain spaces and parentheses, so split after the last ')'.
 */
export function parseStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // Fields from 3 on: state(3) ppid(4) pgrp(5) … utime(14) stime(15) … starttime(22) vsize(23) rss(24)
  const f = text.slice(close + 2).split(' ');
  const at = (n: number): string => f[n - 3] ?? '';
  const pgrp = Number(at(5));
  const ticks = Number(at(14)) + Number(at(15));
  const rssPages = Number(at(24));
  if (!Number.isFinite(pid) || !Number.isFinite(pgrp) || !Number.isFinite(ticks)) return null;
  return { pid, pgrp, ticks, rssPages: Number.isFinite(rssPages) ? rssPages : 0, start: at(22) };
}

export interface GroupSample {
  at: number;
  pids: number[];
  ticks: number;
  rssBytes: number;
}

let sysconf: { clkTck: number; pageSize: number } | null = null;

/** CLK_TCK and the page size (getconf), with the usual Linux values if getconf is missing. */
function systemConstants(): { clkTck: number; pageSize: number } {
  if (sysconf) return sysconf;
  const ask = (name: string, dflt: number): number => {
    try {
      const n = Number(execFileSync('getconf', [name], { encoding: 'utf8', timeout: 1000, stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      return Number.isFinite(n) && n > 0 ? n : dflt;
    } catch {
      return dflt;
    }
  };
  sysconf = { clkTck: ask('CLK_TCK', 100), pageSize: ask('PAGESIZE', 4096) };
  return sysconf;
}

/** Sum the group led by `pgid`: every process whose pgrp is pgid. Null when the group is gone or /proc is unreadable. */
export function sampleGroup(pgid: number, now: number, procDir = '/proc'): GroupSample | null {
  let entries: string[];
  try {
    entries = fs.readdirSync(procDir);
  } catch {
    return null;
  }
  const { pageSize } = systemConstants();
  const pids: number[] = [];
  let ticks = 0;
  let rss = 0;
  for (const e of entries) {
    if (e.charCodeAt(0) < 48 || e.charCodeAt(0) > 57) continue;
    let text: string;
    try {
      text = fs.readFileSync(`${procDir}/${e}/stat`, 'utf8');
    } catch {
      continue; // exited between readdir and read
    }
    const st = parseStat(text);
    if (!st || st.pgrp !== pgid) continue;
    pids.push(st.pid);
    ticks += st.ticks;
    rss += st.rssPages * pageSize;
  }
  if (pids.length === 0) return null;
  return { at: now, pids: pids.sort((a, b) => a - b), ticks, rssBytes: rss };
}

/**
 * CPU use between two samples, in percent of one core (200% = two cores busy).
 * Null without a usable previous sample. Ticks of processes that exited in
 * between are lost from the sum; a negative delta is clamped to zero.
 */
export function cpuPercent(prev: GroupSample | null, next: GroupSample, clkTck = systemConstants().clkTck): number | null {
  if (!prev || next.at <= prev.at) return null;
  const dTicks = Math.max(0, next.ticks - prev.ticks);
  const seconds = (next.at - prev.at) / 1000;
  return (dTicks / clkTck / seconds) * 100;
}
