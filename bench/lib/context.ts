import type { ItemResult } from './figures.js';

export interface Ctx {
  quick: boolean;
  log(message: string): void;
}

export interface Item {
  /** Short key for `--only`. */
  key: string;
  /** Item number as in bench/README.md. */
  item: string;
  title: string;
  run(ctx: Ctx): Promise<ItemResult>;
}
