// The bottom lines: wait banners (if any), then a prompt, a confirmation or
// the latest notice/error, then the keys that apply now.

import React from 'react';
import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { Line, useTui } from './context.js';
import type { Span } from '../src/tui/view/columns.js';
import { fitGroups, type Group } from '../src/tui/view/fit.js';
import { textWidth } from '../src/tui/view/format.js';
import { contextOf, fitHints, footerHints } from '../src/tui/view/key-hints.js';
import type { Prompt, WaitBanner } from '../src/tui/state/store.js';

export interface FooterProps {
  readonly width: number;
}

const PROMPT_LABEL: Record<Prompt['kind'], string> = { filter: 'filter', send: 'send', new: 'new run', search: 'search' };
const PROMPT_PLACEHOLDER: Record<Prompt['kind'], string> = {
  filter: 'text to match in name, id, provider, workload, status',
  send: 'a line of input for the agent',
  new: '-a PROVIDER -p PROMPT [-n NAME] [-w WORKLOAD]   or   [-n NAME] -- COMMAND ARGS…',
  search: 'text to find in the transcript (n next, N previous)',
};

function promptSpans(p: Prompt): Span[] {
  const label = p.kind === 'send' ? `send to ${p.targetName ?? '?'}` : PROMPT_LABEL[p.kind];
  const spans: Span[] = [{ text: `${label}> `, token: 'focus' }];
  if (p.selected && p.text !== '') {
    spans.push(
      { text: p.text, token: 'text.primary', inverse: true },
      { text: '▏', token: 'focus' },
      { text: '  typing replaces it · → edits it · ⌫ clears', token: 'text.muted' },
    );
    return spans;
  }
  spans.push({ text: p.text, token: 'text.primary' }, { text: '▏', token: 'focus' });
  if (p.text === '') spans.push({ text: PROMPT_PLACEHOLDER[p.kind], token: 'text.muted' });
  if (p.problem) spans.push({ text: `  ✗ ${p.problem}`, token: 'notice.error' }, { text: ' — not applied (fix it, or esc)', token: 'text.muted' });
  return spans;
}

function waitSpans(waits: readonly WaitBanner[]): Span[] {
  const out: Span[] = [];
  for (const w of waits) {
    if (out.length) out.push({ text: '  │  ', token: 'border' });
    if (w.state === 'waiting') out.push({ text: `⧗ waiting on ${w.name}…`, token: 'status.working' });
    else if (w.state === 'settled') {
      const ok = w.token === 'turn_complete' || w.token === 'completed';
      out.push({ text: `${w.name}: `, token: 'text.primary' }, { text: w.token ?? '', token: ok ? 'reason.ok' : 'reason.bad' });
    } else out.push({ text: `wait on ${w.name} failed: ${w.error ?? ''}`, token: 'reason.bad' });
  }
  return out;
}

export function Footer({ width }: FooterProps): React.JSX.Element {
  const mode = useTui((s) => s.mode);
  const context = useTui(contextOf);
  const prompt = useTui((s) => s.prompt);
  const confirm = useTui((s) => s.confirm);
  const message = useTui((s) => s.message);
  const waits = useTui(useShallow((s) => s.waits));
  const pane = useTui((s) => s.pane);
  const theme = useTui((s) => s.theme);
  const demo = useTui((s) => s.demo);

  let line: Span[];
  if (mode === 'prompt' && prompt) line = promptSpans(prompt);
  else if (mode === 'confirm' && confirm) {
    line = [
      { text: `${confirm.verb} `, token: 'reason.bad' },
      { text: confirm.name, token: 'text.accent' },
      { text: '? ', token: 'reason.bad' },
      { text: 'y', token: 'focus' },
      { text: '/', token: 'text.muted' },
      { text: 'n', token: 'focus' },
    ];
  } else if (message)
    line = [{ text: message.kind === 'error' ? `✗ ${message.text}` : message.text, token: message.kind === 'error' ? 'notice.error' : 'notice.info' }];
  else {
    // What quitting does matters most; the pane and theme make way for it on a narrow terminal.
    const long = demo ? 'quitting stops this demo and removes its home' : 'agents keep running when you quit';
    const note: Group = {
      spans: [{ text: textWidth(long) <= width || !demo ? long : 'q ends the demo, removes its home', token: 'text.muted' }],
      priority: 100,
    };
    const pane_: Group = { spans: [{ text: `pane: ${pane} · `, token: 'text.muted' }], priority: 20 };
    const theme_: Group = { spans: [{ text: `theme: ${theme} · `, token: 'text.muted' }], priority: 10 };
    const kept = fitGroups([note, pane_, theme_], width);
    line = [pane_, theme_, note].filter((g) => g.spans.every((sp) => kept.includes(sp))).flatMap((g) => g.spans);
  }

  const hints: Span[] = [];
  for (const h of fitHints(footerHints(context, pane), width)) {
    if (hints.length) hints.push({ text: '  ', token: 'text.muted' });
    hints.push({ text: h.label, token: 'focus' }, { text: ` ${h.hint}`, token: 'text.muted' });
  }
  return (
    <Box flexDirection="column" width={width}>
      {waits.length > 0 ? <Line spans={waitSpans(waits)} width={width} /> : null}
      <Line spans={line} width={width} />
      <Line spans={hints} width={width} />
    </Box>
  );
}
