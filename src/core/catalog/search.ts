/**
 * @module core/catalog/search
 * Search of the built-in industry taxonomy by words: each query is normalized, split into words (stop words
 * dropped), stemmed and expanded with synonyms, then every node is scored by how it matches, best first.
 * Every match carries a filter expression ready for a theme methodology.
 */
import type { IndustryNode } from "../data/types.js";
import { ValidationError } from "../errors.js";
import { editDistance } from "../themes/expression/suggest.js";
import { INDUSTRY_SYNONYMS } from "./synonyms.js";
import {
  findIndustryNode,
  INDUSTRY_LEVEL_NAMES,
  industryChildren,
  industryNodesAtLevel,
  industryParentChain,
  industrySiblings,
} from "./taxonomy.js";
import { INDUSTRY_TAXONOMY } from "./taxonomy-data.js";
import { normalizeText, searchWords, stem } from "./text.js";

/** An industry classification match (the wire shape of endpoint 9). */
export interface IndustryMatch {
  /** "L1" sector, "L2" industry group, "L3" industry, "L4" sub-industry. */
  level: "L1" | "L2" | "L3" | "L4";
  /** Classification code, e.g. 45 or 45102010. */
  id: number;
  name: string;
  /** Filter expression selecting the classification, e.g. `industry_group = 4510`. */
  expression: string;
  /** Name of the parent; null for a sector. */
  parent: string | null;
  /** Name of the sector above; null for a sector. */
  parent_l1: string | null;
  /** Name of the industry group above; null for sectors and industry groups. */
  parent_l2: string | null;
  /** Names of the direct children, in code order. */
  children: string[];
  /** Names of the other nodes under the same parent (the other sectors for a sector), in code order. */
  siblings: string[];
}

/** Longest accepted query, in characters (the contract's limit). */
export const MAX_INDUSTRY_QUERY_LENGTH = 200;
/** Most distinct searchable words in a query. */
export const MAX_INDUSTRY_QUERY_WORDS = 12;
/** Most matches returned by default. */
export const DEFAULT_INDUSTRY_MATCH_LIMIT = 20;

/**
 * Score of each kind of match (higher ranks first). A match reached through a synonym scores
 * {@link SYNONYM_PENALTY} less than the same kind of direct match.
 */
export const MATCH_SCORES = Object.freeze({
  /** The query's words are the node's name (or the query is the node's code). */
  exactName: 100,
  /** The query's stems are the name's stems ("semiconductor" for "Semiconductors"). */
  stemmedName: 90,
  /** The query's words are one of the node's keywords ("tech", "big pharma"). */
  exactKeyword: 80,
  /** The query's stems are one of the keyword's stems ("drillers" for "drilling"). */
  stemmedKeyword: 75,
  /** Every query stem occurs in the name or keywords (+5 when all are in the name). */
  allWords: 60,
  /** Some query words match, or match as a prefix or with a typo: 20 + 20 x the fraction matched. */
  partial: 20,
  /** Every query stem occurs in the description only. */
  description: 10,
});
/** Points a synonym match loses against a direct one. */
export const SYNONYM_PENALTY = 3;

/** Options of {@link searchIndustryTaxonomy}. */
export interface IndustrySearchOptions {
  /** Most matches returned. @default DEFAULT_INDUSTRY_MATCH_LIMIT */
  limit?: number;
}

/** Result of {@link searchIndustryTaxonomy}. */
export interface IndustrySearchResult {
  /** The query as given. */
  query: string;
  /** Best first. */
  matches: IndustryMatch[];
  /** Score of each match (see {@link MATCH_SCORES}). */
  scores: number[];
  /** `full` when at least one node matches every word, `partial` for near matches only, `none`. */
  quality: "full" | "partial" | "none";
  /** How to use the matches, or how to rephrase a query that found nothing. */
  hint: string;
}

interface IndexedNode {
  node: IndustryNode;
  namePhrase: string;
  nameStemPhrase: string;
  nameStems: Set<string>;
  keywordPhrases: Set<string>;
  keywordStemPhrases: Set<string>;
  /** Stems of the name and the keywords. */
  stems: Set<string>;
  descriptionStems: Set<string>;
}

