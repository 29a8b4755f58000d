/**
 * @module bench/lib/sp500-study
 * The S&P 500 study of docs/backtests.md section 10, as the tax and spin-off studies set it up: the shared data set
 * in an in-memory store, an organization and client, and an account on the paper's configuration (35%/15%, 5 bps),
 * backtested over 2013-02-08..2018-02-07 from $1,000,000 with tax_gamma 1 and a 5% harvest threshold.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BACKTEST_LOSS_USAGES } from "../../src/contract/index.js";
import { loadSp500Dataset } from "../../src/market/real-data/index.js";
import type { AccountBacktestParams } from "../../src/service/backtest-run.js";
import { createAccount, createClient } from "../../src/service/clients.js";
import type { ServiceContext } from "../../src/service/context.js";
import { importSp500CorporateActions } from "../../src/service/market-data.js";
import { createOrganization } from "../../src/service/organizations.js";
import { createPortfolioConfig } from "../../src/service/portfolio-configs.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/index.js";

/** The data folder (LOTWISE_DATA_DIR, else ../shared/data), or undefined when the price file is not there. */
export function sp500DataDir(): string | undefined {
  const dir =
    process.env.LOTWISE_DATA_DIR ??
    [resolve(import.meta.dirname, "..", "..", "..", "shared", "data"), "/work/shared/data"].find((d) =>
      existsSync(d),
    );
  return dir !== undefined && existsSync(join(dir, "prices/all_stocks_5yr.csv.gz")) ? dir : undefined;
}

/** An opened study: its store and context, organization and client, and the account on the paper's rates. */
export interface Sp500Study {
  store: SqliteStore;
  ctx: ServiceContext;
  org: string;
  client: string;
  /** The account on the paper's configuration (35%/15% rates, 5 bps costs), no cash of its own. */
  account: string;
}

/**
 * Loads the data set (with its spin-offs as corporate actions unless `corporateActions` is false) and creates the
 * study's account. Close `store` when done.
 */
export async function openSp500Study(
  dataDir: string,
  options: { corporateActions?: boolean; organizationName?: string; riskAversion?: string } = {},
): Promise<Sp500Study> {
  const applied = options.corporateActions ?? true;
  const store = openSqliteStore(":memory:");
  await loadSp500Dataset(dataDir, store.engine.market, { corporateActions: applied });
  const ctx: ServiceContext = { store, clock: () => new Date("2018-02-08T12:00:00Z") };
  if (applied) await importSp500CorporateActions(ctx);
  const org = (await createOrganization(ctx, options.organizationName ?? "Tax study")).organization.uuid;
  const client = (await createClient(ctx, org, {})).uuid;
  const cfg = await createPortfolioConfig(ctx, org, {
    name: "paper rates",
    tcost_bps: "5",
    ...(options.riskAversion === undefined ? {} : { risk_aversion: options.riskAversion }),
    tax_preferences: { short_term_rate: "0.35", long_term_rate: "0.15" },
  });
  const account = (
    await createAccount(ctx, org, client, { cash_value_usd: "0", portfolio_config_uuid: cfg.uuid })
  ).uuid;
  return { store, ctx, org, client, account };
}

/** The study's backtest parameters with `loss_usage`, liquidation at the end. */
export function sp500StudyParams(lossUsage: (typeof BACKTEST_LOSS_USAGES)[number]): AccountBacktestParams {
  return {
    start_date: "2013-02-08",
    end_date: "2018-02-07",
    rebalance_period: "MONTHLY",
    starting_nav: 1_000_000,
    tax_gamma: 1,
    tax_loss_threshold_bps: 500,
    loss_usage: lossUsage,
    liquidate_at_end: true,
  };
}
