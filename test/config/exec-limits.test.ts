// What execve takes, as plain functions: ARG_MAX from the stack limit, and
// which string (or the total) a command and environment would be refused for.

import { describe, expect, it } from 'vitest';
import { argMax, execBytes, execProblem, LAUNCH_RESERVE, MAX_ARG_STRLEN } from '../../src/config/exec-limits.js';

const limits = (stack: string) =>
  `Limit                     Soft Limit           Hard Limit           Units\nMax stack size            ${stack}              unlimited            bytes\n`;

describe('argMax', () => {
  it('is a quarter of the stack limit, at least 128 KiB and at most 6 MiB, as the kernel reckons it', () => {
    expect(argMax(limits('8388608'))).toBe(2 * 1024 * 1024);
    expect(argMax(limits('65536'))).toBe(128 * 1024);
    expect(argMax(limits('unlimited'))).toBe(6 * 1024 * 1024);
    expect(argMax(limits('1073741824'))).toBe(6 * 1024 * 1024);
    expect(argMax('nonsense')).toBe(2 * 1024 * 1024);
    expect(argMax()).toBeGreaterThanOrEqual(128 * 1024);
  });
});

describe('execProblem', () => {
  const max = 2 * 1024 * 1024;
  it('names the first string over MAX_ARG_STRLEN (its NUL counted), then the total', () => {
    const edge = 'a'.repeat(MAX_ARG_STRLEN - 1);
    expect(execProblem(['x', edge], {}, max)).toBeNull();
    expect(execProblem(['x', edge + 'a'], {}, max)).toMatch(/^the command has an argument \(2\) of 128 KiB: /);
    expect(execProblem(['x'], { K: 'v'.repeat(MAX_ARG_STRLEN - 2) }, max)).toMatch(/^the environment has a variable "K" of 128 KiB: /);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`V${i}`, 'v'.repeat(100 * 1024)]));
    expect(execBytes([], many)).toBeGreaterThan(max - LAUNCH_RESERVE);
    expect(execProblem(['x'], many, max, { argv: '"command"', env: '"env"' })).toMatch(
      /^"command" and "env" come to 2.1 MiB, and a program here can be started with at most 2032 KiB of them \(ARG_MAX 2 MiB/,
    );
  });
});
