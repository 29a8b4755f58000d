/**
 * @module test/helpers/weekdays
 * The weekdays (Monday to Friday) from one date to another, inclusive, as `YYYY-MM-DD`: the trading dates of
 * hand-made markets in tests.
 */
export function weekdays(from: string, to: string): string[] {
  const out: string[] = [];
  for (
    let d = new Date(`${from}T00:00:00Z`);
    d <= new Date(`${to}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() + 1)
  )
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) out.push(d.toISOString().slice(0, 10));
  return out;
}
