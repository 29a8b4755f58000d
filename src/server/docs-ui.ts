/**
 * @module server/docs-ui
 * The API reference page served at `/api/v1/docs`: Swagger UI (the `swagger-ui-dist` package, static files) run
 * over the service's own OpenAPI document, with "Try it out" against the serving host and an Authorize box for
 * the `X-Api-Key` scheme. Every asset is served by lotwise itself from `node_modules/swagger-ui-dist` under
 * `/api/v1/docs/assets/` (no CDN, works offline), and the page carries a Content-Security-Policy that allows
 * nothing but those assets, the document and calls to the same origin (docs/http.md, "API reference page").
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";

/** Path under which the page's scripts, stylesheet and icons are served (public, like the page). */
export const DOCS_ASSETS_PATH = "/api/v1/docs/assets/";

/**
 * Content-Security-Policy of the page and its assets: scripts and stylesheets from our origin only (no inline script
 * or style, no eval), requests (the document, "Try it out") to our origin only, no frames, forms, plugins or
 * base-URL changes. The one allowance is `img-src data:`: Swagger UI's stylesheet draws its icons (arrows, locks)
 * as data: SVG images. Swagger UI needs neither 'unsafe-inline' nor 'unsafe-eval' (React sets styles through the
 * CSSOM, which style-src does not govern): checked in headless Chromium with a securitypolicyviolation listener
 * while loading, authorizing, trying a call and opening the schemas (docs/http.md).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers of the page and its assets besides Content-Type. */
export const DOCS_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": DOCS_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** Our initializer (an asset of its own: the CSP allows no inline script). */
const INIT_SCRIPT = `"use strict";
// lotwise API reference: Swagger UI over the service's OpenAPI document (served by lotwise, no CDN).
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-openapi"),
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 2,
    displayRequestDuration: true,
    filter: true,
    showExtensions: true,
    showCommonExtensions: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
    requestSnippetsEnabled: true,
    // No call to the public validator service (and no badge image from it): the page stays offline.
    validatorUrl: null
  });
});
`;

/** A few rules over Swagger UI's stylesheet: the lotwise header above the reference. */
const PAGE_CSS = `body{margin:0;background:#fafafa}
.lotwise-header{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;padding:12px 20px;background:#1d232a;color:#fff;display:flex;gap:1.5rem;align-items:baseline}
.lotwise-header strong{font-size:1.1rem}
.lotwise-header a{color:#9cc7f0}
`;

interface Asset {
  /** Media type with charset where textual. */
  type: string;
  /** Where the bytes come from: a file of swagger-ui-dist, or text of this module. */
  source: { file: string } | { text: string };
}

const ASSETS: Readonly<Record<string, Asset>> = {
  "swagger-ui.css": { type: "text/css; charset=utf-8", source: { file: "swagger-ui.css" } },
  "swagger-ui-bundle.js": {
    type: "text/javascript; charset=utf-8",
    source: { file: "swagger-ui-bundle.js" },
  },
  "favicon-32x32.png": { type: "image/png", source: { file: "favicon-32x32.png" } },
  "favicon-16x16.png": { type: "image/png", source: { file: "favicon-16x16.png" } },
  "lotwise-docs.js": { type: "text/javascript; charset=utf-8", source: { text: INIT_SCRIPT } },
  "lotwise-docs.css": { type: "text/css; charset=utf-8", source: { text: PAGE_CSS } },
};

/** Names of the files served under {@link DOCS_ASSETS_PATH}. */
export const DOCS_ASSET_NAMES: readonly string[] = Object.keys(ASSETS);

/** A served asset: its bytes (and gzip form, compressed once), media type and ETag. */
export interface DocsAsset {
  type: string;
  body: Uint8Array;
  gzip: Uint8Array;
  etag: string;
}

let swaggerDir: string | undefined;
let swaggerVersion: string | undefined;

/** The folder of the installed swagger-ui-dist package (resolved once, from this module's location). */
function swaggerUiDist(): { dir: string; version: string } {
  if (swaggerDir === undefined || swaggerVersion === undefined) {
    const pkg = createRequire(import.meta.url).resolve("swagger-ui-dist/package.json");
    swaggerDir = dirname(pkg);
    swaggerVersion = (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
  }
  return { dir: swaggerDir, version: swaggerVersion };
}

/** Version of the Swagger UI the page runs (of the installed swagger-ui-dist). */
export function swaggerUiVersion(): string {
  return swaggerUiDist().version;
}

const loaded = new Map<string, DocsAsset>();

/**
 * An asset of the page by file name, read once and kept; undefined for any other name (no path is ever
 * joined from the request, so nothing outside the list can be read).
 * @example docsAsset("swagger-ui.css")?.type // "text/css; charset=utf-8"
 */
export function docsAsset(name: string): DocsAsset | undefined {
  if (!Object.hasOwn(ASSETS, name)) return undefined;
  const cached = loaded.get(name);
  if (cached) return cached;
  const asset = ASSETS[name]!;
  const { dir, version } = swaggerUiDist();
  const body =
    "file" in asset.source
      ? new Uint8Array(readFileSync(join(dir, asset.source.file)))
      : new TextEncoder().encode(asset.source.text);
  const entry: DocsAsset = {
    type: asset.type,
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"swagger-ui-dist-${version}-${name}-${body.byteLength}"`,
  };
  loaded.set(name, entry);
  return entry;
}

/**
 * The HTML of the page: Swagger UI's stylesheet and bundle, our initializer, and the document's URL, all
 * relative to `/api/v1/docs` (so the page also works behind a proxy that mounts the service under a prefix).
 * @example docsPageHtml("lotwise", "0.1.0").includes('data-openapi="openapi.json"') // true
 */
export function docsPageHtml(title: string, version: string): string {
  const a = (name: string) => `docs/assets/${name}`;
  const esc = (s: string) =>
    s.replace(
      /[&<>"']/g,
      (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
    );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} API ${esc(version)} reference</title>
<link rel="stylesheet" href="${a("swagger-ui.css")}">
<link rel="stylesheet" href="${a("lotwise-docs.css")}">
<link rel="icon" type="image/png" sizes="32x32" href="${a("favicon-32x32.png")}">
<link rel="icon" type="image/png" sizes="16x16" href="${a("favicon-16x16.png")}">
</head>
<body>
<header class="lotwise-header"><strong>${esc(title)} API ${esc(version)}</strong>
<span>Authorize with an API key of your organization (X-Api-Key), then "Try it out" on any operation.</span>
<a href="openapi.json">openapi.json</a></header>
<noscript><p>This reference needs JavaScript. The machine-readable document is <a href="openapi.json">/api/v1/openapi.json</a>.</p></noscript>
<div id="swagger-ui" data-openapi="openapi.json"></div>
<script src="${a("swagger-ui-bundle.js")}"></script>
<script src="${a("lotwise-docs.js")}"></script>
</body>
</html>
`;
}
