/**
 * The layering of src/ (README "Architecture"), checked by `npm run lint` with dependency-cruiser.
 *
 *   composition  src/app.ts, src/cli.ts, src/server.ts, src/features.ts, src/demo/   (knows every feature)
 *   features     src/<feature>/                                                     (one folder each)
 *   floor        src/core/, src/config.ts                                           (knows no feature)
 *   browser      src/client/                                                        (bundled by esbuild)
 *
 * A feature's public entry is its `index.ts`: another feature imports that file and nothing else of it. Its
 * `manifest.ts` (what it contributes: routes, staff pages, personal data, moderated kinds, jobs, commands) is read
 * by src/features.ts alone.
 */
const FLOOR = "^src/(core/|config\\.ts$)";
const COMPOSITION = "^src/(app|cli|server|features)\\.tsx?$|^src/demo/";
const NOT_FEATURES = ["^src/core/", "^src/config\\.ts$", "^src/demo/", "^src/client/", "^src/[^/]+\\.tsx?$"];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycle anywhere in src/: a cycle makes load order matter and layers meaningless.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "floor-knows-no-feature",
      severity: "error",
      comment:
        "The platform floor (src/core/, src/config.ts) knows no feature: features plug into it through their manifests, and what the floor needs from a feature (site identity, error page content) is passed in.",
      from: { path: FLOOR },
      to: { path: "^src/", pathNot: [FLOOR] },
    },
    {
      name: "demo-data-stays-in-demo",
      severity: "error",
      comment:
        "The demo village is sample data for `npm start` and the seed, never a default: only src/demo/ and the composition root (which runs the seed) read it.",
      from: { path: "^src/", pathNot: ["^src/demo/", COMPOSITION] },
      to: { path: "^src/demo/" },
    },
    {
      name: "features-meet-at-their-entry",
      severity: "error",
      comment:
        "A feature imports another only through that feature's public entry file (src/<feature>/index.ts), so what a feature offers others is written down in one place.",
      from: { path: "^src/([^/]+)/", pathNot: NOT_FEATURES },
      to: {
        path: "^src/[^/]+/",
        pathNot: ["^src/$1/", ...NOT_FEATURES, "^src/[^/]+/index\\.tsx?$"],
      },
    },
    {
      name: "site-pages-show-features-through-manifests",
      severity: "error",
      comment:
        "The site feature's pages (home, 404, static pages, search) import no feature: what a feature shows on them comes through its manifest (`home`, `notFound`, `search`, `menu`, core/web/blocks.ts), so an app built without a feature shows nothing of it.",
      from: { path: "^src/site/(content/|routes\\.tsx$)" },
      to: { path: "^src/[^/]+/", pathNot: ["^src/site/", ...NOT_FEATURES] },
    },
    {
      name: "manifests-are-read-by-the-composition",
      severity: "error",
      comment:
        "A feature's manifest is read by src/features.ts alone; features do not reach into each other's manifest.",
      from: { pathNot: "^src/features\\.ts$|^src/([^/]+)/" },
      to: { path: "^src/[^/]+/manifest\\.tsx?$" },
    },
    {
      name: "features-do-not-import-the-composition",
      severity: "error",
      comment: "Features are plugged in by the composition root; they never import it back.",
      from: { path: "^src/[^/]+/", pathNot: NOT_FEATURES.filter((p) => p !== "^src/core/") },
      to: { path: COMPOSITION },
    },
    {
      name: "forms-are-accepted-once-through-one-module",
      severity: "error",
      comment:
        '"This form was already sent" has one home: src/core/http/single-use.tsx (oncePerForm, alreadySubmitted, formUse). Its storage, form-submissions.ts, is read by nothing else.',
      from: { path: "^src/", pathNot: "^src/core/http/single-use\\.tsx$" },
      to: { path: "^src/core/http/form-submissions\\.ts$" },
    },
    {
      name: "browser-code-stays-in-the-browser",
      severity: "error",
      comment: "src/client/ is bundled for the browser: it imports no server module, and no server module imports it.",
      from: { path: "^src/client/" },
      to: { path: "^src/", pathNot: "^src/client/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.test\\.tsx?$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
