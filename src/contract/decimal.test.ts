import { Decimal } from "decimal.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  ContractDecimal,
  compareDecimalStrings,
  decimalPattern,
  decimalString,
  decimalValue,
  explainDecimalRejection,
  formatDecimal,
  isDecimalString,
  toContractDecimal,
} from "./decimal.js";

/** Every width the spec's tables use, plus the generic decimal(20,10). */
const WIDTHS: [number, number][] = [
  [1, 10],
  [12, 8],
  [10, 10],
  [30, 10],
  [3, 2],
  [8, 2],
  [1, 4],
  [10, 2],
  [2, 10],
  [3, 3],
  [3, 4],
  [5, 10],
  [4, 4],
  [4, 6],
  [6, 4],
  [14, 2],
  [20, 10],
];

/** A valid decimal(i,f) string built from its parts. */
const decimalText = (i: number, f: number) =>
  fc
    .record({
      negative: fc.boolean(),
      intDigits: fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: i }),
      fracDigits: fc.option(
        fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: Math.max(1, f) }),
        {
          nil: undefined,
        },
      ),
    })
    .map(
      ({ negative, intDigits, fracDigits }) =>
        `${negative ? "-" : ""}${intDigits}${f > 0 && fracDigits !== undefined ? `.${fracDigits}` : ""}`,
    );

describe("decimalPattern", () => {
  it("matches the spec's regular expression ^-?\\d{1,i}(\\.\\d{1,f})?$", () => {
    expect(decimalPattern(3, 2).source).toBe("^-?\\d{1,3}(\\.\\d{1,2})?$");
    expect(decimalPattern(5, 0).source).toBe("^-?\\d{1,5}$");
  });

  it("rejects impossible widths naming the function", () => {
    expect(() => decimalPattern(0, 2)).toThrow(/decimalPattern: integer digits/);
    expect(() => decimalPattern(2, -1)).toThrow(/decimalPattern: fraction digits/);
    expect(() => decimalPattern(1.5, 2)).toThrow(RangeError);
  });
});

describe("decimalString", () => {
  const d32 = decimalString(3, 2);

  it("keeps the input string unchanged (no digit lost or invented)", () => {
    expect(d32.parse("007.50")).toBe("007.50");
    expect(d32.parse("-0")).toBe("-0");
    expect(d32.parse("999.99")).toBe("999.99");
  });

  it.each([
    ["1e2", /exponent notation/],
    ["1E-2", /exponent notation/],
    [" 1.5", /whitespace/],
    ["1.5 ", /whitespace/],
    ["+1.5", /leading '\+'/],
    ["NaN", /not a finite number/],
    ["Infinity", /not a finite number/],
    ["-Infinity", /not a finite number/],
    ["", /empty string/],
    ["1000", /4 integer digits; decimal\(3,2\) allows at most 3/],
    ["1.234", /3 decimal places; decimal\(3,2\) allows at most 2/],
    [".5", /at least one digit before the point/],
    ["5.", /ends with a point/],
    ["1,5", /not a decimal number/],
    ["--1", /not a decimal number/],
    ["0x1F", /not a decimal number/],
  ])("rejects %j with a message that says why", (input, message) => {
    const result = d32.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.message).toMatch(message);
  });

  it.each([
    [0.5, /received the number 0.5; send it as a JSON string, e.g. "0.5"/],
    [Number.NaN, /received the number NaN/],
    [Number.POSITIVE_INFINITY, /received the number Infinity/],
    [null, /received null/],
    [true, /received boolean/],
    [[1], /received an array/],
    [{}, /received an object/],
  ])("rejects the non-string %j", (input, message) => {
    const result = d32.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.message).toMatch(message);
  });

  it("reports a missing value as Required", () => {
    expect(explainDecimalRejection(undefined, 3, 2)).toBe("Required");
    expect(z.strictObject({ x: d32 }).safeParse({}).error!.issues[0]!.message).toBe("Required");
  });

  it("accepts a width without fraction only for integers", () => {
    const d50 = decimalString(5, 0);
    expect(d50.safeParse("12345").success).toBe(true);
    expect(d50.safeParse("1.5").error!.issues[0]!.message).toMatch(/allows none/);
  });

  it("enforces an inclusive range exactly in decimal", () => {
    const unit = decimalString(1, 4, { min: "0", max: "1" });
    expect(unit.safeParse("0").success).toBe(true);
    expect(unit.safeParse("1").success).toBe(true);
    expect(unit.safeParse("1.0000").success).toBe(true);
    expect(unit.safeParse("1.0001").error!.issues[0]!.message).toBe(
      "must be at least 0 and at most 1, got 1.0001",
    );
    expect(unit.safeParse("-0.0001").success).toBe(false);
  });

  it("enforces an exclusive lower bound", () => {
    const positive = decimalString(5, 2, { min: "0", exclusiveMin: true });
    expect(positive.safeParse("0.01").success).toBe(true);
    expect(positive.safeParse("0").error!.issues[0]!.message).toMatch(/greater than 0/);
    expect(positive.safeParse("-0").success).toBe(false);
  });

  it("refuses a range bound that is not a plain decimal", () => {
    expect(() => decimalString(3, 2, { min: "1e2" })).toThrow(/not a plain decimal string/);
  });

  it("accepts every well-formed string of each width used by the spec (property)", () => {
    for (const [i, f] of WIDTHS) {
      const schema = decimalString(i, f);
      fc.assert(
        fc.property(decimalText(i, f), (s) => schema.safeParse(s).success && isDecimalString(s, i, f)),
        { numRuns: 60 },
      );
    }
  });

  it("rejects one integer digit too many and one decimal place too many for each width (property)", () => {
    for (const [i, f] of WIDTHS) {
      const schema = decimalString(i, f);
      const digits = (n: number) =>
        fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: n, maxLength: n });
      fc.assert(
        fc.property(digits(i + 1), digits(f + 1), (tooLongInt, tooLongFrac) => {
          const intRejected = !schema.safeParse(tooLongInt).success;
          const fracRejected = !schema.safeParse(`0.${tooLongFrac}`).success;
          return intRejected && fracRejected;
        }),
        { numRuns: 30 },
      );
    }
  });

  it("rejects exponents, spaces and '+' inserted anywhere (property)", () => {
    const schema = decimalString(10, 10);
    fc.assert(
      fc.property(
        decimalText(5, 5),
        fc.constantFrom("e", "E", " ", "+", "\t", "e+", "e-"),
        fc.nat(12),
        (s, junk, at) => {
          const k = at % (s.length + 1);
          return !schema.safeParse(s.slice(0, k) + junk + s.slice(k)).success;
        },
      ),
    );
  });

  it("rejects every JSON number, finite or not (property)", () => {
    const schema = decimalString(30, 10);
    fc.assert(fc.property(fc.double(), (n) => !schema.safeParse(n).success));
  });
});

