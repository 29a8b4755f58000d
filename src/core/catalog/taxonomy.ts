/**
 * @module core/catalog/taxonomy
 * Lookups over the built-in four-level industry taxonomy ({@link INDUSTRY_TAXONOMY}): node by code, children,
 * parent chain, siblings, nodes of a level, the sector of any code, and the mapping of external sector labels
 * (vendor files, older standards) to sector codes. Codes nest by prefix: sector 2 digits, industry group 4,
 * industry 6, sub-industry 8.
 */

import type { IndustryNode } from "../data/types.js";
import { INDUSTRY_TAXONOMY } from "./taxonomy-data.js";

/** A taxonomy level: 1 sector, 2 industry group, 3 industry, 4 sub-industry. */
export type IndustryLevel = IndustryNode["level"];

/** The wire names of the levels (snake_case), indexed by level. */
export const INDUSTRY_LEVEL_NAMES: Readonly<Record<IndustryLevel, string>> = Object.freeze({
  1: "sector",
  2: "industry_group",
  3: "industry",
  4: "sub_industry",
});

/** The eleven sector codes (shared-decisions.md), ascending. */
export const SECTOR_CODES: readonly number[] = Object.freeze([10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60]);

const BY_ID = new Map<number, IndustryNode>(INDUSTRY_TAXONOMY.map((n) => [n.id, n]));
const CHILDREN = new Map<number, IndustryNode[]>();
for (const n of INDUSTRY_TAXONOMY) {
  if (n.parentId === null) continue;
  const list = CHILDREN.get(n.parentId);
  if (list) list.push(n);
  else CHILDREN.set(n.parentId, [n]);
}

/**
 * The level a code has by its number of digits (2, 4, 6 or 8), or null when it has another shape.
 * @example industryLevelOfCode(4510) // 2
 */
export function industryLevelOfCode(code: number): IndustryLevel | null {
  if (!Number.isInteger(code) || code < 10) return null;
  if (code < 100) return 1;
  if (code < 1_000) return null;
  if (code < 10_000) return 2;
  if (code < 100_000) return null;
  if (code < 1_000_000) return 3;
  if (code < 10_000_000) return null;
  if (code < 100_000_000) return 4;
  return null;
}

/** The node with this code, or undefined when the taxonomy has none. @example findIndustryNode(45)?.name // "Information Technology" */
export function findIndustryNode(code: number): IndustryNode | undefined {
  return BY_ID.get(code);
}

/**
 * The node with this code.
 * @throws {RangeError} when the taxonomy has no such code.
 */
export function getIndustryNode(code: number): IndustryNode {
  const n = BY_ID.get(code);
  if (!n)
    throw new RangeError(
      `getIndustryNode: ${code} is not a code of the industry taxonomy (sectors are ${SECTOR_CODES.join(", ")})`,
    );
  return n;
}

/** The direct children of a node in code order (empty for sub-industries and unknown codes). */
export function industryChildren(code: number): IndustryNode[] {
  return [...(CHILDREN.get(code) ?? [])];
}

/**
 * The ancestors of a node, nearest first: for a sub-industry [industry, group, sector]; empty for a sector.
 * @throws {RangeError} when the code is not in the taxonomy.
 * @example industryParentChain(45102010).map((n) => n.id) // [451020, 4510, 45]
 */
export function industryParentChain(code: number): IndustryNode[] {
  const out: IndustryNode[] = [];
  let n = getIndustryNode(code);
  while (n.parentId !== null) {
    n = getIndustryNode(n.parentId);
    out.push(n);
  }
  return out;
}

/**
 * The other nodes under the same parent (the other sectors for a sector), in code order.
 * @throws {RangeError} when the code is not in the taxonomy.
 */
export function industrySiblings(code: number): IndustryNode[] {
  const n = getIndustryNode(code);
  const pool = n.parentId === null ? industryNodesAtLevel(1) : (CHILDREN.get(n.parentId) ?? []);
  return pool.filter((m) => m.id !== code);
}

/**
 * Every node below a code (children, grandchildren...), depth-first in code order; empty for unknown codes.
 * @example industryDescendants(4530).filter((n) => n.level === 4).length // the sub-industries of 4530
 */
