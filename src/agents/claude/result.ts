// Claude Code's `result` line, the end of a turn: its usage (the turn's real
// totals), the session's cumulative cost, and — when it failed — its cause.

import type { ExtendedSignal, Signal } from '../signals.js';
import { isObject, mentionsLimit, mentionsLogin, num, optNum, str, type JsonObject } from '../util.js';
import type { TurnLimits } from './limits.js';
import { snapshotOf } from './messages.js';

export interface Results {
  /** The signals a result line says, before the turn's end (the caller closes the turn). */
  read(obj: JsonObject): ExtendedSignal[];
}

export function createResults(limits: TurnLimits): Results {
  // The session's cumulative cost as last reported (it starts at 0).
  let lastCost = 0;
  return {
    read(obj) {
      const out: ExtendedSignal[] = [];
      const costTotal = optNum(obj.total_cost_usd);
      if (isObject(obj.usage) || costTotal !== undefined) {
        const u = isObject(obj.usage) ? snapshotOf(obj.usage) : { input: 0, output: 0, cached: 0 };
        // A turn that never reached the model (not logged in, refused key)
        // reports zeros: that is no usage, and must not read as activity.
        const nothing = u.input === 0 && u.output === 0 && u.cached === 0 && (costTotal === undefined || costTotal === lastCost);
        if (!nothing) {
          const sig: Signal = { kind: 'usage', ...u };
          if (costTotal !== undefined) sig.cost_usd_total = costTotal;
          out.push(sig);
        }
        if (costTotal !== undefined) lastCost = costTotal;
      }
      out.push(...verdict(obj, limits));
      return out;
    },
  };
}

/** `subtype:"success"` with `is_error:true` is a failure (auth, API error): its cause, blocked once, then the result. */
function verdict(obj: JsonObject, limits: TurnLimits): Signal[] {
  const out: Signal[] = [];
  const subtype = str(obj.subtype);
  const ok = (subtype === undefined || subtype === 'success') && obj.is_error !== true;
  const text = str(obj.result);
  let cause: 'login' | 'limit' | null = null;
  // The API failing after the CLI's own retries (overloaded, 5xx, the network): a passing failure (`--retries`).
  let apiError = false;
  if (!ok) {
    const errors = Array.isArray(obj.errors) ? obj.errors.filter((e): e is string => typeof e === 'string') : [];
    const why = [text ?? '', ...errors].join('\n');
    // Newer CLIs name the HTTP status of the failed call (`api_error_status`).
    const status = num(obj.api_error_status);
    if (status === 401 || status === 403 || (status !== 429 && mentionsLogin(why))) cause = 'login';
    else if (status === 429 || mentionsLimit(why)) cause = 'limit';
    else cause = limits.blocked;
    apiError = cause === null && (status >= 500 || /\boverloaded\b|\bapi error\b|ECONNRESET|ETIMEDOUT|socket hang up|network error/i.test(why));
    // Blocked once per cause: the synthetic assistant line usually said it already.
    if (cause === 'limit' && cause !== limits.blocked) out.push(limits.limitBlock(why.trim() || cause, why));
    else if (cause !== null && cause !== limits.blocked) out.push({ kind: 'blocked', blocked: cause, message: why.trim() || cause });
  }
  const sig: Signal = { kind: 'result', ok };
  if (text !== undefined) sig.text = text;
  if (!ok) sig.detail = cause ?? (apiError ? 'api_error' : subtype && subtype !== 'success' ? subtype : 'is_error');
  out.push(sig);
  return out;
}