const stems = (words: readonly string[]) => words.map(stem);

const INDEX: readonly IndexedNode[] = INDUSTRY_TAXONOMY.map((node) => {
  const nameWords = searchWords(node.name);
  const nameStems = stems(nameWords);
  const keywordWords = node.keywords.map((k) => searchWords(k));
  const all = new Set([...nameStems, ...keywordWords.flatMap(stems)]);
  return {
    node,
    namePhrase: nameWords.join(" "),
    nameStemPhrase: nameStems.join(" "),
    nameStems: new Set(nameStems),
    keywordPhrases: new Set(keywordWords.map((w) => w.join(" "))),
    keywordStemPhrases: new Set(keywordWords.map((w) => stems(w).join(" "))),
    stems: all,
    descriptionStems: new Set(stems(searchWords(node.description))),
  };
});

/** Words users may mean, for "did you mean": names, keywords and synonym words (3+ letters). */
const VOCABULARY: readonly string[] = [
  ...new Set(
    [
      ...INDUSTRY_TAXONOMY.flatMap((n) => [
        ...searchWords(n.name),
        ...n.keywords.flatMap((k) => searchWords(k)),
      ]),
      ...INDUSTRY_SYNONYMS.keys(),
    ].filter((w) => w.length >= 3),
  ),
].sort();

/** Typo allowance of a stem: none up to 4 letters, 1 edit up to 7, 2 beyond. */
function typoLimit(s: string): number {
  return s.length >= 8 ? 2 : s.length >= 5 ? 1 : 0;
}

/** Every stem of the names and keywords. */
const STEM_VOCABULARY: readonly string[] = [...new Set(INDEX.flatMap((e) => [...e.stems]))];

/**
 * The vocabulary stems a query stem matches loosely: itself, those it is a prefix of (3+ letters), and those
 * within its typo allowance. Memoized per search, so scoring never repeats an edit distance.
 */
class LooseMatcher {
  private readonly cache = new Map<string, ReadonlySet<string>>();

  of(s: string): ReadonlySet<string> {
    let hits = this.cache.get(s);
    if (hits === undefined) {
      const limit = typoLimit(s);
      const found = new Set<string>([s]);
      for (const t of STEM_VOCABULARY) {
        if (s.length >= 3 && t.startsWith(s)) found.add(t);
        else if (limit > 0 && Math.abs(t.length - s.length) <= limit && editDistance(s, t) <= limit)
          found.add(t);
      }
      hits = found;
      this.cache.set(s, hits);
    }
    return hits;
  }

  /** True when `s` matches a stem of `pool` loosely. */
  matches(s: string, pool: ReadonlySet<string>): boolean {
    for (const t of this.of(s)) if (pool.has(t)) return true;
    return false;
  }
}

interface Scored {
  entry: IndexedNode;
  score: number;
  /** Fraction of the node's name stems the query matched (specificity). */
  coverage: number;
}

function scoreVariant(
  entry: IndexedNode,
  words: readonly string[],
  penalty: number,
  loose: LooseMatcher,
): Scored {
  const qStems = stems(words);
  const phrase = words.join(" ");
  const stemPhrase = qStems.join(" ");
  let score = 0;
  if (phrase === entry.namePhrase) score = MATCH_SCORES.exactName;
  else if (stemPhrase === entry.nameStemPhrase) score = MATCH_SCORES.stemmedName;
  else if (entry.keywordPhrases.has(phrase)) score = MATCH_SCORES.exactKeyword;
  else if (entry.keywordStemPhrases.has(stemPhrase)) score = MATCH_SCORES.stemmedKeyword;
  else if (qStems.every((s) => entry.stems.has(s)))
    score = MATCH_SCORES.allWords + (qStems.every((s) => entry.nameStems.has(s)) ? 5 : 0);
  else {
    const matched = qStems.filter((s) => loose.matches(s, entry.stems)).length;
    if (matched > 0) score = MATCH_SCORES.partial + (20 * matched) / qStems.length;
    else if (qStems.every((s) => entry.descriptionStems.has(s))) score = MATCH_SCORES.description;
  }
  if (score === 0) return { entry, score: 0, coverage: 0 };
  let covered = 0;
  for (const n of entry.nameStems) if (qStems.some((s) => loose.of(s).has(n))) covered++;
  const coverage = entry.nameStems.size === 0 ? 0 : covered / entry.nameStems.size;
  return { entry, score: score - penalty, coverage };
}

