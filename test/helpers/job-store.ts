/**
 * @module test/helpers/job-store
 * A small store for job tests: one organization, one client, one account with cash (no market data needed by the
 * test executors), in a temporary file (worker threads need a file) or in memory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BacktestJob, BacktestRequest } from "../../src/contract/index.js";
import {
  type BacktestServiceContext,
  createAccount,
  createClient,
  createOrganization,
  startBacktest,
} from "../../src/service/index.js";
import type { BacktestExecutor } from "../../src/service/jobs/index.js";
import { openStore, type Store } from "../../src/store/index.js";

/** What {@link createJobStore} returns. */
export interface JobStore {
  store: Store;
  ctx: BacktestServiceContext;
  path: string;
  org: string;
  clientUuid: string;
  accountUuid: string;
  /** Endpoint 2 through the service with the store's executor. */
  start(request?: BacktestRequest): BacktestJob;
  /** Another account of the same client. */
  addAccount(name: string): string;
  close(): void;
}

/**
 * A store file in a fresh temporary directory (removed by close), or `:memory:` with `memory: true`.
 * @example const s = createJobStore(fastExecutor); const job = s.start({ tax_gamma: 2 });
 */
export function createJobStore(executor: BacktestExecutor, options: { memory?: boolean } = {}): JobStore {
  const dir = options.memory ? undefined : mkdtempSync(join(tmpdir(), "lotwise-jobs-"));
  const path = dir ? join(dir, "jobs.db") : ":memory:";
  const store = openStore(path);
  const ctx: BacktestServiceContext = { store, clock: () => new Date(), backtestExecutor: executor };
  const org = createOrganization(ctx, "Jobs Org").organization.uuid;
  const client = createClient(ctx, org, { external_id: "jobs-client" });
  const addAccount = (name: string) =>
    createAccount(ctx, org, client.uuid, { name, cash_value_usd: "100000" }).uuid;
  const accountUuid = addAccount("Taxable");
  return {
    store,
    ctx,
    path,
    org,
    clientUuid: client.uuid,
    accountUuid,
    start: (request = {}) => startBacktest(ctx, org, client.uuid, accountUuid, request),
    addAccount,
    close: () => {
      store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
