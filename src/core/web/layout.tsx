import type { ComponentChildren } from "preact";
import type { SiteInfo } from "../site.js";
import type { AssetManifest } from "./assets.js";
import { forAudience, type MenuEntry, type SiteMenu } from "./menu.js";

/** What every page needs to render the shell: the site, the current path and the asset URLs. */
export interface PageContext {
  site: SiteInfo;
  path: string;
  assets: AssetManifest;
  /** The form token to put into every form posted back to us. */
  csrfToken: string;
  /**
   * Whether somebody is signed in, for the header's account link. Never who: the chrome of a page that also shows
   * request text back (a search, `next=`) must not carry the viewer's address or name in the same compressed body,
   * or its length tells whether a guess at them was right (issue 33 #6).
   */
  signedIn?: boolean;
  /** Whose offline drafts this page may show and send (core/web/device-owner.ts); "unknown" when absent. */
  deviceOwner?: string;
  /**
   * The page's absolute address on BASE_URL when it may be previewed where it is shared (OpenGraph, Twitter card,
   * canonical link): public pages seen by nobody in particular; null on private pages (core/context.ts).
   */
  shareUrl?: string | null;
  /** The header menu, account link, footer links and feed links of the app's features (core/web/menu.ts); none when absent. */
  menu?: SiteMenu;
}

export interface LayoutProps {
  ctx: PageContext;
  title: string;
  description?: string;
  /** Extra stylesheets by asset name (e.g. "leaflet.css"). */
  styles?: string[];
  /** Progressive-enhancement scripts by asset name (e.g. "report-map.js"). */
  scripts?: string[];
  /** Extra elements for <head> (feeds, JSON-LD). */
  head?: ComponentChildren;
  /** An image of the page for its link preview: an absolute URL on BASE_URL (a report's first public photo). */
  image?: string;
  children: ComponentChildren;
}

/**
 * What a chat or social site shows when the page's address is shared: OpenGraph and Twitter card tags and the
 * canonical link, all on BASE_URL, nothing from a third party. Only on public pages (PageContext.shareUrl).
 */
function LinkPreview(p: {
  url: string;
  title: string;
  siteName: string;
  description: string;
  image: string;
  large: boolean;
}) {
  return (
    <>
      <link rel="canonical" href={p.url} />
      <meta property="og:type" content="website" />
      <meta property="og:site_name" content={p.siteName} />
      <meta property="og:title" content={p.title} />
      <meta property="og:description" content={p.description} />
      <meta property="og:url" content={p.url} />
      <meta property="og:image" content={p.image} />
      <meta name="twitter:card" content={p.large ? "summary_large_image" : "summary"} />
    </>
  );
}

/** The main navigation; the layout shows it as a row on wide screens and behind a Menu button on phones (CSS). */
function MainNav({ path, className, entries }: { path: string; className: string; entries: MenuEntry[] }) {
  return (
    <nav class={className} aria-label="Main">
      <ul>
        {entries.map((p) => (
          <li key={p.path}>
            <a href={p.path} aria-current={isCurrent(p.path, path) ? "page" : undefined}>
              {p.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function isCurrent(navPath: string, path: string): boolean {
  return path === navPath || (navPath !== "/" && path.startsWith(`${navPath}/`));
}

/** The page shell: skip link, header with navigation, main landmark, footer. Works without JavaScript. */
export function Layout({ ctx, title, description, styles = [], scripts = [], head, image, children }: LayoutProps) {
  const { site, path, assets } = ctx;
  const { nav, footer, feeds } = ctx.menu ?? { nav: [], footer: [], feeds: [] };
  const account = forAudience(ctx.menu?.account ?? [], ctx.signedIn === true);
  // enhance.js runs everywhere: it registers the service worker and sends drafts saved offline.
  const pageScripts = scripts.includes("enhance.js") ? scripts : ["enhance.js", ...scripts];
  const fullTitle = path === "/" ? `${site.villageName} Community Platform` : `${title} – ${site.villageName}`;
  return (
    <html lang="en-GB">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{fullTitle}</title>
        {description ? <meta name="description" content={description} /> : null}
        <link rel="stylesheet" href={assets.url("site.css")} />
        {styles.map((s) => (
          <link rel="stylesheet" href={assets.url(s)} key={s} />
        ))}
        {feeds.map((f) => (
          <link rel="alternate" type={f.type} title={f.title} href={f.path} key={f.path} />
        ))}
        <link rel="manifest" href="/manifest.webmanifest" />
        <meta name="theme-color" content="#1d5b3a" />
        <meta name="device-owner" content={ctx.deviceOwner ?? "unknown"} />
        <link rel="icon" type="image/png" sizes="192x192" href="/icons/icon-192.png" />
        {ctx.shareUrl ? (
          <LinkPreview
            url={ctx.shareUrl}
            title={path === "/" ? fullTitle : title}
            siteName={`${site.villageName} Community Platform`}
            description={description ?? `What is happening in ${site.villageName}, and how to report a local problem.`}
            image={image ?? `${site.baseUrl}/icons/icon-512.png`}
            large={image !== undefined}
          />
        ) : null}
        {head}
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to main content
        </a>
        <header class="site-header">
          <div class="wrap">
            <a class="brand" href="/">
              {site.villageName} <span>Community Platform</span>
            </a>
            <MainNav path={path} className="site-nav site-nav-wide" entries={nav} />
            {/* On a phone the same links fold behind a Menu button that works without JavaScript. */}
            <details class="site-menu">
              <summary>Menu</summary>
              <MainNav path={path} className="site-nav" entries={nav} />
            </details>
            {account.length > 0 ? (
              <p class="account-link">
                {account.map((e) => (
                  <a href={e.path} aria-current={isCurrent(e.path, path) ? "page" : undefined} key={e.path}>
                    {e.label}
                  </a>
                ))}
              </p>
            ) : null}
          </div>
        </header>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
        <footer class="site-footer">
          <div class="wrap">
            <p>
              <strong>An independent community project run by volunteers.</strong> This is not a council service.
              Reports may be forwarded to {site.councilName}; response times depend on the council.
            </p>
            <p>
              <strong>Not for emergencies.</strong> If someone is in danger, call 999. For a dangerous road hazard, call
              the council's emergency line. Gas leak: 0800 111 999. Power cut: 105.
            </p>
            <nav aria-label="Footer">
              <ul>
                {footer.map((p) => (
                  <li key={p.path}>
                    <a href={p.path} aria-current={path === p.path ? "page" : undefined}>
                      {p.label}
                    </a>
                  </li>
                ))}
                <li>
                  <a href={`mailto:${site.contactEmail}`}>Contact the volunteers</a>
                </li>
              </ul>
            </nav>
          </div>
        </footer>
        {pageScripts.map((s) => (
          <script type="module" src={assets.url(s)} key={s} />
        ))}
      </body>
    </html>
  );
}

/** The hidden form-token field every form posted back to the platform carries. */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}
