/**
 * @module server/http-docs
 * The generated parts of docs/http.md: the table of routes (one per operation of the operation table, with the
 * error codes each one answers) and the table of every error code with its status. `test/http-docs.test.ts` checks
 * that the page holds exactly this text (`npm run docs:http` rewrites it), so the page cannot drift from the table.
 */
import type * as z from "zod";
import { contractRegistry, ERROR_CODES, type ErrorCode } from "../contract/index.js";
import type { AnyRoute } from "./route.js";
import { pathParameters } from "./route.js";
import { API_ROUTES } from "./routes.js";

/**
 * Every error code a route can answer: those every route of its shape answers (key, path parameters, body, query,
 * rate limit, worker pool, store), then the operation's own.
 */
export function routeErrorCodes(route: AnyRoute): ErrorCode[] {
  const codes: ErrorCode[] = [];
  const params = pathParameters(route.path);
  if (!route.public) codes.push("unauthorized");
  if (params.includes("organization_uuid")) codes.push("organization_not_found");
  if (params.some((p) => p !== "organization_uuid")) codes.push("invalid_path_parameter");
  if (route.rateLimited) codes.push("rate_limited");
  if (route.query || route.body) codes.push("validation_error");
  if (route.body || route.upload) codes.push("unsupported_media_type", "payload_too_large", "malformed_body");
  if (!route.public) codes.push("store_busy");
  if (route.heavy) codes.push("service_unavailable");
  codes.push("internal_error");
  for (const code of route.errorCodes ?? []) if (!codes.includes(code)) codes.push(code);
  return codes;
}

const BEGIN = (name: string) => `<!-- BEGIN GENERATED ${name} (npm run docs:http) -->`;
const END = (name: string) => `<!-- END GENERATED ${name} -->`;

function idOf(schema: z.ZodType | undefined): string | undefined {
  return schema === undefined ? undefined : contractRegistry.get(schema)?.id;
}

function queryNames(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return Object.keys(shape ?? {});
}

/** A Markdown table with padded columns. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function routeRow(route: AnyRoute): string[] {
  let path = route.path.replace("{organization_uuid}", "{org}");
  if (route.query) {
    const names = queryNames(route.query);
    path += `?${names
      .slice(0, 3)
      .map((n) => `${n}=`)
      .join("&")}${names.length > 3 ? "&..." : ""}`;
  }
  const out = idOf(route.response.schema);
  const success =
    route.response.status === 204
      ? "204, no body"
      : `${route.response.status}${out !== undefined ? ` \`${out}\`` : ""}`;
  let body = "";
  if (route.body) {
    body = `\`${idOf(route.body.schema) ?? "JSON"}\``;
    const accept = route.body.accept ?? ["json"];
    if (accept.length > 1) body += ` (${accept.map((a) => (a === "json" ? "JSON" : a)).join(", ")})`;
    const files = Object.keys(route.body.files ?? {});
    if (files.length > 0)
      body += ` or CSV file part${files.length > 1 ? "s" : ""} ${files.map((f) => `\`${f}\``).join(", ")}`;
    if (route.body.maxBytes !== undefined) body += ` (up to ${route.body.maxBytes / 1024 / 1024} MiB)`;
  } else if (route.upload) body = "a file: `text/csv` or multipart";
  const what =
    route.specEndpoint !== undefined
      ? `**endpoint ${route.specEndpoint}**: ${route.summary}`
      : `extension: ${route.summary}`;
  const own = (route.errorCodes ?? []).map((c) => `\`${c}\``).join(", ");
  return [route.method, `\`${path}\``, success, body, what, own];
}

/** The routes table: every operation route, then the two documentation routes. */
export function routesTableMarkdown(routes: readonly AnyRoute[] = API_ROUTES): string {
  const rows = routes.map(routeRow);
  rows.push(
    ["GET", "`/api/v1/openapi.json`", "200", "", "OpenAPI 3.1 document, no key", ""],
    ["GET", "`/api/v1/docs`", "200 HTML", "", "reference page, no key", ""],
  );
  return table(["Method", "Path", "Success", "Body", "Operation", "Its own error codes"], rows);
}

/** The error-code table: every code of the catalog with its status and when it is answered. */
export function errorCodesTableMarkdown(): string {
  const rows = Object.entries(ERROR_CODES)
    .map(([code, info]) => [String(info.status), `\`${code}\``, info.when])
    .sort((a, b) => Number(a[0]) - Number(b[0]));
  return table(["Status", "Code", "When"], rows);
}

/** The generated sections of docs/http.md, by marker name. */
export function generatedHttpDocs(): Record<string, string> {
  return { routes: routesTableMarkdown(), "error-codes": errorCodesTableMarkdown() };
}

/**
 * The page with each generated section replaced by its current text.
 * @throws {Error} when a section's markers are missing.
 */
export function renderHttpDocs(page: string): string {
  let out = page;
  for (const [name, text] of Object.entries(generatedHttpDocs())) {
    const begin = out.indexOf(BEGIN(name));
    const end = out.indexOf(END(name));
    if (begin < 0 || end < begin)
      throw new Error(`docs/http.md: markers of the generated section ${name} missing`);
    out = `${out.slice(0, begin + BEGIN(name).length)}\n\n${text}\n\n${out.slice(end)}`;
  }
  return out;
}
