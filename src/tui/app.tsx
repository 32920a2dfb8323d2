// The root component: sizes the panes to the terminal (and re-flows on
// resize), provides the store and the theme, and routes every key through
// one stable useInput handler. The one place that puts components, the
// store and the router together; it keeps no state beyond the terminal size.

import React, { useEffect, useMemo, useRef, useState } from 'react';
import { Box, useInput, useStdout, type Key } from 'ink';
import { StoreContext, ThemeContext, useTui } from '../../components/context.js';
import { Details } from '../../components/Details.js';
import { Spend } from '../../components/Spend.js';
import { Loops } from '../../components/Loops.js';
import { Approvals } from '../../components/Approvals.js';
import { Pager } from '../../components/Pager.js';
import { EventLog } from '../../components/EventLog.js';
import { Footer } from '../../components/Footer.js';
import { hasConfigNotice, Header } from '../../components/Header.js';
import { Help } from '../../components/Help.js';
import { TooSmall } from '../../components/TooSmall.js';
import { LimiterPane } from '../../components/LimiterPane.js';
import { RunsTable } from '../../components/RunsTable.js';
import type { Actions } from './input/actions.js';
import { computeLayout, tooSmall } from './view/layout.js';
import { limiterItems } from './model/limiter-items.js';
import { createKeyHandler } from './input/router.js';
import { reduceViewport } from './state/navigation.js';
import type { TuiStore } from './state/store.js';
import { NO_COLOR_THEME, themeListNote, type ThemeSet } from './view/theme.js';
import { listBody, olderLine } from './view/older.js';

export interface AppProps {
  readonly store: TuiStore;
  readonly actions: Actions;
  readonly themes: ThemeSet;
  readonly onExit: () => void;
  /** Fixed size (tests); otherwise the terminal's, following resizes. */
  readonly size?: { columns: number; rows: number };
}

function useTerminalSize(fixed?: { columns: number; rows: number }): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = (): { columns: number; rows: number } => fixed ?? { columns: stdout.columns || 80, rows: stdout.rows || 24 };
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (fixed) {
      setSize(fixed);
      return;
    }
    const onResize = (): void => setSize({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, fixed?.columns, fixed?.rows]);
  return size;
}

function Screen({ store, themes, size }: { store: TuiStore; themes: ThemeSet; size: { columns: number; rows: number } }): React.JSX.Element {
  // Under a prompt or a confirmation, keep showing what was there.
  const mode = useTui((s) => (s.mode === 'confirm' ? (s.confirm?.back ?? 'list') : s.mode === 'prompt' ? (s.prompt?.back ?? 'list') : s.mode));
  const showEvents = useTui((s) => s.showEvents);
  // Focused, the limiter lists holders and waiters one per line: it takes more room if it can.
  const caps = useTui((s) => (s.stats ? (s.pane === 'limiter' ? limiterItems(s.stats.caps).length : s.stats.caps.length) : 0));
  const waits = useTui((s) => s.waits.length > 0);
  const configNotice = useTui((s) => hasConfigNotice(s.stats));
  const theme = useTui((s) => s.theme);
  // The line saying older ended runs are left out takes a row from the list.
  const olderShown = useTui((s) => olderLine(s) !== null);
  const layout = useMemo(
    () => computeLayout({ columns: size.columns, rows: size.rows, showEvents, caps, waits, configNotice }),
    [size.columns, size.rows, showEvents, caps, waits, configNotice],
  );
  useEffect(() => {
    store.setState((s) =>
      reduceViewport(s, {
        width: layout.width,
        runsHeight: listBody(layout.runs.body, olderShown),
        limiterHeight: layout.limiter.body,
        eventsHeight: layout.events.body,
        detailsOutputHeight: Math.max(1, layout.main - 8),
        pagerHeight: Math.max(1, layout.main - 1),
      }),
    );
  }, [store, layout, olderShown]);

  let main: React.JSX.Element;
  if (mode === 'details') {
    main = <Details width={layout.width} height={layout.main} />;
  } else if (mode === 'pager') {
    main = <Pager width={layout.width} height={layout.main} />;
  } else if (mode === 'spend') {
    main = <Spend width={layout.width} height={layout.main} />;
  } else if (mode === 'loops') {
    main = <Loops width={layout.width} height={layout.main} />;
  } else if (mode === 'approvals') {
    main = <Approvals width={layout.width} height={layout.main} />;
  } else if (mode === 'help') {
    main = <Help width={layout.width} height={layout.main} themes={themes.order} theme={theme} themeNote={themeListNote(themes)} />;
  } else {
    main = (
      <Box flexDirection="column" height={layout.main}>
        <Box flexDirection={layout.side ? 'row' : 'column'} height={layout.runs.height + (layout.side ? 0 : layout.limiter.height)}>
          <RunsTable width={layout.runs.width} body={layout.runs.body} />
          {layout.side ? <Box width={1} /> : null}
          <LimiterPane width={layout.limiter.width} body={layout.limiter.body} detailed={layout.side} />
        </Box>
        {layout.events.height > 0 ? <EventLog width={layout.width} body={layout.events.body} /> : null}
      </Box>
    );
  }
  return (
    <Box flexDirection="column" width={layout.width} height={layout.height}>
      <Header width={layout.width} height={layout.header} />
      {main}
      <Footer width={layout.width} />
    </Box>
  );
}

export function App({ store, actions, themes, onExit, size: fixed }: AppProps): React.JSX.Element {
  const size = useTerminalSize(fixed);
  const small = tooSmall(size.columns, size.rows);
  // Read by the one stable key handler: while the terminal is too small nothing is shown to act on, so only quitting works.
  const smallNow = useRef(small);
  smallNow.current = small;
  const [ignored, setIgnored] = useState(false);
  if (!small && ignored) setIgnored(false);
  const handler = useMemo(() => {
    const keys = createKeyHandler({ store, actions, themes, exit: onExit });
    return (input: string, key: Key): void => {
      if (!smallNow.current) return keys(input, key);
      if ((input === 'q' && !key.ctrl) || (input === 'c' && key.ctrl)) onExit();
      else setIgnored(true);
    };
  }, [store, actions, themes, onExit]);
  useInput(handler);
  return (
    <StoreContext.Provider value={store}>
      {small ? <TooSmall columns={size.columns} rows={size.rows} ignored={ignored} /> : <ThemedScreen store={store} themes={themes} size={size} />}
    </StoreContext.Provider>
  );
}

function ThemedScreen({ store, themes, size }: { store: TuiStore; themes: ThemeSet; size: { columns: number; rows: number } }): React.JSX.Element {
  const name = useTui((s) => s.theme);
  const theme = themes.themes.get(name) ?? NO_COLOR_THEME;
  return (
    <ThemeContext.Provider value={theme}>
      <Screen store={store} themes={themes} size={size} />
    </ThemeContext.Provider>
  );
}
