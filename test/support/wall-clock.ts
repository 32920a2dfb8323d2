// How a test starts a supervisor on a wall clock it moves: see wall-clock.mjs.

import { pathToFileURL } from 'node:url';

const PRELOAD = pathToFileURL(new URL('./wall-clock.mjs', import.meta.url).pathname).href;

/** Node's arguments that preload the movable wall clock (before the script's). */
export const wallClockArgs = (): string[] => ['--import', PRELOAD];
