/**
 * @module service/backend
 * The operations of lotwise as one interface with two implementations: {@link LocalBackend} (the service layer over
 * a local store) and the HTTP client of `src/client` (a running `lotwise serve`). The CLI talks only to a Backend,
 * so every command behaves the same locally and remotely. Inputs and outputs are the wire shapes of the contract.
 *
 * The methods are derived from the operation table (service/operations.ts): one per operation, named as in the
 * table, taking the path parameters other than the organization (in path order), then the body or the uploaded
 * file, then the query (a body or query whose fields are all optional may be left out), and answering the
 * operation's response schema (void for 204). E.g. `getAccount(clientUuid, accountUuid)`,
 * `optimizeAccount(clientUuid, accountUuid, body?)`, `importLots(accountUuid, csv, query?)`.
 */
import type { RebalanceRun, RebalanceRunRequest, ScanRequest, ScanResult } from "../contract/index.js";
import type { OperationMethods } from "./operation.js";
import type { OPERATIONS } from "./operations.js";

/** The Backend methods of the operation table. */
export type BackendMethods = OperationMethods<typeof OPERATIONS>;

/** Every operation of one organization. All methods are async so that local and remote look the same. */
export interface Backend extends BackendMethods {
  readonly kind: "local" | "remote";
  /**
   * A whole rebalance run (docs/rebalance-runs.md), with progress: locally one call of the service (or worker
   * threads with `concurrency` > 1); remotely `runRebalance` in chunks of accounts until the run is completed.
   * Built on the table's `runRebalance`, which processes at most one chunk per call.
   */
  rebalanceAll(body: RebalanceRunRequest, options?: RebalanceRunCallOptions): Promise<RebalanceRun>;
  /**
   * The morning scan of the selected accounts (docs/scan.md): one row per account with drift, harvest, cash, NAV
   * and rules fired. Without `limit` the whole selection: locally in one call (on worker threads with
   * `concurrency` > 1); remotely as a scan job (the table's `startScanJob`, then `getScanJob` until it ends: the
   * service scans up to its threshold in the request and runs larger selections on its job workers), or page after
   * page from an explicit `offset`. `onProgress` after each account (locally) or each poll of the job (remotely).
   */
  scan(request?: ScanRequest, options?: ScanProgressOptions): Promise<ScanResult>;
}

/** Progress of a scan through a Backend (accounts done of the accounts selected), and its threads. */
export interface ScanProgressOptions {
  onProgress?: ((done: number, total: number) => void) | undefined;
  /** Worker threads of a local scan over a store file (a server scans each page on its request pool). @default 1 */
  concurrency?: number | undefined;
}

/** Options of {@link Backend.rebalanceAll}. */
export interface RebalanceRunCallOptions {
  /** Called as accounts get their outcomes: `completed` of `total` accounts of the run. */
  onProgress?: ((completed: number, total: number) => void) | undefined;
  /**
   * Worker threads that process the run (local store files only; a remote service paces its own runs).
   * @default 1
   */
  concurrency?: number | undefined;
}
