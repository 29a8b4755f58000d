import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "..", "src");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (p.endsWith(".ts") && !p.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

const IMPORT_RE =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) specs.push((m[1] ?? m[2])!);
  return specs;
}

/** Top-level area of a file under src: "core/numeric", "store", ... */
function areaOf(file: string): string {
  const parts = relative(SRC, file).split("/");
  if (parts[0] === "core" && parts.length > 2) return `core/${parts[1]}`;
  return parts.length > 1 ? parts[0]! : "root";
}

const files = sourceFiles(SRC);

describe("layering", () => {
  it("keeps src/core free of I/O, edge libraries and upper layers", () => {
    const bad: string[] = [];
    for (const f of files.filter((f) => relative(SRC, f).startsWith("core/"))) {
      for (const spec of importsOf(f)) {
        const isRelative = spec.startsWith(".");
        const target = isRelative ? relative(SRC, resolve(f, "..", spec)) : spec;
        if (isRelative ? !target.startsWith("core/") : spec !== "decimal.js")
          bad.push(`${relative(SRC, f)} -> ${spec}`);
      }
      const text = readFileSync(f, "utf8");
      if (/Date\.now\(|new Date\(\)|Math\.random\(|console\.|process\./.test(text))
        bad.push(`${relative(SRC, f)}: clock/random/console/process`);
    }
    expect(bad).toEqual([]);
  });

  it("lets only src/store import better-sqlite3", () => {
    const bad = files
      .filter((f) => areaOf(f) !== "store")
      .filter((f) => importsOf(f).includes("better-sqlite3"))
      .map((f) => relative(SRC, f));
    expect(bad).toEqual([]);
  });

  it("lets only src/store import pg, and loads src/store/pg only on demand (SQLite users never load pg)", () => {
    const outside = files
      .filter((f) => areaOf(f) !== "store")
      .filter((f) => importsOf(f).includes("pg"))
      .map((f) => relative(SRC, f));
    expect(outside).toEqual([]);
    // No module outside src/store/pg reaches pg through static value imports (`import type` and `await import()`
    // do not load it): open.ts loads the PostgreSQL store with `await import(...)`.
    const staticValueImports = (file: string): string[] => {
      const text = readFileSync(file, "utf8");
      const specs: string[] = [];
      for (const m of text.matchAll(
        /(?:^|\n)\s*(?:import|export)\s+(?!type\s)[^;]*?from\s+["']([^"']+)["']/g,
      ))
        specs.push(m[1]!);
      return specs;
    };
    const reachesPg = (file: string, seen: Set<string>): boolean => {
      if (seen.has(file)) return false;
      seen.add(file);
      for (const spec of staticValueImports(file)) {
        if (spec === "pg") return true;
        if (spec.startsWith(".") && reachesPg(resolve(file, "..", spec.replace(/\.js$/, ".ts")), seen))
          return true;
      }
      return false;
    };
    const eager = files
      .filter((f) => !relative(SRC, f).startsWith("store/pg/"))
      .filter((f) => reachesPg(f, new Set()))
      .map((f) => relative(SRC, f));
    expect(eager).toEqual([]);
  });

  it("never imports server/ or cli/ from other layers (the CLI may start the server)", () => {
    const bad: string[] = [];
    for (const f of files) {
      const area = areaOf(f);
      for (const spec of importsOf(f).filter((s) => s.startsWith("."))) {
        const target = relative(SRC, resolve(f, "..", spec));
        const targetArea = target.split("/")[0];
        const allowed = area === targetArea || (area === "cli" && targetArea === "server");
        if ((targetArea === "server" || targetArea === "cli") && !allowed)
          bad.push(`${relative(SRC, f)} -> ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("has no import cycles", () => {
    const graph = new Map<string, string[]>();
    for (const f of files) {
      const deps = importsOf(f)
        .filter((s) => s.startsWith("."))
        .map((s) => resolve(f, "..", s).replace(/\.js$/, ".ts"));
      graph.set(f, deps);
    }
    const state = new Map<string, 1 | 2>();
    const cycles: string[] = [];
    const visit = (n: string, stack: string[]) => {
      if (state.get(n) === 2) return;
      if (state.get(n) === 1) {
        cycles.push([...stack.slice(stack.indexOf(n)), n].map((p) => relative(SRC, p)).join(" -> "));
        return;
      }
      state.set(n, 1);
      for (const d of graph.get(n) ?? []) visit(d, [...stack, n]);
      state.set(n, 2);
    };
    for (const f of files) visit(f, []);
    expect(cycles).toEqual([]);
  });
});
