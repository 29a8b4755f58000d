import { describe, expect, it } from "vitest";
import { closestName, editDistance } from "./suggest.js";

describe("editDistance", () => {
  it("counts insertions, deletions, substitutions and adjacent transpositions", () => {
    expect(editDistance("", "")).toBe(0);
    expect(editDistance("pe", "pe")).toBe(0);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("abc", "")).toBe(3);
    // kitten -> sitten -> sittin -> sitting (Levenshtein's textbook example).
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("dividend_yeild", "dividend_yield")).toBe(1);
    expect(editDistance("ca", "ac")).toBe(1);
    // Restricted form: "ca" -> "abc" is 3, not 2 (the transposed pair cannot be edited again).
    expect(editDistance("ca", "abc")).toBe(3);
  });

  it("is symmetric", () => {
    for (const [a, b] of [
      ["market_cap", "marketcap"],
      ["momentum", "momentun"],
      ["sector", "sub_industry"],
    ] as const) {
      expect(editDistance(a, b)).toBe(editDistance(b, a));
    }
  });
});

describe("closestName", () => {
  const names = ["dividend_yield", "earnings_yield", "market_cap", "pe", "pb", "sector"];

  it("suggests the closest plausible name", () => {
    expect(closestName("dividend_yeild", names)).toBe("dividend_yield");
    expect(closestName("marketcap", names)).toBe("market_cap");
    expect(closestName("secotr", names)).toBe("sector");
  });

  it("breaks ties alphabetically and gives up when nothing is close", () => {
    // "px" is one edit from both "pb" and "pe".
    expect(closestName("px", names)).toBe("pb");
    expect(closestName("volume", names)).toBeUndefined();
    expect(closestName("abc", [])).toBeUndefined();
  });
});
