/**
 * @module server/store-version
 * The store's change token (SQLite's `data_version` with this connection's `total_changes()`): equal tokens mean an
 * unchanged database, which is what makes the response cache safe. See `Store.changeToken`.
 */
import type { ServiceContext } from "../service/index.js";

/**
 * A function returning the store's current change token.
 * @example const token = storeChangeToken(store); token() // "3:17"
 */
export function storeChangeToken(store: ServiceContext["store"]): () => string {
  return () => store.changeToken();
}
