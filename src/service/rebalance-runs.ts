/**
 * @module service/rebalance-runs
 * Rebalance runs over many accounts (issue 14, items 6 and 7; docs/rebalance-runs.md): `lotwise rebalance --all`
 * and `POST .../rebalance_runs/`. A run selects accounts (all, a client's, a configuration's, a list), decides per
 * account whether it needs a proposal (`when`: breached drift, a harvestable loss, or always), optimizes it with the
 * tax-aware optimizer and stores the proposal as `rebalanceAccount` does, and records per account: `created` (the
 * proposal), `skipped` (why) or `failed` (the error's code and message). One failing account never stops the run.
 *
 * Nothing twice: a run is keyed by `as_of_date|when|selection`; the same request again reports the newest run of
 * that key (resuming it when accounts are still pending, e.g. after an interruption) and creates no proposal for an
 * account that already has an outcome. An account that got a proposal on the same as-of date in another run (say a
 * client's run, then the organization's) is skipped as "already in run X". `force` starts a new run that
 * rebalances every selected account again. The outcome row is written in the proposal's transaction and is unique
 * per (run, account), so even two processes working on one run cannot store two proposals for an account.
 */
import { createHash } from "node:crypto";
import {
  DEFAULT_REBALANCE_RUN_WHEN,
  type RebalanceRun,
  type RebalanceRunRequest,
  type RebalanceRunSelection,
  type RebalanceRunSummary,
} from "../contract/index.js";
import { NotFoundError, PortfolioError } from "../core/errors.js";
import {
  type AccountRecord,
  type BacktestJobRecord,
  isStoreBusyError,
  type RebalanceOutcomeRecord,
  type RebalanceRunRecord,
} from "../store/index.js";
import { checkedAsOf, type ServiceContext } from "./context.js";
import { accountDrift } from "./drift.js";
import { harvestScan } from "./harvest.js";
import {
  createOptimizationMemo,
  type OptimizationMemo,
  optimizeAccountWithQuotes,
  proposalOfOptimization,
} from "./optimize.js";
import { runSelectionOf, selectionKeyOf, selectRunAccounts } from "./rebalance-selection.js";

/** Message of an account's failure that is not one of lotwise's own errors (its details go nowhere public). */
export const UNEXPECTED_ACCOUNT_ERROR = "An unexpected error stopped this account's rebalance.";

/** Times an account is tried again when the store stays locked past its busy timeout (then it stays pending). */
const BUSY_RETRIES = 2;

/** Progress of a run, after each account. */
export interface RebalanceRunProgress {
  run_uuid: string;
  /** Accounts with an outcome (this call's and earlier calls'). */
  completed: number;
  total: number;
  /** The account just processed and its outcome. */
  account_uuid: string;
  outcome: "created" | "skipped" | "failed";
}

/** Options of {@link runRebalance}. */
export interface RunRebalanceOptions {
  /** Called after each account processed by this call. Throwing from it stops the run (it stays `running`). */
  onProgress?: ((p: RebalanceRunProgress) => void) | undefined;
  /** Process at most this many accounts in this call (the smaller of it and the request's `max_accounts`). */
  maxAccounts?: number | undefined;
  /**
   * Process only the pending accounts at positions `p` with `p % count === index` (several workers on one run, each
   * its own shard). The run completes when the last account of any shard gets its outcome.
   */
  shard?: { index: number; count: number } | undefined;
  /** Shared price history / risk models (see {@link OptimizationMemo}); one per call by default. */
  memo?: OptimizationMemo | undefined;
}

/**
 * The key of a run: `as_of_date|when|selection`, the selection as `all`, `client:<uuid>`,
 * `portfolio_config:<uuid>` or `accounts:<count>:<sha256 of the sorted uuids, 32 hex digits>`.
 */
export function rebalanceRunKey(asOf: string, when: string, selection: RebalanceRunSelection): string {
  let part = selectionKeyOf(selection);
  if (selection.kind === "accounts") {
    const list = part.slice("accounts:".length);
    const count = list === "" ? 0 : list.split(",").length;
    part = `accounts:${count}:${createHash("sha256").update(list).digest("hex").slice(0, 32)}`;
  }
  return `${asOf}|${when}|${part}`;
}

