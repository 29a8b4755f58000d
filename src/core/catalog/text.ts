/**
 * @module core/catalog/text
 * Text handling of the industry search: normalization, tokens, stop words and a light stemmer, applied the
 * same way to queries and to the taxonomy's names and keywords so that they meet in the middle.
 */

/** Words that carry no meaning in an industry query ("oil and gas companies" searches "oil gas"). */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "the",
  "of",
  "or",
  "in",
  "for",
  "with",
  "to",
  "on",
  "by",
  "companies",
  "company",
  "stocks",
  "stock",
  "shares",
  "sector",
  "sectors",
  "industry",
  "industries",
  "firms",
  "firm",
]);

/**
 * Lower case, accents removed, `&` read as "and", apostrophes dropped, every other non-alphanumeric
 * character a space, spaces collapsed.
 * @example normalizeText("Oil, Gas & Fuels") // "oil gas and fuels"
 */
export function normalizeText(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/['\u2019]/g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/**
 * The searchable words of a text: normalized tokens without stop words, one-letter tokens, or numbers
 * (numbers are handled as industry codes by the search).
 * @example searchWords("S&P 500 Information Technology companies") // ["information", "technology"]
 */
export function searchWords(text: string): string[] {
  const out: string[] = [];
  for (const token of normalizeText(text).split(" ")) {
    if (token.length < 2 || STOP_WORDS.has(token) || /^\d+$/.test(token)) continue;
    out.push(token);
  }
  return out;
}

const VOWEL = /[aeiouy]/;

/**
 * A light suffix-stripping stemmer in the spirit of Porter's step 1 (Porter 1980, "An algorithm for suffix
 * stripping", Program 14(3)): plurals (`-ies` -> `-y`, `-sses`, `-es` after sibilants, `-s`), then one of
 * `-ing`, `-ed`, `-er` when a stem of 3+ letters with a vowel remains (a doubled final consonant other than
 * l, s or z is undoubled: shipping -> ship), then a final `-e`. It only has to map a word and its variants to
 * the same key: banks/banking/bankers -> bank, miners/mining/mine -> min, games/gaming -> gam. Words of 3
 * letters or fewer and words with digits are kept as they are.
 * @example stem("semiconductors") // "semiconductor"
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(sh|ch|x|z|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w) && w.length > 3) w = w.slice(0, -1);
  for (const suffix of ["ing", "ed", "er"]) {
    if (!w.endsWith(suffix)) continue;
    const rest = w.slice(0, -suffix.length);
    if (rest.length >= 3 && VOWEL.test(rest)) {
      w = rest;
      if (/([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1);
    }
    break;
  }
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}