describe("formatDecimal", () => {
  it("rounds half to even at f places", () => {
    // 2.345 -> 2.34 (4 is even); 2.355 -> 2.36; 2.3451 -> 2.35 (above the half).
    expect(formatDecimal("2.345", 3, 2)).toBe("2.34");
    expect(formatDecimal("2.355", 3, 2)).toBe("2.36");
    expect(formatDecimal("2.3451", 3, 2)).toBe("2.35");
    expect(formatDecimal("-2.345", 3, 2)).toBe("-2.34");
    expect(formatDecimal("0.5", 1, 0)).toBe("0");
    expect(formatDecimal("1.5", 1, 0)).toBe("2");
  });

  it("trims trailing zeros and a bare point", () => {
    expect(formatDecimal("1.50", 3, 2)).toBe("1.5");
    expect(formatDecimal("7.000", 3, 2)).toBe("7");
    expect(formatDecimal(new Decimal("100.0000000000"), 3, 10)).toBe("100");
  });

  it("prints zero and negative zero as 0", () => {
    expect(formatDecimal("-0", 1, 2)).toBe("0");
    expect(formatDecimal("-0.000001", 1, 2)).toBe("0");
    expect(formatDecimal(-0, 1, 2)).toBe("0");
    expect(formatDecimal("0.000", 1, 2)).toBe("0");
  });

  it("never uses exponent notation", () => {
    expect(formatDecimal("1e-7", 1, 10)).toBe("0.0000001");
    expect(formatDecimal(1e21, 30, 2)).toBe("1000000000000000000000");
    expect(formatDecimal(new Decimal("1.23e-9"), 1, 10)).toBe("0.0000000012");
  });

  it("prints the shortest decimal of a float input", () => {
    // 0.1 + 0.2 = 0.30000000000000004 in binary64; 10 places give 0.3.
    expect(formatDecimal(0.1 + 0.2, 1, 10)).toBe("0.3");
    expect(formatDecimal(1 / 3, 1, 4)).toBe("0.3333");
  });

  it("refuses more integer digits than allowed, after rounding, naming the field", () => {
    expect(() => formatDecimal("1000", 3, 2, "orders[3].amount")).toThrow(
      "orders[3].amount: 1000 needs 4 integer digits; decimal(3,2) allows at most 3",
    );
    // 999.996 rounds to 1000.00, which no longer fits decimal(3,2).
    expect(() => formatDecimal("999.996", 3, 2)).toThrow(/value: 1000 needs 4 integer digits/);
    expect(formatDecimal("999.994", 3, 2)).toBe("999.99");
    expect(() => formatDecimal("-1000", 3, 2)).toThrow(RangeError);
  });

  it("refuses NaN, infinities and non-numeric strings naming the field", () => {
    expect(() => formatDecimal(Number.NaN, 3, 2, "weight")).toThrow("weight: NaN is not a finite number");
    expect(() => formatDecimal(Number.POSITIVE_INFINITY, 3, 2)).toThrow(/Infinity is not a finite number/);
    expect(() => formatDecimal(new Decimal(Number.NaN), 3, 2, "w")).toThrow(/w: NaN is not a finite number/);
    expect(() => formatDecimal("abc", 3, 2, "x")).toThrow(/x: "abc" is not a number/);
  });

  it("prints a Decimal of any clone as its exact string form prints (property: digits, rounding, errors)", () => {
    // The fast path rounds the Decimal in its own constructor; the string path copies into ContractDecimal.
    const clones = [
      Decimal,
      Decimal.clone({ precision: 64, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -40, toExpPos: 60 }),
      Decimal.clone({ precision: 5, rounding: Decimal.ROUND_DOWN }),
    ];
    const outcome = (fn: () => string) => {
      try {
        return fn();
      } catch (err) {
        return `throws ${(err as Error).message}`;
      }
    };
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.bigInt({ min: 0n, max: 10n ** 45n }),
        fc.integer({ min: 0, max: 40 }),
        fc.constantFrom(...WIDTHS),
        fc.constantFrom(0, 1, 2),
        (neg, digits, scale, [i, f], k) => {
          const text = `${neg ? "-" : ""}${digits}e-${scale}`;
          const value = new clones[k]!(text);
          expect(outcome(() => formatDecimal(value, i, f, "x"))).toBe(
            outcome(() => formatDecimal(value.toFixed(), i, f, "x")),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("keeps all digits of a decimal(30,10) value (wide precision)", () => {
    const big = "123456789012345678901234567890.1234567891";
    expect(formatDecimal(big, 30, 10)).toBe(big);
    expect(toContractDecimal(big).times(1).toFixed()).toBe(big);
  });

  it("round trip: format then parse gives the value rounded to f places (property, every width)", () => {
    for (const [i, f] of WIDTHS) {
      const schema = decimalString(i, f);
      // Values with up to f + 3 places and up to i digits, some of which round across a power of ten.
      const raw = fc
        .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** BigInt(i + f + 3) - 1n }))
        .map(([neg, n]) =>
          new ContractDecimal(`${neg ? "-" : ""}${n}`).div(new ContractDecimal(10).pow(f + 3)),
        );
      fc.assert(
        fc.property(raw, (value) => {
          const expected = value.toDecimalPlaces(f, Decimal.ROUND_HALF_EVEN);
          const intDigits = expected.abs().trunc().toFixed().length;
          if (intDigits > i) {
            expect(() => formatDecimal(value, i, f)).toThrow(RangeError);
            return true;
          }
          const text = formatDecimal(value, i, f);
          const parsed = schema.parse(text);
          return new ContractDecimal(parsed).eq(expected) && !/e/i.test(text) && text !== "-0";
        }),
        { numRuns: 80 },
      );
    }
  });

  it("round trip of JSON numbers stays within half a unit of the last place (property)", () => {
    const schema = decimalString(16, 6);
    fc.assert(
      fc.property(fc.double({ min: -1e15, max: 1e15, noNaN: true }), (x) => {
        const text = schema.parse(formatDecimal(x, 16, 6));
        return new ContractDecimal(text).minus(new ContractDecimal(x)).abs().lte("0.0000005");
      }),
    );
  });

  it("is idempotent on its own output (property)", () => {
    fc.assert(
      fc.property(decimalText(8, 4), (s) => {
        const once = formatDecimal(s, 8, 4);
        return formatDecimal(once, 8, 4) === once;
      }),
    );
  });
});

describe("decimalValue", () => {
  it("decodes to a Decimal and encodes with formatDecimal", () => {
    const codec = decimalValue(10, 2);
    const d = codec.parse("12.30");
    expect(Decimal.isDecimal(d)).toBe(true);
    expect(d.toString()).toBe("12.3");
    expect(z.encode(codec, new Decimal("12.345"))).toBe("12.34");
    expect(codec.safeParse("12.345").success).toBe(false);
  });

  it("accepts Decimals of any clone when encoding", () => {
    const Other = Decimal.clone({ precision: 5 });
    expect(z.encode(decimalValue(3, 2), new Other("1.005"))).toBe("1");
  });
});

describe("compareDecimalStrings", () => {
  it("compares exactly, beyond float precision", () => {
    expect(compareDecimalStrings("0.10", "0.1")).toBe(0);
    expect(compareDecimalStrings("0.30000000000000000001", "0.3")).toBe(1);
    expect(compareDecimalStrings("-2", "1")).toBe(-1);
  });
});
