// Why an agent's turn failed, from its words: the one reading Codex's exec
// and app-server and ACP agents share (Claude Code and Gemini's stream name
// their causes in fields of their own).

import type { Signal } from './signals.js';
import { mentionsLimit, mentionsLogin, statedRetryAfter } from './util.js';

/** Words of a failure the API or the network caused (not the agent's work): 5xx, overloaded, a dropped stream. */
const API_TROUBLE =
  /stream disconnected|overloaded|internal server error|bad gateway|service unavailable|gateway timeout|\b(500|502|503|504|529)\b|ECONNRESET|ETIMEDOUT/i;

/**
 * A failed turn's result, its cause blocked first: a usage limit ("You've hit
 * your usage limit…", "429 Too Many Requests", "RESOURCE_EXHAUSTED"), a
 * login, the API (a passing failure: `--retries`), else `turn.failed`;
 * `named`: the cause as the agent named it apart from its words (Codex's
 * codexErrorInfo), which wins.
 */
export function turnFailure(message: string | undefined, now: number, named: 'limit' | 'api_error' | null = null): Signal[] {
  const limit = named === 'limit';
  const out: Signal[] = [];
  let detail = 'turn.failed';
  if (limit || mentionsLimit(message)) {
    const sig: Signal = { kind: 'blocked', blocked: 'limit', message: message ?? 'usage limit' };
    const retry = statedRetryAfter(message, now);
    if (retry !== undefined) sig.retry_after_s = retry;
    out.push(sig);
    detail = 'limit';
  } else if (mentionsLogin(message)) {
    out.push({ kind: 'blocked', blocked: 'login', message: message ?? 'login' });
    detail = 'login';
  } else if (named === 'api_error' || (message !== undefined && API_TROUBLE.test(message))) {
    // The API or the network failed after the agent's own retries: a passing failure (`--retries`).
    detail = 'api_error';
  }
  const sig: Signal = { kind: 'result', ok: false, detail };
  if (message !== undefined) sig.text = message;
  out.push(sig);
  return out;
}
