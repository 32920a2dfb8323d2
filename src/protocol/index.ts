// The protocol room: everything that crosses the socket, declared once.
// Clients (CLI, TUI, SDK, `orcr mcp`) import it from here.

export { ERROR_CODES, ERROR_EXIT, exitCodeOf, isErrorCode, RemoteError, type ErrorBody, type ErrorCode } from './errors.js';
export {
  METHOD_NAMES,
  METHODS,
  WRITES,
  isMethodName,
  parseParams,
  type MethodName,
  type Methods,
  type MethodSpec,
  type ParamsOf,
  type ParsedParamsOf,
  type ResultOf,
} from './methods.js';
export type * from './results.js';
export { meterViews, publicRun, type MeterView, type PublicLoop, type PublicLoopRun, type PublicRun, type ViewExtras } from './views.js';
export {
  MAX_FRAME_BYTES,
  PAGE,
  PROTOCOL_VERSION,
  socketPathLimit,
  type EventMessage,
  type PushMessage,
  type Reply,
  type Request,
  type RowsMessage,
  type StoppingMessage,
} from './wire.js';
export { EVENT_TYPES, isEventType, type EventData, type EventInput, type EventOf, type EventType, type RunEvent, type RunEventOf } from '../core/events.js';
