/**
 * @module server/store-version
 * The store's change token, read from the database itself (on SQLite its `data_version` with this connection's
 * `total_changes()`): equal tokens mean an unchanged database, which is what makes the response cache safe. See
 * `LotwiseStore.changeToken`.
 */
import type { ServiceContext } from "../service/index.js";

/**
 * A function returning the store's current change token.
 * @example const token = storeChangeToken(store); await token() // "3:17"
 */
export function storeChangeToken(store: ServiceContext["store"]): () => Promise<string> {
  return () => store.changeToken();
}
