/**
 * @module service/lot-currency
 * A lot's cost basis is in its listing's currency (docs/ledger.md, "Lots and their listing's currency"): prices,
 * proceeds and the lot engine all work in that currency, so a lot in another one can only fail later (every proposal
 * of the account refused). Every path that writes lots (JSON holdings, the lots CSV import, the ledger's buys and
 * short sales) refuses it at write time with this message.
 */

/**
 * Why a lot (or a trade opening one) in `given` cannot be a lot of `ticker`, which trades in `listing`, and how to fix
 * it. `what` names the lot or row ("lot 3", "line 4"); `field` the field in the caller's terms.
 */
export function currencyMismatchMessage(
  what: string,
  field: string,
  ticker: string,
  given: string,
  listing: string,
): string {
  return `${what}: ${field} ${given} does not match ${ticker}'s listing currency ${listing}; give ${field} ${listing} (with the fx_rate in ${listing} per USD on the trade date), or name the listing of this security that trades in ${given}`;
}
