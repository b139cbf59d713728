/**
 * The site's header menu and footer links, made of what each feature of the app contributes through its manifest
 * (`Feature.menu`), so an app built without a feature has no link to it. Entries are shown by their `order`, ties in
 * the order of src/features.ts.
 */
export interface MenuEntry {
  path: string;
  label: string;
  /** The header's main navigation or the footer's links. */
  placement: "nav" | "footer";
  order: number;
}

export interface SiteMenu {
  nav: MenuEntry[];
  footer: MenuEntry[];
}

const menus = new WeakMap<readonly object[], SiteMenu>();

/** The menu of an app built with `features` (made once per list). */
export function siteMenu(features: readonly { menu?: MenuEntry[] }[]): SiteMenu {
  const known = menus.get(features);
  if (known) return known;
  const entries = features.flatMap((f) => f.menu ?? []);
  // Array.prototype.sort is stable: ties keep the features' order.
  const sorted = [...entries].sort((a, b) => a.order - b.order);
  const menu = {
    nav: sorted.filter((e) => e.placement === "nav"),
    footer: sorted.filter((e) => e.placement === "footer"),
  };
  menus.set(features, menu);
  return menu;
}
