// The TUI tests' home: the shared TestHome (a throw-away ORCR_HOME driven
// through the real `orcr` CLI), with CI unset for the TUI it starts (Ink
// buffers frames under CI=true) and a cleanup that kills live runs first.

import path from 'node:path';
import type { PublicRun } from '../../src/protocol/views.js';
import { TestHome } from '../support/harness.js';

export { CLI, MOCK_AGENT, ROOT } from '../support/harness.js';
export const TUI = path.join(path.dirname(new URL(import.meta.url).pathname), '../../dist/src/tui/main.js');

export class Home extends TestHome {
  override get env(): NodeJS.ProcessEnv {
    const env = super.env;
    delete env.CI;
    return env;
  }

  /** `orcr run … --json` → the run. */
  run(args: string[]): PublicRun {
    return this.json<PublicRun>(['run', ...args]);
  }

  ps(): PublicRun[] {
    return this.json<PublicRun[]>(['ps', '--all']);
  }

  override cleanup(): void {
    try {
      const active = this.ps()
        .filter((r) => r.status !== 'ended')
        .map((r) => r.uuid);
      if (active.length > 0) this.cli(['kill', '--force', ...active]);
    } catch {
      /* no supervisor: the pid files still find the groups */
    }
    super.cleanup();
  }
}
