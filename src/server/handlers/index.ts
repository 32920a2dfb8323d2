// Every method's handler, by name: typed against the method table, so a
// method without a handler, or one answering the wrong type, does not compile.

import { adminHandlers } from './admin.js';
import { approvalHandlers } from './approvals.js';
import type { Handlers } from './context.js';
import { fleetHandlers } from './fleet.js';
import { fleetViewHandlers } from './fleet-view.js';
import { loopHandlers } from './loops.js';
import { runHandlers } from './runs.js';
import { streamHandlers } from './streams.js';

export type { Handler, HandlerContext, Handlers, Rooms } from './context.js';

export const HANDLERS: Handlers = {
  ...adminHandlers,
  ...runHandlers,
  ...streamHandlers,
  ...fleetHandlers,
  ...loopHandlers,
  ...approvalHandlers,
  ...fleetViewHandlers,
};