export function industryDescendants(code: number): IndustryNode[] {
  const out: IndustryNode[] = [];
  const walk = (c: number) => {
    for (const child of CHILDREN.get(c) ?? []) {
      out.push(child);
      walk(child.id);
    }
  };
  walk(code);
  return out;
}

/** All nodes of a level, in code order. */
export function industryNodesAtLevel(level: IndustryLevel): IndustryNode[] {
  return INDUSTRY_TAXONOMY.filter((n) => n.level === level);
}

/**
 * The sector code of any 2-, 4-, 6- or 8-digit code (its first two digits).
 * @throws {RangeError} when the code has another shape or its first two digits are not a sector.
 * @example sectorCodeOf(45102010) // 45
 */
export function sectorCodeOf(code: number): number {
  const level = industryLevelOfCode(code);
  if (level === null)
    throw new RangeError(`sectorCodeOf: ${code} is not a 2-, 4-, 6- or 8-digit industry code`);
  const sector = Math.floor(code / 100 ** (level - 1));
  if (!SECTOR_CODES.includes(sector))
    throw new RangeError(
      `sectorCodeOf: ${code} starts with ${sector}, which is not a sector (sectors are ${SECTOR_CODES.join(", ")})`,
    );
  return sector;
}

/**
 * The codes of all four levels for a sub-industry code, as carried by a Security.
 * @throws {RangeError} when the code is not a sub-industry of the taxonomy.
 * @example industryCodesOf(45102010) // { sector: 45, industryGroup: 4510, industry: 451020, subIndustry: 45102010 }
 */
export function industryCodesOf(subIndustry: number): {
  sector: number;
  industryGroup: number;
  industry: number;
  subIndustry: number;
} {
  const n = BY_ID.get(subIndustry);
  if (n?.level !== 4) throw new RangeError(`industryCodesOf: ${subIndustry} is not a sub-industry code`);
  return {
    sector: Math.floor(subIndustry / 1_000_000),
    industryGroup: Math.floor(subIndustry / 10_000),
    industry: Math.floor(subIndustry / 100),
    subIndustry,
  };
}

// Sector labels seen in vendor files and in older and current standards, normalized (see normalizeLabel).
const SECTOR_LABELS: ReadonlyMap<string, number> = new Map<string, number>([
  ["energy", 10],
  ["materials", 15],
  ["basic materials", 15],
  ["industrials", 20],
  ["industrial", 20],
  ["consumer discretionary", 25],
  ["consumer cyclical", 25],
  ["consumer cyclicals", 25],
  ["consumer staples", 30],
  ["consumer defensive", 30],
  ["consumer non cyclicals", 30],
  ["health care", 35],
  ["healthcare", 35],
  ["financials", 40],
  ["financial", 40],
  ["financial services", 40],
  ["information technology", 45],
  ["technology", 45],
  ["tech", 45],
  ["it", 45],
  ["communication services", 50],
  ["communications services", 50],
  ["communications", 50],
  ["telecommunication services", 50],
  ["telecommunications services", 50],
  ["telecommunications", 50],
  ["telecom services", 50],
  ["telecom", 50],
  ["utilities", 55],
  ["utility", 55],
  ["real estate", 60],
]);

function normalizeLabel(label: string): string {
  return label
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** The sector labels {@link sectorCodeForName} accepts (normalized), for error messages. */
export function knownSectorLabels(): string[] {
  return [...SECTOR_LABELS.keys()];
}

/**
 * The sector code for an external sector label, case-insensitively, or null when the label is not known.
 * Accepts the current eleven names, older labels ("Telecommunication Services", "Telecommunications Services"
 * -> 50), common vendor variants ("Healthcare", "Technology", "Consumer Cyclical", "Basic Materials",
 * "Financial Services") and a sector code written as text ("45").
 * @example sectorCodeForName("Telecommunication Services") // 50
 * @example sectorCodeForName("HEALTHCARE") // 35
 */
export function sectorCodeForName(name: string): number | null {
  const key = normalizeLabel(name);
  if (/^\d{2}$/.test(key)) {
    const code = Number(key);
    return SECTOR_CODES.includes(code) ? code : null;
  }
  return SECTOR_LABELS.get(key) ?? null;
}
