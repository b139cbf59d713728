/**
 * The one list of the site's public pages. The navigation, the footer, /llms.txt, /sitemap.xml and the browser
 * accessibility tests all read it, so a new page joins every one of them by being added here.
 */
export interface SitePage {
  path: string;
  title: string;
  /** One line on what the page is for (used by /llms.txt and as the meta description). */
  summary: string;
  /** Where the page is linked from. */
  placement: "nav" | "footer" | "none";
  /** Label in the navigation, when shorter than the title. */
  navLabel?: string;
}

export const sitePages: SitePage[] = [
  { path: "/", title: "Home", summary: "What the platform is and what you can do here.", placement: "none" },
  {
    path: "/report",
    title: "Report an issue",
    navLabel: "Report an issue",
    summary: "Report a local, non-urgent problem such as a pothole, a broken streetlight or fly-tipping.",
    placement: "nav",
  },
  {
    path: "/reports",
    title: "Reports",
    summary: "Every public report, newest first, with a map, filters and an Atom feed.",
    placement: "nav",
  },
  {
    path: "/status",
    title: "Check a report's status",
    summary: "Look up a report by its reference number.",
    placement: "none",
  },
  {
    path: "/ideas",
    title: "Ideas",
    summary: "Share an idea to improve the village.",
    placement: "nav",
  },
  {
    path: "/projects",
    title: "Projects",
    summary: "Community projects: what is planned, under way and done.",
    placement: "nav",
  },
  {
    path: "/volunteer",
    title: "Volunteer",
    summary: "Offer some time to a community project.",
    placement: "nav",
  },
  {
    path: "/newsletter",
    title: "Newsletter",
    summary: "Get village news by email.",
    placement: "nav",
  },
  {
    path: "/businesses",
    title: "Local businesses",
    navLabel: "Businesses",
    summary: "Directory of local businesses with opening hours and contact details.",
    placement: "nav",
  },
  {
    path: "/councillors",
    title: "Your councillors",
    navLabel: "Councillors",
    summary: "Who represents the village and how to reach them.",
    placement: "nav",
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

export const navPages = (): SitePage[] => sitePages.filter((p) => p.placement === "nav");
export const footerPages = (): SitePage[] => sitePages.filter((p) => p.placement === "footer");