/** A stored run in the wire shape, with its outcomes (pending accounts included). */
async function runOf(ctx: ServiceContext, run: RebalanceRunRecord): Promise<RebalanceRun> {
  const outcomes = await ctx.store.rebalanceRuns.outcomes(run.uuid);
  const names = new Map(
    (await ctx.store.accounts.listByOrganization(run.organizationUuid)).map((a) => [a.uuid, a.name]),
  );
  const accounts = run.accountUuids.map((id) => wireOutcome(id, names.get(id) ?? null, outcomes.get(id)));
  const count = (k: string) => accounts.filter((a) => a.outcome === k).length;
  return {
    ...summaryFields(run, {
      created: count("created"),
      skipped: count("skipped"),
      failed: count("failed"),
    }),
    accounts,
  };
}

function summaryFields(
  run: RebalanceRunRecord,
  counts: { created: number; skipped: number; failed: number },
): RebalanceRunSummary {
  const total = run.accountUuids.length;
  return {
    run_uuid: run.uuid,
    organization_uuid: run.organizationUuid,
    run_key: run.runKey,
    as_of_date: run.asOfDate,
    when: run.when,
    selection: run.selection as RebalanceRunSelection,
    forced: run.forced,
    status: run.status,
    created: run.created,
    finished: run.finished,
    totals: {
      accounts: total,
      ...counts,
      pending: total - counts.created - counts.skipped - counts.failed,
    },
  };
}

function wireOutcome(
  accountUuid: string,
  accountName: string | null,
  o: RebalanceOutcomeRecord | undefined,
): RebalanceRun["accounts"][number] {
  if (o === undefined)
    return {
      account_uuid: accountUuid,
      account_name: accountName,
      outcome: "pending",
      proposal_uuid: null,
      reason: null,
      error: null,
    };
  return {
    account_uuid: accountUuid,
    account_name: accountName,
    outcome: o.outcome,
    proposal_uuid: o.proposalUuid,
    reason: o.reason,
    error: o.errorCode === null ? null : { code: o.errorCode, message: o.errorMessage ?? "" },
  };
}

/** Thrown inside a proposal's transaction when the run already has an outcome for the account (rolls it back). */
class OutcomeAlreadyRecorded extends Error {}

const pct = (fraction: string) => `${(Number(fraction) * 100).toFixed(2)}%`;

/** Why the account needs no proposal under `when`, or null when it needs one. */
async function skipReason(
  ctx: ServiceContext,
  org: string,
  run: RebalanceRunRecord,
  account: AccountRecord,
): Promise<string | null> {
  if (run.when === "breached") {
    const d = await accountDrift(ctx, org, account.uuid, {
      clientUuid: account.clientUuid,
      asOf: run.asOfDate,
    });
    return d.status === "breach" ? null : `drift ${d.status} (total drift ${pct(d.total_drift)})`;
  }
  if (run.when === "harvest") {
    const h = await harvestScan(ctx, org, account.uuid, {
      clientUuid: account.clientUuid,
      asOf: run.asOfDate,
    });
    return h.totals.harvestable_lots > 0 ? null : "no harvestable loss";
  }
  return null;
}

/**
 * Process one account of a run and record its outcome; returns it, null when the run already had one (another
 * worker got there first), `busy` when the store stayed locked (nothing recorded: the account stays pending).
 */
