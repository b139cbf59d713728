import type { FastifyInstance } from "fastify";
import type { Config } from "../config.js";
import { pageContext } from "../core/context.js";
import { Layout } from "../core/web/layout.js";
import { sendPage } from "../core/web/render.js";
import { type MachineResource, machineResources } from "../core/web/sitemap.js";

function Example({ id, title, code, children }: { id: string; title: string; code: string; children?: unknown }) {
  return (
    <section aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children as never}
      <div class="code-example" role="region" tabIndex={0} aria-labelledby={id}>
        <pre>
          <code>{code}</code>
        </pre>
      </div>
    </section>
  );
}

function DevelopersContent({ config, resources }: { config: Config; resources: MachineResource[] }) {
  const base = config.baseUrl;
  const windowSeconds = Math.round(config.rateLimit.windowMs / 1000);
  return (
    <>
      <h1>Developers and open data</h1>
      <p class="lead">
        Everything public on this platform is also open to apps, researchers and other websites: the local business
        directory as schema.org JSON-LD, and issue reports through the Open311 GeoReport v2 standard.
      </p>

      <h2>What is available</h2>
      <ul>
        {resources.map((r) => (
          <li key={r.path}>
            <a href={r.path}>{r.title}</a>: {r.summary}
          </li>
        ))}
        <li>
          <a href="/llms.txt">llms.txt</a>: a plain-text summary of the site for discovery tools.
        </li>
      </ul>
      <p>
        The full, machine-readable description of every endpoint, parameter, header and error is the{" "}
        <a href="/openapi.yaml">OpenAPI 3.1 description</a> (also <a href="/openapi.json">as JSON</a>). It is generated
        from the code, so it is always current, and it is a tested contract: requests generated from it, valid and
        invalid, are answered as it says (every status, body schema, required field and pattern). A client or test tool
        that honours its schemas never gets a 400 for a well-formed request: text holds no control characters or broken
        Unicode (the <code>pattern</code> of every text parameter), <code>since</code> is required, and the Open311 POST
        needs <code>service_code</code>, <code>description</code> and a location.
      </p>

      <h2>Business directory API</h2>
      <p>
        For maps, guides and search engines. No key needed; any website may call it from the browser (open CORS).
        Responses carry an <code>ETag</code>: send it back in <code>If-None-Match</code> and you get a quick{" "}
        <code>304 Not Modified</code> while nothing has changed. The list and single-business responses may be cached
        for an hour (<code>max-age=3600, s-maxage=86400</code>), the diff feed for five minutes.
      </p>
      <Example
        id="ex-list"
        title="List businesses, filtered"
        code={`curl -s '${base}/api/v1/businesses?schemaType=FoodEstablishment&q=cafe'`}
      >
        <p>
          Filters combine with AND: <code>category</code> (the display category, any case), <code>schemaType</code> (a
          schema.org type, including its subtypes) and <code>q</code> (full-text search of name, category, type,
          description and address, up to 200 characters, every word required, ignoring case, accents and plurals).
        </p>
        <p>
          Every property is a schema.org property defined for the type that carries it, except <code>category</code>,{" "}
          <code>dateCreated</code> and <code>dateModified</code>: schema.org does not define them for LocalBusiness, so
          each business's <code>@context</code> maps them to this directory's own terms, described at{" "}
          <a href="/api/v1/vocabulary">/api/v1/vocabulary</a>.
        </p>
      </Example>
      <Example
        id="ex-conditional"
        title="Check for changes without downloading again"
        code={`curl -s -o /dev/null -w '%{http_code}\\n' -H 'If-None-Match: "<etag from last time>"' '${base}/api/v1/businesses'`}
      />
      <Example
        id="ex-diff"
        title="Keep a copy in sync with the diff feed"
        code={`# First, the whole dataset:\ncurl -s -o businesses.json '${base}/data/businesses-canonical.json'\n# Then, every day, what changed since a date (YYYY-MM-DD, UTC):\ncurl -s '${base}/api/v1/diff?since=2026-11-01'`}
      >
        <p>
          The diff lists businesses added, updated and removed (as tombstones with the time of removal) since the start
          of that day, the range it covers and the dataset version. Apply it to your copy and remember the date.
        </p>
      </Example>

      <h2>Open311 GeoReport v2 API</h2>
      <p>
        For apps that report problems or show them. It follows the{" "}
        <a href="https://wiki.open311.org/GeoReport_v2/">GeoReport v2 standard</a> in JSON and XML. Reading needs no
        key. Submitting a report needs an API key.
      </p>
      <Example
        id="ex-services"
        title="Discover the API and list the report categories"
        code={`curl -s '${base}/api/v2/discovery.json'\ncurl -s '${base}/api/v2/services.json'\ncurl -s '${base}/api/v2/services/streetlight.json'`}
      />
      <Example
        id="ex-post"
        title="Submit a report"
        code={`curl -s -X POST '${base}/api/v2/requests.json' \\\n  -H 'X-Api-Key: YOUR_KEY' \\\n  --data-urlencode 'service_code=streetlight' \\\n  --data-urlencode 'lat=${config.village.centre.lat.toFixed(5)}' \\\n  --data-urlencode 'long=${config.village.centre.lng.toFixed(5)}' \\\n  --data-urlencode 'attribute[fault]=out' \\\n  --data-urlencode 'description=The light outside the church has been out for a week.' \\\n  --data-urlencode 'email=resident@example.org'`}
      >
        <p>
          The answer holds the new <code>service_request_id</code>: the report's reference number, which residents can
          also use on the <a href="/status">status page</a>. Photos can be sent as multipart <code>media</code>.
        </p>
      </Example>
      <Example
        id="ex-requests"
        title="Read reports near a place"
        code={`curl -s '${base}/api/v2/requests.json?status=open&lat=${config.village.centre.lat.toFixed(5)}&long=${config.village.centre.lng.toFixed(5)}&radius=500'`}
      >
        <p>
          If you poll, send the last answer's <code>ETag</code> back in <code>If-None-Match</code>: while nothing has
          changed you get a quick <code>304 Not Modified</code>, and any change (a new report, a status update, a report
          taken down) shows at your next request.
        </p>
      </Example>

      <h2>Getting an API key</h2>
      <p>
        Email the volunteers at <a href={`mailto:${config.village.contactEmail}`}>{config.village.contactEmail}</a> with
        the name of your app and what it does. Keys are free. We keep only a fingerprint of your key, so keep it safe;
        we can revoke it and give you a new one.
      </p>
      <p>
        Send your key in the <code>X-Api-Key</code> header, on submissions and, if you like, on reads (a key gives you
        your own rate-limit allowance). A header keeps the key out of addresses, and so out of logs, browser history and
        caches; browsers may send it cross-origin (CORS allows it). The standard's <code>api_key</code> form field (or{" "}
        <code>api_key</code> in the query string) still works. We never log key values, and an answer to a request that
        carried a key is marked <code>Cache-Control: private</code>.
      </p>

      <h2>Rate limits</h2>
      <p>
        The Open311 API allows {config.rateLimit.readMax} reads and {config.rateLimit.writeMax} submissions per{" "}
        {windowSeconds} seconds for each client (and each key). Responses tell you where you stand in the{" "}
        <code>RateLimit-Limit</code>, <code>RateLimit-Remaining</code> and <code>RateLimit-Reset</code> headers; past
        the limit you get <code>429 Too Many Requests</code> with <code>Retry-After</code>. The business directory is
        served from caches and has no limit; please use <code>If-None-Match</code>.
      </p>

      <h2>Errors</h2>
      <p>
        The business API answers errors as <code>application/problem+json</code> with a stable <code>code</code> and a
        helpful <code>detail</code>. The Open311 API answers with the standard's error list. Both include a{" "}
        <code>requestId</code> or a <code>X-Request-Id</code> header: quote it when you ask us for help. An address
        asked with a method it does not take (say <code>POST /api/v1/businesses</code>) answers{" "}
        <code>405 Method Not Allowed</code> with an <code>Allow</code> header listing the methods it does take;{" "}
        <code>HEAD</code> works wherever <code>GET</code> does.
      </p>

      <h2>Licence and privacy</h2>
      <p>
        The business dataset is published under the{" "}
        <a href="https://opendatacommons.org/licenses/odbl/1-0/">Open Database License (ODbL) 1.0</a>: use it freely,
        credit “{config.village.name} Community Platform”, and share alike. Reports are published under the licence
        residents grant in our <a href="/terms">terms of use</a>. No API ever returns a reporter's name or contact
        details.
      </p>
    </>
  );
}

/** /developers: a guide for app builders. */
export async function developerRoutes(app: FastifyInstance): Promise<void> {
  app.get("/developers", { schema: { hide: true } }, async (request, reply) => {
    const ctx = pageContext(request);
    return sendPage(
      reply,
      <Layout
        ctx={ctx}
        title="Developers and open data"
        description="The open APIs, the dataset export, API keys, rate limits and examples."
      >
        <DevelopersContent config={app.civic.config} resources={machineResources(app.civic.features)} />
      </Layout>,
    );
  });
}
