// The SDK's Node.js check, as a library makes it: the CLI and the TUI print a
// line and exit (client/node-check.ts), but a program that imports orcr owns
// its process, so on a Node.js too old for orcr's dependencies the import
// throws an Error saying what was found and what is needed, before anything
// that would fail more obscurely is evaluated (index.ts imports this first).

import { MIN_NODE_MAJOR, nodeTooOld } from '../client/node-version.js';

/** Importing the SDK on a Node.js older than it supports. */
export class NodeTooOld extends Error {
  override readonly name = 'NodeTooOld';
  readonly code = 'ERR_ORCR_NODE_VERSION';
  /** What package.json's engines says. */
  readonly needed = `>=${MIN_NODE_MAJOR}`;

  constructor(
    /** The version found, as process.versions.node gives it. */
    readonly found: string,
  ) {
    super(nodeTooOld(found, 'the orcr SDK') ?? `the orcr SDK needs Node.js ${MIN_NODE_MAJOR} or newer`);
  }
}

if (nodeTooOld(process.versions.node) !== null) throw new NodeTooOld(process.versions.node);
