// What a key may ask of the world outside the store: the router calls these,
// the connection carries them out (connection/controller.ts). Declared here,
// beside the router that uses them, so input never imports the connection.

export interface Actions {
  kill(uuid: string, force: boolean): void;
  send(uuid: string, text: string): void;
  wait(uuid: string): void;
  enqueue(line: string): void;
  reconnect(): void;
  themeChanged(name: string): void;
  detailsOpened(): void;
  /** Page older ended runs in (the window let them go, or the snapshot did not send them). */
  loadOlder(): void;
}
