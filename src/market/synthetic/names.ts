/**
 * @module market/synthetic/names
 * Invented company names and ticker symbols for the synthetic market. Names are a made-up root word (two
 * syllables) plus an industry noun and a corporate form ("Veltrix Software Inc."); symbols are 2 to 5 upper-case
 * letters derived from the root, unique across the market. Both are deterministic given the generator. They may
 * coincide with real names or tickers by chance; the securities are synthetic all the same.
 */

import type { SeededRandom } from "../../core/random.js";

// biome-ignore format: word lists
const HEADS = [
  "Al", "Bel", "Cor", "Dar", "El", "Fen", "Gal", "Har", "Ir", "Jas", "Kel", "Lum", "Mar", "Nor", "Or", "Pel",
  "Quin", "Ros", "Sol", "Tal", "Ul", "Ver", "Wes", "Xan", "Yor", "Zen", "Bri", "Cal", "Dun", "Fal", "Gran", "Hal",
  "Kin", "Lan", "Mer", "Nav", "Ost", "Pra", "Red", "Sil", "Tor", "Val", "Wyn", "Ash", "Brook", "Clear", "Stone",
  "North", "Summ", "Pine", "Arc", "Bay", "Cres", "Del", "Ever", "Fair", "Glen", "High", "Iron", "Lake", "Maple",
  "Oak", "Quar", "River", "Sage", "Tri", "Uni", "Vista", "West", "Alder", "Bright", "Cedar", "Delta", "East",
];

// biome-ignore format: word lists
const TAILS = [
  "a", "ax", "by", "cor", "dex", "don", "era", "ex", "gen", "ia", "ica", "ion", "is", "ix", "lo", "lyn", "mar",
  "na", "nex", "nor", "on", "ora", "ra", "ren", "ric", "ro", "sa", "son", "ta", "tek", "ton", "tra", "va", "vex",
  "vo", "well", "win", "wood", "yx", "ford", "ridge", "field", "gate", "haven", "mont", "port", "stead", "view",
  "line", "point", "crest", "more",
];

const US_FORMS = ["", " Inc.", " Inc.", " Corp.", " Co.", " Holdings", " Group"];
const CA_FORMS = ["", " Inc.", " Ltd.", " Corp."];

const VOWELS = /[AEIOUY]/g;

/** Draws unique company names and symbols. */
export class NameBook {
  private readonly names = new Set<string>();
  private readonly symbols = new Set<string>();

  constructor(private readonly rng: SeededRandom) {}

  /**
   * A new company: unique name and symbol. `nouns` are the industry words to pick from; `mic` shapes the symbol
   * length (Nasdaq 4 letters mostly, NYSE 3, Toronto 2 to 4).
   */
  draw(nouns: readonly string[], mic: string): { name: string; symbol: string } {
    const forms = mic === "XTSE" ? CA_FORMS : US_FORMS;
    for (;;) {
      const root = this.root();
      const noun = this.rng.pick(nouns);
      const form = this.rng.pick(forms);
      const name = `${root} ${noun}${form}`;
      if (this.names.has(name)) continue;
      const symbol = this.symbol(root, noun, mic);
      this.names.add(name);
      this.symbols.add(symbol);
      return { name, symbol };
    }
  }

  private root(): string {
    const head = this.rng.pick(HEADS);
    let tail = this.rng.pick(TAILS);
    // Avoid doubled letters at the joint ("Mar" + "ra") that read badly.
    if (head[head.length - 1]!.toLowerCase() === tail[0]) tail = tail.slice(1) || "a";
    return head + tail;
  }

  private symbolLength(mic: string): number {
    const u = this.rng.next();
    if (mic === "XNAS") return u < 0.15 ? 3 : u < 0.95 ? 4 : 5;
    if (mic === "XTSE") return u < 0.15 ? 2 : u < 0.75 ? 3 : 4;
    return u < 0.1 ? 2 : u < 0.8 ? 3 : 4;
  }

  private symbol(root: string, noun: string, mic: string): string {
    const letters = root.toUpperCase().replace(/[^A-Z]/g, "");
    const nounLetters = noun.toUpperCase().replace(/[^A-Z]/g, "");
    const consonants = letters[0]! + letters.slice(1).replace(VOWELS, "");
    const len = this.symbolLength(mic);
    const candidates: string[] = [];
    for (const l of [len, len + 1, len - 1]) {
      if (l < 2 || l > 5) continue;
      candidates.push(letters.slice(0, l));
      candidates.push(consonants.slice(0, l));
      candidates.push(letters.slice(0, l - 1) + nounLetters[0]);
      candidates.push(consonants.slice(0, l - 1) + nounLetters[0]);
    }
    for (const c of candidates) if (c.length >= 2 && c.length <= 5 && !this.symbols.has(c)) return c;
    // Fall back to the root's first letter plus random letters until unused (lengths 3 to 5).
    for (let attempt = 0; ; attempt++) {
      const length = Math.min(5, Math.max(len, 3) + Math.floor(attempt / 50));
      let s = letters[0]!;
      while (s.length < length) s += String.fromCharCode(65 + this.rng.int(0, 26));
      if (!this.symbols.has(s)) return s;
    }
  }
}