async function processAccount(
  ctx: ServiceContext,
  org: string,
  run: RebalanceRunRecord,
  accountUuid: string,
  position: number,
  memo: OptimizationMemo,
): Promise<"created" | "skipped" | "failed" | "busy" | null> {
  const repo = ctx.store.rebalanceRuns;
  const none = { proposalUuid: null, reason: null, errorCode: null, errorMessage: null };
  const record = async (o: Partial<RebalanceOutcomeRecord> & { outcome: "skipped" | "failed" }) =>
    (await repo.recordOutcome(run.uuid, position, { ...none, ...o, accountUuid })) ? o.outcome : null;
  if (!run.forced) {
    const prior = await repo.proposalRunOf(org, run.asOfDate, accountUuid, run.uuid);
    if (prior !== undefined)
      return await record({
        outcome: "skipped",
        reason: `already in run ${prior.runUuid} (proposal ${prior.proposalUuid})`,
      });
  }
  try {
    const account = await ctx.store.accounts.getInOrganization(org, accountUuid);
    if (!account) throw new NotFoundError(`Account ${accountUuid} not found.`, "account_not_found");
    const skip = await skipReason(ctx, org, run, account);
    if (skip !== null) return await record({ outcome: "skipped", reason: skip });
    const clientUuid = account.clientUuid;
    const { optimization, quotes } = await optimizeAccountWithQuotes(ctx, org, accountUuid, {
      asOf: run.asOfDate,
      clientUuid,
      memo,
    });
    return await ctx.store.transaction(async () => {
      const r = await proposalOfOptimization(ctx, org, clientUuid, accountUuid, optimization, quotes);
      if (r.proposal === null)
        return r.reason === "infeasible"
          ? await record({ outcome: "failed", errorCode: "infeasible", errorMessage: r.message })
          : await record({ outcome: "skipped", reason: "the optimized portfolio is all cash" });
      const ok = await repo.recordOutcome(run.uuid, position, {
        ...none,
        accountUuid,
        outcome: "created",
        proposalUuid: r.proposal.proposal_uuid,
      });
      if (!ok) throw new OutcomeAlreadyRecorded();
      return "created" as const;
    });
  } catch (error) {
    if (error instanceof OutcomeAlreadyRecorded) return null;
    // Another connection held the store past the busy timeout: no outcome, so the account stays pending and the
    // same request retries it.
    if (isStoreBusyError(error)) return "busy";
    if (error instanceof PortfolioError)
      return record({ outcome: "failed", errorCode: error.code, errorMessage: error.message });
    return record({ outcome: "failed", errorCode: "internal_error", errorMessage: UNEXPECTED_ACCOUNT_ERROR });
  }
}

/**
 * Run (or resume, or report) the rebalance run of a request (see the module doc): select the accounts, and for each
 * one without an outcome decide, optimize, store the proposal and record the outcome; the run is `completed` when
 * every account has one. The same request again returns the newest run of its key without creating anything for
 * accounts already processed; `force` starts a new run.
 * @throws {ValidationError} for a bad as-of date or unknown listed accounts; {@link NotFoundError} for an unknown
 *   client or configuration. Errors of one account are recorded, never thrown.
 * @example (await runRebalance(ctx, org, { when: "breached" })).totals // { accounts: 120, created: 14, skipped: 106, ... }
 */
export async function runRebalance(
  ctx: ServiceContext,
  org: string,
  request: RebalanceRunRequest,
  options: RunRebalanceOptions = {},
): Promise<RebalanceRun> {
  const repo = ctx.store.rebalanceRuns;
  const asOf = await checkedAsOf(ctx, request.as_of_date);
  const when = request.when ?? DEFAULT_REBALANCE_RUN_WHEN;
  const selection = runSelectionOf(request);
  const runKey = rebalanceRunKey(asOf, when, selection);
  const run = await ctx.store.transaction(async () => {
    const existing = request.force === true ? undefined : await repo.latestByKey(org, runKey);
    if (existing !== undefined) return existing;
    const accounts = await selectRunAccounts(ctx, org, selection);
    return repo.create(org, {
      runKey,
      asOfDate: asOf,
      when,
      selection,
      accountUuids: accounts.map((a) => a.uuid),
      forced: request.force === true,
    });
  });
  if (run.status === "completed") return runOf(ctx, run);
  await processPending(ctx, org, run, options, request.max_accounts);
  return runOf(ctx, (await repo.get(org, run.uuid))!);
}

/**
 * Process the pending accounts of a stored run that is not completed (a queue worker's shard of it, see
 * service/rebalance-run-jobs.ts), then complete the run when every account has an outcome. Returns the number of
 * accounts this call recorded an outcome for.
 * @throws {NotFoundError} `rebalance_run_not_found`; errors of one account are recorded, never thrown.
 */
