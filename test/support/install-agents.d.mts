// Types of install-agents.mjs, which stays plain JS (`npm run agents:install`
// runs it before any build). Keep these beside its exports.

/** The real agent CLIs the integration suite (test/real/) runs. */
export type AgentName = 'claude' | 'codex' | 'gemini';

/** An agent's npm package, its pinned version, and its executable's name in node_modules/.bin. */
export interface AgentPin {
  readonly pkg: string;
  readonly version: string;
  readonly bin: string;
}

/** name → its pin. */
export declare const AGENTS: Readonly<Record<AgentName, AgentPin>>;

/** The cache the CLIs are installed into: $ORCR_AGENTS_CACHE, or ~/.cache/orcr-agents. */
export declare function cacheDir(): string;

/** Installed version of a package in the cache, or null. */
export declare function installedVersion(pkg: string, dir?: string): string | null;

/** Absolute path of an agent's executable in the cache (it may not exist). */
export declare function agentBin(name: AgentName, dir?: string): string;

/** Is this agent installed at its pinned version, with a runnable executable? */
export declare function isInstalled(name: AgentName, dir?: string): boolean;
