import type { SitePage } from "../core/web/sitemap.js";

/** The site's own pages: the home page, search and the static pages (its manifest's `pages`; their titles here). */
export const SITE_PAGES: SitePage[] = [
  { path: "/", title: "Home", summary: "What the platform is and what you can do here.", placement: "none" },
  {
    path: "/search",
    title: "Search",
    summary: "Search the site's reports (by words, place or reference) and local businesses.",
    placement: "none",
  },
  { path: "/about", title: "About this platform", summary: "Who runs the platform and why.", placement: "footer" },
  {
    path: "/terms",
    title: "Terms of use",
    summary: "Content rules, moderation, suspension and the licence you grant for your reports.",
    placement: "footer",
  },
  {
    path: "/privacy",
    title: "Privacy notice",
    summary: "What we store, why, for how long, and your rights. No tracking cookies; data never sold.",
    placement: "footer",
  },
  {
    path: "/accessibility",
    title: "Accessibility statement",
    summary: "How accessible the platform is (target WCAG 2.1 AA) and how to tell us about problems.",
    placement: "footer",
  },
];
