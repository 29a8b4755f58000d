/**
 * @module test/helpers/doc-blocks
 * Fenced code blocks of a Markdown page, for the tests that run the examples of docs/ pages.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/** One fenced block: its language, its text and the 1-based line of its opening fence. */
export interface DocBlock {
  lang: string;
  code: string;
  line: number;
}

/** The fenced blocks of a Markdown text, in order (```lang ... ```; fences inside blocks are not nested). */
export function fencedBlocks(markdown: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```([A-Za-z0-9_-]*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`unclosed code block opened at line ${start + 1}`);
    blocks.push({ lang: open[1]!, code: body.length ? `${body.join("\n")}\n` : "", line: start + 1 });
  }
  return blocks;
}

/** The repository's root. */
export const REPO_ROOT = resolve(import.meta.dirname, "..", "..");

/** A docs/ page's text. */
export function readDoc(name: string): string {
  return readFileSync(resolve(REPO_ROOT, "docs", name), "utf8");
}
