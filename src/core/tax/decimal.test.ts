import { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import { createRandom } from "../random.js";
import { compareDecimals, divideByRate, proRata, signOf, sumDecimals, TaxDecimal } from "./decimal.js";

/** Values that stress the representation: signs, zeros, exponents far apart, long and short digit words. */
function sample(rng: ReturnType<typeof createRandom>): string {
  const pick = rng.int(0, 9);
  if (pick === 0) return rng.next() < 0.5 ? "0" : "-0";
  const sign = rng.next() < 0.5 ? "-" : "";
  const intDigits = rng.int(0, 25);
  const fracDigits = rng.int(0, 40);
  let int = "";
  for (let i = 0; i < intDigits; i++) int += String(rng.int(0, 9));
  let frac = "";
  for (let i = 0; i < fracDigits; i++) frac += String(rng.int(0, 9));
  return `${sign}${int || "0"}${frac ? `.${frac}` : ""}`;
}

describe("decimal comparisons without allocation", () => {
  it("compareDecimals and signOf agree with decimal.js on 20,000 random pairs, including near-equal ones", () => {
    const rng = createRandom(4242);
    const Low = Decimal.clone({ precision: 20 });
    for (let k = 0; k < 20_000; k++) {
      const a = new TaxDecimal(sample(rng));
      // Half the pairs differ in the last digits only, or are the same value from another constructor.
      const b =
        k % 4 === 0
          ? new Low(a)
          : k % 4 === 1
            ? a.plus(new TaxDecimal(`1e-${rng.int(1, 45)}`).times(rng.next() < 0.5 ? 1 : -1))
            : new TaxDecimal(sample(rng));
      expect(compareDecimals(a, b)).toBe(a.comparedTo(b));
      expect(compareDecimals(b, a)).toBe(b.comparedTo(a));
      expect(signOf(a)).toBe(a.isZero() ? 0 : a.isNegative() ? -1 : 1);
    }
  });

  it("follows decimal.js for infinities and NaN", () => {
    const inf = new TaxDecimal(Infinity);
    const one = new TaxDecimal(1);
    expect(compareDecimals(inf, one)).toBe(1);
    expect(compareDecimals(one, inf.negated())).toBe(1);
    expect(compareDecimals(new TaxDecimal(Number.NaN), one)).toBeNaN();
    expect(signOf(inf.negated())).toBe(-1);
  });

  it("keeps proRata and divideByRate exact where they skip work", () => {
    const total = new TaxDecimal("1502.5");
    const q = new TaxDecimal("10");
    expect(proRata(total, new TaxDecimal("10.000"), q).toString()).toBe("1502.5");
    expect(proRata(total, new TaxDecimal("4"), q).toString()).toBe("601");
    expect(divideByRate(total, new TaxDecimal("1.0"))).toBe(total);
    expect(divideByRate(total, new TaxDecimal("1.25")).toString()).toBe("1202");
  });

  it("sums exactly like plus: lot quantities, money, long and tiny values, cancellations, totals beyond 2^53", () => {
    const rng = createRandom(77);
    const plain = (xs: InstanceType<typeof TaxDecimal>[]) =>
      xs.reduce((a, b) => a.plus(b), new TaxDecimal(0));
    for (let k = 0; k < 2_000; k++) {
      const n = rng.int(0, 40);
      const xs = Array.from({ length: n }, () => {
        const kind = rng.int(0, 4);
        if (kind === 0) return new TaxDecimal(rng.int(1, 5000)); // whole shares
        if (kind === 1) return new TaxDecimal((rng.int(1, 10 ** 9) / 10 ** rng.int(0, 10)).toFixed(10)); // decimal(10,10)
        if (kind === 2) return new TaxDecimal(sample(rng)); // up to 40 decimals, 25 integer digits
        if (kind === 3)
          return new TaxDecimal(`${rng.next() < 0.5 ? "-" : ""}${rng.int(1, 9)}e${rng.int(-30, 30)}`);
        return new TaxDecimal("899999999.9999999999"); // near the 2^53 limit of the fast path at scale 1e-10
      });
      if (k % 5 === 0) xs.push(...xs.map((x) => x.negated())); // cancels to zero
      const got = sumDecimals(xs);
      const want = plain(xs);
      expect(got.toString()).toBe(want.toString());
      expect(got.isNeg()).toBe(want.isNeg());
    }
    expect(sumDecimals([]).toString()).toBe("0");
  });
});