/** The query's wordings: as typed, then each word replaced by each of its synonyms. */
function variants(words: readonly string[]): { words: string[]; penalty: number }[] {
  const out = [{ words: [...words], penalty: 0 }];
  words.forEach((w, i) => {
    for (const alternative of INDUSTRY_SYNONYMS.get(w) ?? []) {
      out.push({
        words: [...words.slice(0, i), ...searchWords(alternative), ...words.slice(i + 1)],
        penalty: SYNONYM_PENALTY,
      });
    }
  });
  return out;
}

const LEVELS = ["L1", "L2", "L3", "L4"] as const;

/**
 * The wire shape of a taxonomy node: level, code, name, its filter expression (`sector = 45`,
 * `industry_group = 4510`, `industry = 451020`, `sub_industry = 45102010`), parents, children and siblings.
 * @throws {RangeError} when the code is not in the taxonomy.
 * @example industryMatchOf(4510).expression // "industry_group = 4510"
 */
export function industryMatchOf(code: number): IndustryMatch {
  const node = findIndustryNode(code);
  if (node === undefined)
    throw new RangeError(`industryMatchOf: ${code} is not a code of the industry taxonomy`);
  const chain = industryParentChain(code); // nearest first
  const sector = chain.find((n) => n.level === 1);
  const group = chain.find((n) => n.level === 2);
  return {
    level: LEVELS[node.level - 1]!,
    id: node.id,
    name: node.name,
    expression: `${INDUSTRY_LEVEL_NAMES[node.level]} = ${node.id}`,
    parent: chain[0]?.name ?? null,
    parent_l1: sector?.name ?? null,
    parent_l2: group?.name ?? null,
    children: industryChildren(code).map((n) => n.name),
    siblings: industrySiblings(code).map((n) => n.name),
  };
}

/**
 * Searches the industry taxonomy.
 *
 * Ranking: each node gets the best score of the query and of its synonym variants ({@link MATCH_SCORES}:
 * exact name > stemmed name > exact keyword > stemmed keyword > all words found > partial > description);
 * ties go to the node whose name the query covers most, then to the broader level (a sector before its
 * groups: the broadest filter that matches), then to the lower code. A number that is a taxonomy code
 * (`4510`) matches that node exactly. When some node matches every word, partial and description matches are
 * left out; otherwise the near matches are returned with a "did you mean" hint.
 *
 * @throws {ValidationError} code `invalid_query` (issue path `query`) for an empty or blank query, one longer
 *   than {@link MAX_INDUSTRY_QUERY_LENGTH} or with more than {@link MAX_INDUSTRY_QUERY_WORDS} distinct words,
 *   or one without a searchable word (only stop words, punctuation or
 *   numbers that are not codes).
 * @throws {TypeError} when `query` is not a string.
 * @example searchIndustryTaxonomy("semiconductors").matches[0] // { level: "L3", id: 453010, name: "Semiconductors", expression: "industry = 453010", ... }
 */
