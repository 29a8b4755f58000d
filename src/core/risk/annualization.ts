/**
 * @module core/risk/annualization
 * Periods per year for the return frequencies risk models are estimated from. Variances scale linearly
 * with time under independent returns, so an annual variance is the per-period variance times this number.
 */

/** Named return frequencies. */
export type ReturnFrequency = "daily" | "weekly" | "monthly" | "quarterly" | "annual";

/** Periods per year of each named frequency (252 trading days, 52 weeks, 12 months, 4 quarters, 1 year). */
export const PERIODS_PER_YEAR: Readonly<Record<ReturnFrequency, number>> = {
  daily: 252,
  weekly: 52,
  monthly: 12,
  quarterly: 4,
  annual: 1,
};

/**
 * Periods per year of a frequency: the named ones from {@link PERIODS_PER_YEAR}, or a positive finite number
 * passed through (e.g. 260 for a weekday calendar).
 *
 * @throws {RangeError} for an unknown name or a number that is not finite and positive.
 * @example
 * periodsPerYear("daily"); // 252
 * periodsPerYear(260); // 260
 */
export function periodsPerYear(frequency: ReturnFrequency | number): number {
  if (typeof frequency === "number") {
    if (!Number.isFinite(frequency) || frequency <= 0) {
      throw new RangeError(`periodsPerYear: expected a positive finite number of periods, got ${frequency}.`);
    }
    return frequency;
  }
  const value = PERIODS_PER_YEAR[frequency];
  if (value === undefined) {
    throw new RangeError(
      `periodsPerYear: unknown frequency "${String(frequency)}"; use ${Object.keys(PERIODS_PER_YEAR).join(", ")} or a number.`,
    );
  }
  return value;
}
