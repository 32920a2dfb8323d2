// A program's supervisor connection that comes back. The CLI connects anew
// for each verb, so a supervisor restarted between two verbs is never
// noticed; a long-lived client (the SDK, `orcr mcp`) gets the same from this:
// a call made after its connection dropped connects again (starting a
// supervisor when autoStart, as any verb does). A call in flight when the
// connection drops still fails with what happened (`stopped`, `unavailable`):
// whether the supervisor acted on it is unknown, so it is never re-sent.

import type { Home } from '../config/home.js';
import { Client } from './client.js';
import type { Caller, Method, ParamsArg, Result } from './methods.js';
import { UsageError } from './usage-error.js';

export class Session implements Caller {
  private client: Promise<Client> | null = null;
  /** The connection once made, to see that it is gone before using it. */
  private live: Client | null = null;
  private closed = false;

  private constructor(
    readonly home: Home,
    readonly autoStart: boolean,
    /** For the first connection only: a supervisor it starts kills the agents it re-adopts and stops (Client.connect). */
    private killAgents: boolean,
  ) {}

  /**
   * Connected at once, so a missing supervisor or a bad config is reported
   * here rather than at the first call; `lazy`: at the first call (the CLI,
   * whose verb makes its first call at once, or only a wait of its own).
   */
  static async open(home: Home, opts: { autoStart: boolean; killAgents?: boolean; lazy?: boolean }): Promise<Session> {
    const s = new Session(home, opts.autoStart, opts.killAgents === true);
    if (opts.lazy !== true) await s.connection();
    return s;
  }

  /** What the supervisor said at hello, on the connection made last. */
  get server(): Result<'hello'> | null {
    return this.live?.server ?? null;
  }

  /**
   * A call the supervisor answers and then closes the connection after
   * (server.stop): the answer, and `gone`, once it has closed it.
   */
  async callThenGone<M extends Method>(method: M, ...params: ParamsArg<M>): Promise<{ result: Result<M>; gone: Promise<void> }> {
    const c = await this.connection();
    const gone = new Promise<void>((r) => c.onClose(() => r()));
    return { result: await c.call(method, ...params), gone };
  }

  call<M extends Method>(method: M, ...params: ParamsArg<M>): Promise<Result<M>> {
    return this.connection().then((c) => c.call(method, ...params));
  }

  private connection(): Promise<Client> {
    if (this.closed) return Promise.reject(new UsageError('this client was closed (close()); connect again'));
    // Gone, or the supervisor said it is stopping: a new call goes to the next one.
    if (this.live && (this.live.closed || this.live.stopped)) {
      this.live.close();
      this.live = null;
      this.client = null;
    }
    const current = this.client;
    if (current) return current;
    const killAgents = this.killAgents;
    this.killAgents = false;
    const next = Client.connect(this.home, killAgents ? { killAgents } : { autoStart: this.autoStart }).then(
      (c) => {
        if (this.closed) c.close();
        if (this.client === next) this.live = c;
        // Gone: the next call makes a new connection.
        c.onClose(() => {
          if (this.client !== next) return;
          this.client = null;
          this.live = null;
        });
        return c;
      },
      (e: unknown) => {
        if (this.client === next) this.client = null; // no supervisor now may be one next time
        throw e;
      },
    );
    this.client = next;
    return next;
  }

  close(): void {
    this.closed = true;
    void this.client?.then(
      (c) => c.close(),
      () => undefined,
    );
    this.client = null;
    this.live = null;
  }
}