export async function continueRebalanceRun(
  ctx: ServiceContext,
  org: string,
  runUuid: string,
  options: RunRebalanceOptions = {},
): Promise<number> {
  const run = await ctx.store.rebalanceRuns.get(org, runUuid);
  if (!run) throw new NotFoundError(`Rebalance run ${runUuid} not found.`, "rebalance_run_not_found");
  if (run.status === "completed") return 0;
  return processPending(ctx, org, run, options, undefined);
}

/** The loop of {@link runRebalance}: returns the accounts given an outcome by this call. */
async function processPending(
  ctx: ServiceContext,
  org: string,
  run: RebalanceRunRecord,
  options: RunRebalanceOptions,
  maxAccounts: number | undefined,
): Promise<number> {
  const repo = ctx.store.rebalanceRuns;
  const done = await repo.outcomes(run.uuid);
  const memo = options.memo ?? createOptimizationMemo();
  const limit = Math.min(options.maxAccounts ?? Infinity, maxAccounts ?? Infinity);
  const total = run.accountUuids.length;
  let completed = done.size;
  let processed = 0;
  let recorded = 0;
  for (let position = 0; position < total && processed < limit; position++) {
    const accountUuid = run.accountUuids[position]!;
    if (done.has(accountUuid)) continue;
    if (options.shard !== undefined && position % options.shard.count !== options.shard.index) continue;
    let outcome = await processAccount(ctx, org, run, accountUuid, position, memo);
    for (let retry = 0; outcome === "busy" && retry < BUSY_RETRIES; retry++)
      outcome = await processAccount(ctx, org, run, accountUuid, position, memo);
    processed++;
    if (outcome === null || outcome === "busy") continue;
    completed++;
    recorded++;
    options.onProgress?.({ run_uuid: run.uuid, completed, total, account_uuid: accountUuid, outcome });
  }
  await ctx.store.transaction(async () => {
    const counts = (await repo.outcomeCounts([run.uuid])).get(run.uuid);
    const all = counts === undefined ? 0 : counts.created + counts.skipped + counts.failed;
    if (all >= total) await repo.finish(org, run.uuid);
  });
  return recorded;
}

/**
 * A stored run with its outcomes.
 * @throws {NotFoundError} `rebalance_run_not_found`.
 */
export async function getRebalanceRun(
  ctx: ServiceContext,
  org: string,
  runUuid: string,
): Promise<RebalanceRun> {
  const run = await ctx.store.rebalanceRuns.get(org, runUuid.toLowerCase());
  if (!run) throw new NotFoundError(`Rebalance run ${runUuid} not found.`, "rebalance_run_not_found");
  const read = await runOf(ctx, run);
  if (ctx.jobQueue === undefined) return read;
  return { ...read, queued_jobs: (await activeRunJobs(ctx, org, run.uuid)).length };
}

/** What a rebalance-run job stores as params: its run and its shard (service/rebalance-run-jobs.ts). */
export interface RebalanceRunJobParams {
  run_uuid: string;
  shard: { index: number; count: number };
}

/** The run's jobs (kind "rebalance_run") that are PENDING or RUNNING, oldest first. */
export async function activeRunJobs(
  ctx: ServiceContext,
  org: string,
  runUuid: string,
): Promise<BacktestJobRecord[]> {
  const jobs = ctx.store.backtestJobs;
  const rows = [
    ...(await jobs.list(org, { kind: "rebalance_run", status: "PENDING" })),
    ...(await jobs.list(org, { kind: "rebalance_run", status: "RUNNING" })),
  ];
  return rows.filter((j) => (j.params as unknown as RebalanceRunJobParams).run_uuid === runUuid);
}

/** The organization's runs, newest first, optionally of one as-of date (without per-account outcomes). */
export async function listRebalanceRuns(
  ctx: ServiceContext,
  org: string,
  query: { as_of_date?: string | undefined } = {},
): Promise<RebalanceRunSummary[]> {
  const repo = ctx.store.rebalanceRuns;
  const runs = await repo.list(org, query.as_of_date === undefined ? {} : { asOfDate: query.as_of_date });
  const counts = await repo.outcomeCounts(runs.map((r) => r.uuid));
  return runs.map((r) => summaryFields(r, counts.get(r.uuid) ?? { created: 0, skipped: 0, failed: 0 }));
}
