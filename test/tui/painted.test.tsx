import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import React from 'react';
import chalk from 'chalk';
import { Text, renderToString } from 'ink';
import { paintLine, type LineStyle, type PaintStyle } from '../../src/tui/view/painted.js';

// The suite runs with FORCE_COLOR=0; here chalk (the instance Ink paints with) paints in truecolor.
let level: typeof chalk.level;
beforeAll(() => {
  level = chalk.level;
  chalk.level = 3;
});
afterAll(() => {
  chalk.level = level;
});

const parts: { text: string; style: PaintStyle }[] = [
  { text: '● ', style: { color: 'green' } },
  { text: 'worker-1 ', style: { color: '#ff8800', bold: true } },
  { text: '   ', style: {} },
  { text: 'queued', style: { dimColor: true } },
  { text: ' 3m12s ', style: { color: 'blueBright', inverse: true } },
  { text: '█▍', style: { color: 'yellow', dimColor: true, bold: true } },
];

/** The same parts as nested <Text>s, the way the TUI drew them before. */
function nested(line: LineStyle): string {
  return renderToString(
    <Text inverse={line.inverse} dimColor={line.dim} bold={line.bold}>
      {parts.map((p, i) => (
        <Text key={i} {...p.style}>
          {p.text}
        </Text>
      ))}
    </Text>,
    { columns: 200 },
  );
}

describe('a painted line', () => {
  const lines: LineStyle[] = [{}, { inverse: true }, { dim: true }, { bold: true }, { inverse: true, dim: true, bold: true }];
  for (const line of lines) {
    it(`looks exactly as nested Ink <Text>s do (${JSON.stringify(line)})`, () => {
      const painted = paintLine(parts, line);
      expect(painted).toContain('\x1b['); // colour is on, so the comparison means something
      expect(renderToString(<Text>{painted}</Text>, { columns: 200 })).toBe(nested(line));
    });
  }

  it('leaves text alone without colour', () => {
    chalk.level = 0;
    try {
      expect(paintLine(parts, { inverse: true, bold: true })).toBe(parts.map((p) => p.text).join(''));
    } finally {
      chalk.level = 3;
    }
  });
});
