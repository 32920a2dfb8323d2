// Telling the person at the terminal that something needs them: a bell, or a
// desktop notification (OSC 9) where the terminal is known to show one.
// Never passes a control character from a run's text to the terminal.

import type { Notable } from '../state/runs.js';
import { safeLine } from '../../text/terminal-text.js';

/** Terminals that turn OSC 9 into a desktop notification. */
const OSC9_TERMINALS = new Set(['iTerm.app', 'WezTerm', 'ghostty', 'vscode', 'WarpTerminal']);

function supportsOsc9(env: NodeJS.ProcessEnv): boolean {
  if (env.TERM_PROGRAM && OSC9_TERMINALS.has(env.TERM_PROGRAM)) return true;
  return (env.TERM ?? '').includes('kitty') || env.KITTY_WINDOW_ID !== undefined;
}

/** One line for the footer about what just happened ("build-3 blocked (limit) · 2 runs ended"). */
export function summarize(notable: readonly Notable[]): string {
  const blocked = notable.filter((n) => n.kind === 'blocked');
  const ended = notable.filter((n) => n.kind === 'ended');
  const parts: string[] = [];
  if (blocked.length === 1) parts.push(`${blocked[0]!.name} blocked (${blocked[0]!.detail})`);
  else if (blocked.length > 1)
    parts.push(
      `${blocked.length} runs blocked: ${blocked
        .slice(0, 3)
        .map((n) => n.name)
        .join(', ')}${blocked.length > 3 ? ', …' : ''}`,
    );
  if (ended.length === 1) parts.push(`${ended[0]!.name} ended: ${ended[0]!.detail}`);
  else if (ended.length > 1)
    parts.push(
      `${ended.length} runs ended: ${ended
        .slice(0, 3)
        .map((n) => `${n.name} ${n.detail}`)
        .join(', ')}${ended.length > 3 ? ', …' : ''}`,
    );
  return parts.join(' · ');
}

/** The bytes that notify: OSC 9 with the text where supported, else a bell. Never contains control characters from the text. */
export function notificationBytes(text: string, env: NodeJS.ProcessEnv): string {
  if (supportsOsc9(env)) return `\x1b]9;orcr: ${safeLine(text).slice(0, 200)}\x07`;
  return '\x07';
}
