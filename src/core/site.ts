import type { ComponentChildren, FunctionComponent } from "preact";

/** What the static pages need to know about the running site. */
export interface SiteInfo {
  /** The village's name, e.g. "Ashcombe St Mary". */
  villageName: string;
  /** The local council reports may be forwarded to. */
  councilName: string;
  /** Contact address of the volunteers who run the platform. */
  contactEmail: string;
  /** Absolute base URL without trailing slash, e.g. "https://civic.example.org". */
  baseUrl: string;
}

export interface ContentProps {
  site: SiteInfo;
}

/**
 * The content of the error pages, which the floor's error handler renders inside the layout. The site feature
 * writes it; the composition root passes it in (the floor imports no feature).
 */
export interface ErrorPageContent {
  /** `more`: the features' items of its "What you can do next" list (core/web/blocks.ts). */
  notFound: FunctionComponent<ContentProps & { more: ComponentChildren }>;
  serverError: FunctionComponent<ContentProps & { requestId: string }>;
}
