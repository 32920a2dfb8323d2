// A line's styled parts painted into one string of escape sequences, once,
// when what the line shows changes. Drawn as nested <Text>s (one per colour),
// Ink would paint them again on every frame: it walks each nested node,
// calls chalk for each, and joins the result, for every line on the screen,
// whether or not the line changed. A pre-painted string is one <Text> with
// one child and no style of its own, which Ink copies as it is.
//
// chalk is the same instance Ink paints with (the same colour level from the
// same terminal and environment), so a painted line looks exactly as the
// nested <Text>s did.

import chalk from 'chalk';
import type { TokenStyle } from './theme.js';

export interface PaintStyle extends TokenStyle {
  inverse?: boolean;
}

export interface LineStyle {
  inverse?: boolean;
  dim?: boolean;
  bold?: boolean;
}

/** One colour as Ink's colorize() applies it: a chalk name (`red`, `blueBright`) or `#rrggbb`. */
function colour(text: string, color: string): string {
  if (color.startsWith('#')) return chalk.hex(color)(text);
  const named = (chalk as unknown as Record<string, unknown>)[color];
  return typeof named === 'function' ? (named as (t: string) => string)(text) : text;
}

/** A text in a style, in the order Ink's <Text> applies it: dim, colour, bold, inverse. */
function paint(text: string, style: PaintStyle): string {
  let out = text;
  if (style.dimColor) out = chalk.dim(out);
  if (style.color) out = colour(out, style.color);
  if (style.bold) out = chalk.bold(out);
  if (style.inverse) out = chalk.inverse(out);
  return out;
}

/** Parts painted one after another, then the line's own style over all of them (as an outer <Text> would). */
export function paintLine(parts: readonly { text: string; style: PaintStyle }[], line: LineStyle = {}): string {
  let out = '';
  for (const p of parts) out += paint(p.text, p.style);
  return paint(out, { dimColor: line.dim, bold: line.bold, inverse: line.inverse });
}
