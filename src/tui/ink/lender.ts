// Ink lends the terminal out (suspendTerminal: its frame erased, the main
// screen, cooked input, a cursor; the whole frame drawn again on return) only
// through a hook, so a component inside the tree hands that function to the
// code outside it that opens an agent's CLI.

import { useApp } from 'ink';
import { useLayoutEffect, type ReactNode } from 'react';

export interface TerminalLender {
  /** Null until the tree is mounted (and after it is gone). */
  lend: ((run: () => void) => Promise<void>) | null;
}

export function LendTerminal({ lender, children }: { lender: TerminalLender; children?: ReactNode }): ReactNode {
  const { suspendTerminal } = useApp();
  useLayoutEffect(() => {
    lender.lend = (run) => suspendTerminal(run);
    return () => {
      lender.lend = null;
    };
  }, [lender, suspendTerminal]);
  return children;
}
