/**
 * The site's header menu, account link, footer links and feed links, made of what each feature of the app contributes
 * through its manifest (`Feature.menu`, `Feature.feeds`), so an app built without a feature has no link to it.
 * Entries are shown by their `order`, ties in the order of src/features.ts.
 */
export interface MenuEntry {
  path: string;
  label: string;
  /** The header's main navigation, the header's account link, or the footer's links. */
  placement: "nav" | "account" | "footer";
  order: number;
  /** Shown only to visitors signed in or only to those who are not (the account link); to everyone when absent. */
  audience?: "signed-in" | "signed-out";
}

/** A feed every page points to in its <head> (`<link rel="alternate">`), for feed readers to find. */
export interface FeedLink {
  path: string;
  title: string;
  type: "application/atom+xml";
}

export interface SiteMenu {
  nav: MenuEntry[];
  account: MenuEntry[];
  footer: MenuEntry[];
  feeds: FeedLink[];
}

const menus = new WeakMap<readonly object[], SiteMenu>();

/** The menu of an app built with `features` (made once per list). */
export function siteMenu(features: readonly { menu?: MenuEntry[]; feeds?: FeedLink[] }[]): SiteMenu {
  const known = menus.get(features);
  if (known) return known;
  const entries = features.flatMap((f) => f.menu ?? []);
  // Array.prototype.sort is stable: ties keep the features' order.
  const sorted = [...entries].sort((a, b) => a.order - b.order);
  const menu = {
    nav: sorted.filter((e) => e.placement === "nav"),
    account: sorted.filter((e) => e.placement === "account"),
    footer: sorted.filter((e) => e.placement === "footer"),
    feeds: features.flatMap((f) => f.feeds ?? []),
  };
  menus.set(features, menu);
  return menu;
}

/** The entries of `entries` for a visitor signed in or not (core/web/layout.tsx's account link). */
export function forAudience(entries: readonly MenuEntry[], signedIn: boolean): MenuEntry[] {
  return entries.filter((e) => e.audience === undefined || (e.audience === "signed-in") === signedIn);
}
