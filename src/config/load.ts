import fs from 'node:fs';
import { configSchema, type ParsedConfig } from './schema.js';
import type { AdmissionPolicy, WorkloadPolicy } from '../core/admission.js';
import { presetProtocol, reportsOwnCost } from '../agents/registry.js';

import { ConfigError } from './errors.js';

export { ConfigError };

export interface Config extends ParsedConfig {
  /** Non-fatal findings, e.g. a provider cap clamped to the global cap. */
  warnings: string[];
}

function keyPath(path: readonly PropertyKey[]): string {
  // Odd keys (spaces, dots, empty) are quoted so the path stays readable.
  return path.length === 0 ? '(top level)' : path.map((k) => (/^[\w-]+$/.test(String(k)) ? String(k) : JSON.stringify(String(k)))).join('.');
}

/** Validate an already-parsed JSON value. Throws ConfigError naming the key. */
export function parseConfig(value: unknown, source = 'config.json'): Config {
  const result = configSchema.safeParse(value ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.code === 'unrecognized_keys' ? keyPath([...issue.path, (issue as { keys: string[] }).keys[0]!]) : keyPath(issue.path);
    const message = issue.code === 'unrecognized_keys' ? 'unknown key' : issue.message;
    throw new ConfigError(`${source}: ${where}: ${message}`);
  }
  const cfg: Config = { ...result.data, warnings: [] };
  const c = cfg.concurrency;
  for (const [name, limit] of Object.entries(c.providers)) {
    if (limit > c.max) {
      cfg.warnings.push(`${source}: concurrency.providers.${name} (${limit}) is above concurrency.max (${c.max}); clamped to ${c.max}`);
      c.providers[name] = c.max;
    }
  }
  const reservedSum = Object.values(c.workloads).reduce((sum, w) => sum + w.reserved, 0);
  if (reservedSum > c.max) {
    throw new ConfigError(`${source}: concurrency.workloads: reserved slots add up to ${reservedSum}, above concurrency.max (${c.max})`);
  }
  for (const [name, w] of Object.entries(c.workloads)) {
    if (w.max !== null && w.reserved > w.max) {
      throw new ConfigError(`${source}: concurrency.workloads.${name}.reserved: ${w.reserved} is above its max (${w.max})`);
    }
  }
  if (c.default_workload !== 'default' && !(c.default_workload in c.workloads)) {
    throw new ConfigError(`${source}: concurrency.default_workload: unknown workload "${c.default_workload}" (define it under concurrency.workloads)`);
  }
  // A cost ceiling must be metered: the agent reports its own cost (its protocol's record says), or a price is configured.
  const runCost = cfg.budgets.run.max_cost_usd;
  const fleetCost = cfg.budgets.fleet.max_cost_usd;
  const named = new Set([...Object.keys(cfg.providers), ...Object.keys(c.providers)]);
  for (const name of named) {
    const p = cfg.providers[name];
    const needsPrice = runCost !== null || fleetCost !== null || p?.budgets?.max_cost_usd != null;
    const reportsCost = reportsOwnCost(p?.protocol ?? presetProtocol(name)?.name);
    if (needsPrice && !p?.price && !reportsCost) {
      const which =
        p?.budgets?.max_cost_usd != null
          ? `providers.${name}.budgets.max_cost_usd`
          : runCost !== null
            ? 'budgets.run.max_cost_usd'
            : 'budgets.fleet.max_cost_usd';
      throw new ConfigError(
        `${source}: providers.${name}.price: ${which} puts a cost ceiling on provider "${name}", but it has no price and does not report its own cost`,
      );
    }
  }
  return cfg;
}

/** Read config.json; a missing file means all defaults. */
export function loadConfig(file: string): Config {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return parseConfig({}, file);
    throw new ConfigError(`${file}: cannot read: ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON: ${(e as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${file}: (top level): must be a JSON object`);
  }
  return parseConfig(value, file);
}

export function admissionPolicy(cfg: Config): AdmissionPolicy {
  const workloads: Record<string, WorkloadPolicy> = {};
  for (const [name, w] of Object.entries(cfg.concurrency.workloads)) {
    workloads[name] = { reserved: w.reserved, priority: w.priority, max: w.max, max_wait_ms: w.max_wait };
  }
  return {
    max: cfg.concurrency.max,
    providers: cfg.concurrency.providers,
    workloads,
    max_queued: cfg.concurrency.max_queued,
  };
}
