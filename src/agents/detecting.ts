// An adapter for runs whose protocol is not known up front. Non-JSON lines
// before the first JSON object (banners, notices) pass through as output; the
// first JSON object decides the protocol, and from then on every line —
// that one included — goes to the chosen adapter. A first JSON object of no
// known shape settles on plain.
//
// A plain agent may never print JSON. So that it still shows life, detection
// also settles on plain after `plainAfterLines` non-JSON lines, and end()
// reports `alive` for a run that printed something but was never decided.
// Presets for plain agents (aider) should name `--protocol plain` so that
// they are alive at their first line.

import { PLAIN_PROTOCOL, type Protocol } from '../core/types.js';
import type { Adapter, AdapterOptions, ExtendedAdapter, ExtendedSignal, Signal } from './signals.js';
import { createAdapter } from './registry.js';
import { detectObject } from './detect.js';
import { guarded, parseObject } from './util.js';

export interface DetectingAdapter<S = Signal> extends Adapter<S> {
  /** The protocol settled on, or null while still undecided. */
  protocol(): Protocol | null;
}

export interface DetectingOptions extends AdapterOptions {
  /** Settle on plain after this many non-JSON lines with no JSON yet (default 20). */
  plainAfterLines?: number;
}

export function createDetectingAdapter(options?: DetectingOptions & { modelTurns?: false }): DetectingAdapter;
export function createDetectingAdapter(options: DetectingOptions): DetectingAdapter<ExtendedSignal>;
export function createDetectingAdapter(options: DetectingOptions = {}): DetectingAdapter | DetectingAdapter<ExtendedSignal> {
  const plainAfter = options.plainAfterLines ?? 20;
  let chosen: Protocol | null = null;
  let inner: ExtendedAdapter | null = null;
  let preamble = 0;

  function settle(protocol: Protocol): ExtendedAdapter {
    chosen = protocol;
    inner = createAdapter(protocol, { modelTurns: options.modelTurns === true, ...(options.now ? { now: options.now } : {}) });
    return inner;
  }

  const adapter: DetectingAdapter<ExtendedSignal> = {
    protocol: () => chosen,
    line(line: string): ExtendedSignal[] {
      if (inner) return inner.line(line);
      const obj = parseObject(line);
      if (obj) return settle(detectObject(obj) ?? PLAIN_PROTOCOL).line(line);
      preamble++;
      if (preamble >= plainAfter) return settle(PLAIN_PROTOCOL).line(line);
      return [{ kind: 'output', line }];
    },
    end(): ExtendedSignal[] {
      if (inner) return inner.end?.() ?? [];
      return preamble > 0 ? [{ kind: 'alive' }] : [];
    },
  };
  return guarded<ExtendedSignal, DetectingAdapter<ExtendedSignal>>(adapter);
}
