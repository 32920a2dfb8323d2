// The theme's semantic colour names. The store keeps one beside a line it
// words once (the event log's), and the view paints by them; a theme maps
// each to a colour (view/theme.ts). Below both, so the store needs no theme.

export const TOKENS = [
  'text.primary',
  'text.muted',
  'text.accent',
  'border',
  'focus',
  'status.queued',
  'status.starting',
  'status.working',
  'status.idle',
  'status.blocked',
  'status.ended',
  'reason.ok',
  'reason.bad',
  'meter.ok',
  'meter.warn',
  'meter.full',
  'meter.empty',
  'event.transition',
  'event.kill',
  'event.budget',
  'event.loop',
  'event.hold',
  'event.input',
  'event.system',
  'event.error',
  'notice.info',
  'notice.error',
] as const;
export type Token = (typeof TOKENS)[number];
