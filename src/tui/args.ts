// `orcr-tui` flags, parsed and checked. Nothing here touches the terminal,
// the home or the supervisor.

import { parseArgs } from 'node:util';

export const USAGE = `usage: orcr-tui [--theme NAME] [--cluster] [--demo] [--quiet] [--help]

  --theme NAME   start with this theme (dark, light, high-contrast, ansi, no-color,
                 or a file NAME.json in <ORCR_HOME>/themes); t cycles, the choice
                 is remembered in <ORCR_HOME>/tui.json
  --cluster      open on every machine's runs (a cluster's member or viewer home);
                 m switches between this machine's and the cluster's
  --demo         create a throw-away home with a simulated fleet and open it;
                 quitting stops that fleet and its supervisor and removes the home
  --quiet        no bell or desktop notification when a run blocks or ends
  --help         this text

Watches and drives the supervisor of ORCR_HOME (default ~/.orcr), starting it
if none runs. Quitting (q) leaves every agent running. Keys: ? inside the TUI.`;

export class ArgsError extends Error {}

export interface TuiArgs {
  theme?: string;
  demo: boolean;
  /** Open in cluster scope (`m`'s other side). */
  cluster: boolean;
  quiet: boolean;
  help: boolean;
}

export function parseTuiArgs(argv: string[]): TuiArgs {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        theme: { type: 'string' },
        demo: { type: 'boolean' },
        cluster: { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
      strict: true,
    });
    if (values.theme !== undefined && values.theme.trim() === '') throw new ArgsError('--theme needs a name');
    return { theme: values.theme, demo: values.demo ?? false, cluster: values.cluster ?? false, quiet: values.quiet ?? false, help: values.help ?? false };
  } catch (e) {
    if (e instanceof ArgsError) throw e;
    throw new ArgsError((e as Error).message.replace(/\. To specify a positional.*$/s, ''));
  }
}
