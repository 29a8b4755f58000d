/**
 * @module contract/rebalance-run
 * Extension shapes of rebalance runs (`POST|GET .../rebalance_runs/`, `lotwise rebalance --all`): one request creates
 * the proposals of every selected account that needs one (`when`), and the stored run records per account whether a
 * proposal was created, the account was skipped (and why) or failed (the error). docs/rebalance-runs.md.
 */
import * as z from "zod";
import { bool, boundedInt, isoDate, isoDatetime, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

/** Which accounts of the selection get a proposal. */
export const REBALANCE_RUN_WHEN = ["breached", "harvest", "always"] as const;
/** Which accounts of the selection get a proposal. */
export type RebalanceRunWhenValue = (typeof REBALANCE_RUN_WHEN)[number];
/** Default `when`. */
export const DEFAULT_REBALANCE_RUN_WHEN: RebalanceRunWhenValue = "breached";
/** Most accounts one run may select. */
export const MAX_REBALANCE_RUN_ACCOUNTS = 1_000_000;

/** Jobs a queued run is split into at most (a run of fewer pending accounts gets one job per account). */
export const REBALANCE_RUN_QUEUE_SHARDS = 8;
/** Most worker threads a local run may use (`lotwise rebalance --all --concurrency N`). */
export const MAX_REBALANCE_RUN_WORKERS = 16;
/** Most account uuids a request may list. */
export const MAX_REBALANCE_RUN_LISTED_ACCOUNTS = 10_000;

/** Body of `POST .../rebalance_runs/`. */
export const rebalanceRunRequestSchema = named(
  z
    .strictObject({
      as_of_date: describe(
        isoDate(),
        "trade date of every proposal (default: the market's latest date on or before today)",
      ).optional(),
      when: describe(
        z.enum(REBALANCE_RUN_WHEN),
        "breached: accounts whose drift status is breach; harvest: accounts with at least one harvestable lot (harvest scan defaults); always: every selected account (default breached)",
      ).optional(),
      client_uuid: describe(uuid(), "select the accounts of this client").optional(),
      portfolio_config_uuid: describe(
        uuid(),
        "select the accounts whose portfolio configuration is this one",
      ).optional(),
      account_uuids: describe(
        z.array(uuid()).min(1).max(MAX_REBALANCE_RUN_LISTED_ACCOUNTS),
        "select these accounts (in this order)",
      ).optional(),
      force: describe(
        bool(),
        "start a new run even when a run with the same key exists, and rebalance accounts that already got a proposal on the date (default false)",
      ).optional(),
      max_accounts: describe(
        boundedInt(0, MAX_REBALANCE_RUN_ACCOUNTS),
        "process at most this many accounts in this call; the run stays `running` and the same request continues it (the HTTP service caps it)",
      ).optional(),
    })
    .refine(
      (b) =>
        [b.client_uuid, b.portfolio_config_uuid, b.account_uuids].filter((v) => v !== undefined).length <= 1,
      {
        message: "give at most one of client_uuid, portfolio_config_uuid, account_uuids",
        path: ["client_uuid"],
      },
    ),
  "RebalanceRunRequest",
  "Body of the rebalance-run extension; every field optional (no selection field: every account of the organization).",
);
/** Body of `POST .../rebalance_runs/`. */
export type RebalanceRunRequest = z.infer<typeof rebalanceRunRequestSchema>;

/** Query of the run list. */
export const rebalanceRunListQuerySchema = named(
  z.strictObject({
    as_of_date: describe(isoDate(), "only the runs of this as-of date").optional(),
  }),
  "RebalanceRunListQuery",
  "Query of the rebalance-run list.",
);
/** Query of the run list. */
export type RebalanceRunListQuery = z.infer<typeof rebalanceRunListQuerySchema>;

/** The selection of a run. */
export const rebalanceRunSelectionSchema = named(
  z.strictObject({
    kind: z.enum(["all", "client", "portfolio_config", "accounts"]),
    client_uuid: uuid().nullable(),
    portfolio_config_uuid: uuid().nullable(),
    account_uuids: z.array(uuid()).nullable(),
  }),
  "RebalanceRunSelection",
  "Which accounts the run covers: all accounts of the organization, one client's, one configuration's, or a list.",
);
/** The selection of a run. */
export type RebalanceRunSelection = z.infer<typeof rebalanceRunSelectionSchema>;

/** What happened to one account. */
export const REBALANCE_OUTCOMES = ["created", "skipped", "failed", "pending"] as const;

/** One account of a run. */
export const rebalanceRunAccountSchema = named(
  z.strictObject({
    account_uuid: uuid(),
    account_name: describe(
      z.string().nullable(),
      "the account's name (null when it has none or was deleted)",
    ).optional(),
    outcome: describe(
      z.enum(REBALANCE_OUTCOMES),
      "created (proposal_uuid), skipped (reason), failed (error), pending (not processed yet: the run is still running or was interrupted)",
    ),
    proposal_uuid: uuid().nullable(),
    reason: describe(z.string().nullable(), "why the account was skipped"),
    error: z
      .strictObject({
        code: z.string(),
        message: z.string(),
      })
      .nullable(),
  }),
  "RebalanceRunAccount",
  "The outcome of one account of a rebalance run.",
);

const runTotalsSchema = z.strictObject({
  accounts: z.int(),
  created: z.int(),
  skipped: z.int(),
  failed: z.int(),
  pending: z.int(),
});

const runFields = {
  run_uuid: uuid(),
  organization_uuid: uuid(),
  run_key: describe(
    z.string(),
    "as_of_date|when|selection: re-running a request with the same key reports (or resumes) the newest run of that key instead of creating proposals again, unless force",
  ),
  as_of_date: isoDate(),
  when: z.enum(REBALANCE_RUN_WHEN),
  selection: rebalanceRunSelectionSchema,
  forced: describe(bool(), "the run was started with force"),
  status: describe(
    z.enum(["running", "completed"]),
    "running: accounts are pending (in progress, or interrupted: the same request resumes it); completed: every account has an outcome",
  ),
  created: isoDatetime(),
  finished: isoDatetime().nullable(),
  totals: runTotalsSchema,
  queued_jobs: describe(
    z.int().nonnegative(),
    "present when the service runs rebalance runs on its job queue (a PostgreSQL deployment with workers): the run's jobs waiting or running on the workers. 0 with status running: no worker is on it (a job failed for good); the same request again queues the pending accounts",
  ).optional(),
};

/** A run with its outcomes. */
export const rebalanceRunSchema = named(
  z.strictObject({ ...runFields, accounts: z.array(rebalanceRunAccountSchema) }),
  "RebalanceRun",
  "A rebalance run over many accounts, with the outcome of each account in processing order.",
);
/** A run with its outcomes. */
export type RebalanceRun = z.infer<typeof rebalanceRunSchema>;

/** A run without its per-account outcomes (listing). */
export const rebalanceRunSummarySchema = named(
  z.strictObject(runFields),
  "RebalanceRunSummary",
  "A rebalance run without its per-account outcomes.",
);
/** A run without its per-account outcomes. */
export type RebalanceRunSummary = z.infer<typeof rebalanceRunSummarySchema>;

/** The organization's runs, newest first. */
export const rebalanceRunListSchema = named(
  z.array(rebalanceRunSummarySchema),
  "RebalanceRunList",
  "Rebalance runs, newest first.",
);
