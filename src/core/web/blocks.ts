import type { Kysely } from "kysely";
import type { VNode } from "preact";
import type { DB } from "../db/schema.js";

/**
 * A feature's part of the home page (its manifest's `home`): the site feature writes the page and puts the blocks of
 * the app's features in it, "lead" ones before its cards and "main" ones after, each by `order`, ties in the order of
 * src/features.ts. So the home page imports no feature, and an app built without a feature shows nothing of it.
 */
export interface HomeBlock {
  placement: "lead" | "main";
  order: number;
  /** The block, with what it reads (every block of the page is asked at once). */
  render(db: Kysely<DB>): Promise<VNode>;
}

/**
 * A feature's items in the 404 page's "What you can do next" list (its manifest's `notFound`): list items, read from
 * nothing (a missing page reads no database).
 */
export interface NotFoundBlock {
  order: number;
  render(): VNode;
}

const byOrder = <T extends { order: number }>(blocks: T[]): T[] => [...blocks].sort((a, b) => a.order - b.order);

/** The home page's blocks of an app built with `features`, by placement, each by order (ties in list order). */
export function homeBlocks(features: readonly { home?: HomeBlock[] }[]): { lead: HomeBlock[]; main: HomeBlock[] } {
  const all = byOrder(features.flatMap((f) => f.home ?? []));
  return { lead: all.filter((b) => b.placement === "lead"), main: all.filter((b) => b.placement === "main") };
}

/** The 404 page's items of an app built with `features`, by order (ties in list order). */
export function notFoundBlocks(features: readonly { notFound?: NotFoundBlock[] }[]): NotFoundBlock[] {
  return byOrder(features.flatMap((f) => f.notFound ?? []));
}
