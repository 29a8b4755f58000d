/**
 * @module server/docs-page
 * The API reference page served at `/api/v1/docs`: static HTML rendered on the server from the OpenAPI document,
 * with inline CSS, no script and no external resource, so it works offline and behind any firewall.
 */
import type { OpenApiDocument, OpenApiOperation } from "./openapi.js";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function anchor(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, "-");
}

/** A `$ref` as a link to its schema on the page; other schemas as compact JSON. */
function schemaLink(schema: unknown): string {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  if (typeof ref === "string") {
    const name = ref.split("/").pop()!;
    const kind = ref.includes("/responses/") ? "response" : "schema";
    return `<a href="#${kind}-${anchor(name)}"><code>${escapeHtml(name)}</code></a>`;
  }
  return `<code>${escapeHtml(JSON.stringify(schema))}</code>`;
}

function paragraphs(text: string | undefined): string {
  if (!text) return "";
  return text
    .split(/\n\n+/)
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join("");
}

function renderOperation(method: string, path: string, op: OpenApiOperation): string {
  const id = `op-${anchor(op.operationId)}`;
  const badge = op["x-lotwise-spec-endpoint"]
    ? `<span class="tag">endpoint ${op["x-lotwise-spec-endpoint"]}</span>`
    : op["x-lotwise-extension"]
      ? '<span class="tag ext">extension</span>'
      : "";
  const params = (op.parameters ?? []) as {
    name: string;
    in: string;
    required: boolean;
    description?: string;
  }[];
  const paramRows = params
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? "yes" : "no"}</td><td>${escapeHtml(p.description ?? "")}</td></tr>`,
    )
    .join("");
  const body = op.requestBody as { content: Record<string, { schema: unknown }> } | undefined;
  const bodyHtml = body
    ? `<h4>Body</h4><ul>${Object.entries(body.content)
        .map(([type, media]) => `<li><code>${escapeHtml(type)}</code>: ${schemaLink(media.schema)}</li>`)
        .join("")}</ul>`
    : "";
  const responses = Object.entries(op.responses)
    .map(([status, r]) => {
      const resp = r as {
        $ref?: string;
        description?: string;
        content?: Record<string, { schema: unknown }>;
      };
      if (resp.$ref) return `<tr><td>${status}</td><td>${schemaLink(resp)}</td></tr>`;
      const media = resp.content ? Object.entries(resp.content)[0] : undefined;
      const what = media ? ` ${schemaLink(media[1].schema)}` : "";
      return `<tr><td>${status}</td><td>${escapeHtml(resp.description ?? "")}${what}</td></tr>`;
    })
    .join("");
  return `<section class="op" id="${id}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code> ${badge}</h3>
<p class="summary">${escapeHtml(op.summary)}${op.security && op.security.length === 0 ? " (no API key needed)" : ""}</p>
${paragraphs(op.description)}
${paramRows ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>meaning</th></tr>${paramRows}</table>` : ""}
${bodyHtml}
<h4>Responses</h4><table><tr><th>status</th><th>body</th></tr>${responses}</table>
</section>`;
}

/**
 * The HTML reference of an OpenAPI document.
 * @example renderDocsPage(buildOpenApiDocument(API_ROUTES)).startsWith("<!doctype html>") // true
 */
export function renderDocsPage(doc: OpenApiDocument): string {
  const ops: { method: string; path: string; op: OpenApiOperation }[] = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) ops.push({ method, path, op });
  const byTag = new Map<string, typeof ops>();
  for (const o of ops) {
    const tag = o.op.tags[0] ?? "Other";
    byTag.set(tag, [...(byTag.get(tag) ?? []), o]);
  }
  const toc = [...byTag]
    .map(
      ([tag, list]) =>
        `<li>${escapeHtml(tag)}<ul>${list
          .map(
            (o) =>
              `<li><a href="#op-${anchor(o.op.operationId)}"><span class="method ${o.method}">${o.method.toUpperCase()}</span> ${escapeHtml(o.path)}</a></li>`,
          )
          .join("")}</ul></li>`,
    )
    .join("");
  const sections = [...byTag]
    .map(
      ([tag, list]) =>
        `<h2>${escapeHtml(tag)}</h2>${list.map((o) => renderOperation(o.method, o.path, o.op)).join("")}`,
    )
    .join("");
  const responses = Object.entries(doc.components.responses)
    .map(([name, r]) => {
      const resp = r as { description: string; content: Record<string, { example?: unknown }> };
      const example = resp.content["application/json"]?.example;
      return `<section id="response-${anchor(name)}"><h3>${escapeHtml(name)}</h3><p>${escapeHtml(resp.description)}</p>${
        example === undefined ? "" : `<pre>${escapeHtml(JSON.stringify(example, null, 2))}</pre>`
      }</section>`;
    })
    .join("");
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, schema]) => {
      const description = (schema as { description?: string }).description;
      // Links inside the schema JSON point at other schemas of the page.
      const json = escapeHtml(JSON.stringify(schema, null, 2)).replace(
        /&quot;#\/components\/schemas\/([A-Za-z0-9_]+)&quot;/g,
        (_m, id: string) => `&quot;<a href="#schema-${anchor(id)}">#/components/schemas/${id}</a>&quot;`,
      );
      return `<details id="schema-${anchor(name)}"><summary><code>${escapeHtml(name)}</code>${
        description ? ` ${escapeHtml(description)}` : ""
      }</summary><pre>${json}</pre></details>`;
    })
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} API ${escapeHtml(doc.info.version)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:72rem;padding:1rem 2rem;color:#1d232a;line-height:1.45}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
pre{background:#f5f6f8;padding:.75rem;overflow:auto;border-radius:4px}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d5d9de;padding:.25rem .5rem;text-align:left;vertical-align:top}
.op{border-top:1px solid #d5d9de;padding-top:.5rem;margin-top:1rem}.summary{font-weight:600}
.method{display:inline-block;min-width:4.2rem;text-align:center;border-radius:3px;color:#fff;font-size:.8em;padding:.1rem .3rem;background:#555}
.get{background:#2f6fb0}.post{background:#2e8b57}.patch{background:#b07a1f}.delete{background:#b03a2e}.put{background:#7a4fb0}
.tag{font-size:.75em;border:1px solid #2f6fb0;color:#2f6fb0;border-radius:3px;padding:0 .3rem}.tag.ext{border-color:#777;color:#777}
details{margin:.25rem 0}summary{cursor:pointer}
</style></head><body>
<h1>${escapeHtml(doc.info.title)} API <small>${escapeHtml(doc.info.version)}</small></h1>
${paragraphs(doc.info.description)}
<p>Machine-readable document: <a href="openapi.json"><code>/api/v1/openapi.json</code></a> (OpenAPI ${escapeHtml(doc.openapi)}).
Security scheme <code>ProAPIToken</code>: header <code>X-Api-Key</code>.</p>
<h2>Operations</h2><ul>${toc}</ul>
${sections}
<h2>Error responses</h2>${responses}
<h2>Schemas</h2>${schemas}
</body></html>
`;
}
