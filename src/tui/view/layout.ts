// How the terminal's rows and columns are shared between the panes. Pure:
// the App recomputes it on resize. The root is rows - 1 tall (Ink clears the
// whole screen every frame once output reaches the terminal height).

export interface LayoutInput {
  columns: number;
  rows: number;
  showEvents: boolean;
  /** Lines the limiter would show: one per cap; focused, one per holder and waiter too (0 before the first stats). */
  caps: number;
  /** Wait banners on screen (they take a footer line). */
  waits: boolean;
  /** A refused config or config warnings (they take a header line). */
  configNotice?: boolean;
}

export interface Layout {
  width: number;
  height: number;
  header: number;
  footer: number;
  /** Everything between header and footer (details and help use all of it). */
  main: number;
  /** The limiter sits beside the runs on wide terminals, below them otherwise. */
  side: boolean;
  runs: { width: number; height: number; body: number };
  limiter: { width: number; height: number; body: number };
  events: { height: number; body: number };
}

export const MIN_COLUMNS = 40;
export const MIN_ROWS = 10;

/** Below this the panes would wrap into fragments: the TUI says so instead. */
export function tooSmall(columns: number, rows: number): boolean {
  return columns < MIN_COLUMNS || rows < MIN_ROWS;
}
/** From this width the limiter goes beside the runs table. */
const SIDE_LIMITER_COLUMNS = 160;
const SIDE_LIMITER_WIDTH = 52;

export function computeLayout(input: LayoutInput): Layout {
  const width = Math.max(MIN_COLUMNS, input.columns);
  const height = Math.max(MIN_ROWS, input.rows) - 1;
  const header = 2 + (input.configNotice ? 1 : 0);
  const footer = 2 + (input.waits ? 1 : 0);
  const main = Math.max(3, height - header - footer);
  const caps = Math.max(1, input.caps);
  const side = width >= SIDE_LIMITER_COLUMNS;

  // Pane bodies shrink with the terminal; the runs table keeps what is left.
  const share = main >= 30 ? 8 : main >= 18 ? 4 : 2;
  let eventsBody = input.showEvents ? share : 0;
  let limiterBody = side ? 0 : Math.min(caps, share + (main >= 30 ? 2 : 0));
  const minRunsBody = Math.min(5, Math.max(1, main - 4));
  const runsBodyFor = (): number => main - 2 - (limiterBody ? limiterBody + 1 : 0) - (eventsBody ? eventsBody + 1 : 0);
  while (runsBodyFor() < minRunsBody && (eventsBody > 1 || limiterBody > 1)) {
    if (eventsBody >= limiterBody && eventsBody > 1) eventsBody--;
    else if (limiterBody > 1) limiterBody--;
  }
  const eventsHeight = eventsBody ? eventsBody + 1 : 0;
  const runsHeight = main - eventsHeight - (side ? 0 : limiterBody ? limiterBody + 1 : 0);
  const runsBody = Math.max(1, runsHeight - 2);
  if (side) {
    const lw = SIDE_LIMITER_WIDTH;
    return {
      width,
      height,
      header,
      footer,
      main,
      side,
      runs: { width: width - lw - 1, height: runsHeight, body: runsBody },
      limiter: { width: lw, height: runsHeight, body: Math.max(1, runsHeight - 1) },
      events: { height: eventsHeight, body: eventsBody },
    };
  }
  return {
    width,
    height,
    header,
    footer,
    main,
    side,
    runs: { width, height: runsHeight, body: runsBody },
    limiter: { width, height: limiterBody + 1, body: limiterBody },
    events: { height: eventsHeight, body: eventsBody },
  };
}