export function searchIndustryTaxonomy(
  query: string,
  options: IndustrySearchOptions = {},
): IndustrySearchResult {
  if (typeof query !== "string") throw new TypeError("searchIndustryTaxonomy: query must be a string");
  const invalid = (message: string) =>
    new ValidationError(message, [{ path: "query", message }], "invalid_query");
  if (query.trim().length === 0)
    throw invalid("The industry query is empty; give one or more words, e.g. 'banks'.");
  if (query.length > MAX_INDUSTRY_QUERY_LENGTH) {
    throw invalid(
      `The industry query has ${query.length} characters; at most ${MAX_INDUSTRY_QUERY_LENGTH} are accepted.`,
    );
  }
  const limit = options.limit ?? DEFAULT_INDUSTRY_MATCH_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`searchIndustryTaxonomy: limit must be a positive integer, got ${limit}`);
  }
  // Repeating a word adds nothing; distinct words are bounded so a query's cost is too.
  const words = [...new Set(searchWords(query))];
  if (words.length > MAX_INDUSTRY_QUERY_WORDS) {
    throw invalid(
      `The industry query has ${words.length} distinct words; at most ${MAX_INDUSTRY_QUERY_WORDS} are searched. Keep the words that name the industry, e.g. 'regional banks'.`,
    );
  }
  const codes = normalizeText(query)
    .split(" ")
    .filter((t) => /^(\d{2}|\d{4}|\d{6}|\d{8})$/.test(t) && findIndustryNode(Number(t)) !== undefined)
    .map(Number);
  if (words.length === 0 && codes.length === 0) {
    throw invalid(
      `The industry query '${query}' has no searchable word (only common words, punctuation or numbers); try words such as 'banks' or 'software', or a code such as 4510.`,
    );
  }

  const wordings = variants(words);
  const loose = new LooseMatcher();
  const best = new Map<number, Scored>();
  const keep = (s: Scored) => {
    const prev = best.get(s.entry.node.id);
    if (
      s.score > 0 &&
      (!prev || s.score > prev.score || (s.score === prev.score && s.coverage > prev.coverage))
    )
      best.set(s.entry.node.id, s);
  };
  for (const entry of INDEX) {
    if (codes.includes(entry.node.id)) keep({ entry, score: MATCH_SCORES.exactName, coverage: 1 });
    if (words.length === 0) continue;
    for (const v of wordings) keep(scoreVariant(entry, v.words, v.penalty, loose));
  }
  let ranked = [...best.values()].sort(
    (a, b) =>
      b.score - a.score ||
      b.coverage - a.coverage ||
      a.entry.node.level - b.entry.node.level ||
      a.entry.node.id - b.entry.node.id,
  );
  const top = ranked[0]?.score ?? 0;
  const full = top >= MATCH_SCORES.allWords - SYNONYM_PENALTY;
  if (full) ranked = ranked.filter((s) => s.score >= MATCH_SCORES.allWords - SYNONYM_PENALTY);
  ranked = ranked.slice(0, limit);
  const matches = ranked.map((s) => industryMatchOf(s.entry.node.id));
  const quality = ranked.length === 0 ? "none" : full ? "full" : "partial";
  return {
    query,
    matches,
    scores: ranked.map((s) => s.score),
    quality,
    hint: hintFor(query, words, matches, quality),
  };
}

function hintFor(
  query: string,
  words: readonly string[],
  matches: readonly IndustryMatch[],
  quality: IndustrySearchResult["quality"],
): string {
  const suggestions = [...new Set(words.map(closestWord).filter((w): w is string => w !== undefined))];
  const didYouMean =
    suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `'${s}'`).join(", ")}?` : "";
  if (quality === "full") {
    const first = matches[0]!;
    return `Best match: ${first.name} (${first.level}). Use a match's expression as a theme universe, e.g. {"universe": {"expression": "${first.expression}"}}, or add it to the theme's filters; join several with 'or'.`;
  }
  if (quality === "partial") {
    return `No industry matches every word of '${query}'; these are the closest.${didYouMean} Fewer or broader words (a sector name such as Health Care) find more.`;
  }
  const sectors = industryNodesAtLevel(1)
    .map((n) => n.name)
    .join(", ");
  return `No industry matches '${query}'.${didYouMean} Try a sector name (${sectors}) or a common word such as tech, banks, pharma, oil, REIT or software.`;
}

/** The vocabulary word closest to `word` when `word` itself is unknown and a plausible typo of it. */
function closestWord(word: string): string | undefined {
  if (VOCABULARY.includes(word) || word.length < 3) return undefined;
  const limit = word.length <= 4 ? 1 : word.length <= 7 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of VOCABULARY) {
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const d = editDistance(word, candidate);
    // On equal distance prefer a word of the same length ("bankz" -> "banks", not "bank").
    const better =
      d < bestDistance ||
      (d === bestDistance &&
        best !== undefined &&
        candidate.length === word.length &&
        best.length !== word.length);
    if (better) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
