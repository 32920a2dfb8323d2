import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import React from 'react';
import chalk from 'chalk';
import { Box, Text, renderToString } from 'ink';
import { Line, ThemeContext } from '../../components/context.js';
import type { Theme } from '../../src/tui/view/theme.js';
import type { Span } from '../../src/tui/view/columns.js';
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

describe('a <Line>', () => {
  const theme: Theme = { name: 't', description: '', colors: { 'status.working': 'green', 'text.accent': '#ff8800', 'meter.ok': 'blueBright' } };
  const spans: Span[] = [
    { text: '● ', token: 'status.working' },
    { text: '世界-agent ', token: 'text.accent' },
    { text: 'working ', token: 'text.muted' },
    { text: '█▍ 12s', token: 'meter.ok', inverse: true },
  ];
  const boxed = (el: React.JSX.Element): string =>
    renderToString(
      <Box flexDirection="column" width={40}>
        {el}
        <Text>next line</Text>
      </Box>,
      { columns: 80 },
    );

  it('draws what nested <Text>s drew, wide characters in their columns, the next line below it', () => {
    const old = boxed(
      <Text inverse bold>
        <Text color="green">● </Text>
        <Text color="#ff8800">世界-agent </Text>
        <Text dimColor>working </Text>
        <Text color="blueBright" inverse>
          █▍ 12s
        </Text>
      </Text>,
    );
    const drawn = boxed(
      <ThemeContext.Provider value={theme}>
        <Line spans={spans} width={40} inverse bold />
      </ThemeContext.Provider>,
    );
    expect(drawn).toContain('\x1b[');
    expect(drawn).toBe(old);
  });

  it('cuts a line to its width with an ellipsis, counting a wide character as two columns', () => {
    chalk.level = 0;
    try {
      const drawn = renderToString(
        <ThemeContext.Provider value={theme}>
          <Line spans={spans} width={9} />
        </ThemeContext.Provider>,
        { columns: 80 },
      );
      expect(drawn).toBe('● 世界-a…');
    } finally {
      chalk.level = 3;
    }
  });
});
