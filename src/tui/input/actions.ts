// What a key may ask of the world outside the store: the router calls these,
// the connection carries them out (connection/controller.ts). Declared here,
// beside the router that uses them, so input never imports the connection.

export interface Actions {
  kill(uuid: string, force: boolean): void;
  send(uuid: string, text: string): void;
  wait(uuid: string): void;
  enqueue(line: string): void;
  /** A new queued run with an ended run's spec (`orcr rerun`). */
  rerun(uuid: string): void;
  /** `orcr queue pause|resume`. */
  pauseQueue(paused: boolean): void;
  reconnect(): void;
  themeChanged(name: string): void;
  detailsOpened(): void;
  /** The transcript pager opened on a run: read its output and follow it. */
  transcriptOpened(uuid: string): void;
  /** The pager closed: stop following. */
  transcriptClosed(): void;
}
