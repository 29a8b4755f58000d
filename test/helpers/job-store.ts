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
import { openSqliteStore, type SqliteStore } from "../../src/store/index.js";

/** What {@link createJobStore} returns. */
export interface JobStore {
  store: SqliteStore;
  ctx: BacktestServiceContext;
  path: string;
  org: string;
  clientUuid: string;
  accountUuid: string;
  /** Endpoint 2 through the service with the store's executor. */
  start(request?: BacktestRequest): Promise<BacktestJob>;
  /** Another account of the same client. */
  addAccount(name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * A store file in a fresh temporary directory (removed by close), or `:memory:` with `memory: true`.
 * @example const s = await createJobStore(fastExecutor); const job = await s.start({ tax_gamma: 2 });
 */
export async function createJobStore(
  executor: BacktestExecutor,
  options: { memory?: boolean } = {},
): Promise<JobStore> {
  const dir = options.memory ? undefined : mkdtempSync(join(tmpdir(), "lotwise-jobs-"));
  const path = dir ? join(dir, "jobs.db") : ":memory:";
  const store = openSqliteStore(path);
  const ctx: BacktestServiceContext = { store, clock: () => new Date(), backtestExecutor: executor };
  const org = (await createOrganization(ctx, "Jobs Org")).organization.uuid;
  const client = await createClient(ctx, org, { external_id: "jobs-client" });
  const addAccount = async (name: string) =>
    (await createAccount(ctx, org, client.uuid, { name, cash_value_usd: "100000" })).uuid;
  const accountUuid = await addAccount("Taxable");
  return {
    store,
    ctx,
    path,
    org,
    clientUuid: client.uuid,
    accountUuid,
    start: (request = {}) => startBacktest(ctx, org, client.uuid, accountUuid, request),
    addAccount,
    close: async () => {
      await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
