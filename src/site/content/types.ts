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
