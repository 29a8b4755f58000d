/**
 * @module client/remote-backend
 * {@link Backend} over HTTP: every operation of the service called on a running `lotwise serve` (or any service of
 * the same interface), each response validated with its contract schema. The methods, paths, methods and schemas
 * come from the operation table (service/operations.ts), as the server's routes do. Errors arrive as the same
 * {@link PortfolioError} subclasses, codes and messages as with the local backend.
 */
import {
  type RebalanceRun,
  type RebalanceRunRequest,
  SCAN_PAGE_MAX,
  type ScanJob,
  type ScanRequest,
  type ScanResult,
  summarizeScan,
} from "../contract/index.js";
import { NotFoundError, PortfolioError } from "../core/errors.js";
import type {
  Backend,
  BackendMethods,
  RebalanceRunCallOptions,
  ScanProgressOptions,
} from "../service/backend.js";
import { type AnyOperation, callInput, installOperationMethods, queryStrings } from "../service/operation.js";
import { LOTS_UPLOAD_TIMEOUT_MS, OPERATION_LIST } from "../service/operations.js";
import { HttpClient, type HttpClientOptions } from "./http-client.js";

export { LOTS_UPLOAD_TIMEOUT_MS };

/**
 * Accounts one `POST .../rebalance_runs/` call of {@link RemoteBackend.rebalanceAll} asks the service to process
 * (the service caps a call at its own limit): the client calls again until the run is completed, reporting progress
 * in between.
 */
export const REBALANCE_RUN_CHUNK = 50;

/** Waits of {@link RemoteBackend.scan} between two reads of a scan job: from the first to the last, then the last. */
export const SCAN_JOB_POLL_MS = [100, 250, 500, 1000] as const;

/** Options of {@link RemoteBackend.connect}. */
export interface RemoteBackendOptions extends HttpClientOptions {
  /** Expected organization; when given it must be the key's. */
  organizationUuid?: string;
}

// The methods of BackendMethods are installed on the prototype from the operation table (below).
export interface RemoteBackend extends BackendMethods {}

/**
 * The {@link Backend} of a remote service, bound to the organization of its API key.
 * @example
 * const backend = await RemoteBackend.connect({ url: "http://127.0.0.1:8000", apiKey: process.env.LOTWISE_API_KEY! });
 * const configs = await backend.listPortfolioConfigs();
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above.
export class RemoteBackend implements Backend {
  readonly kind = "remote" as const;

  /** Prefer {@link RemoteBackend.connect}, which learns the organization from the key. */
  constructor(
    readonly http: HttpClient,
    readonly organizationUuid: string,
  ) {}

  /**
   * Connects to a service: asks `GET /api/v1/me` which organization the key belongs to.
   * @throws {AuthenticationError} for a bad key; {@link ConnectionError} when the service cannot be reached
   * @throws {NotFoundError} `organization_not_found` when `organizationUuid` is given and is not the key's
   * @example const backend = await RemoteBackend.connect({ url: "http://127.0.0.1:8000", apiKey });
   */
  static async connect(options: RemoteBackendOptions): Promise<RemoteBackend> {
    const http = new HttpClient(options);
    const me = await new RemoteBackend(http, "").whoAmI();
    if (
      options.organizationUuid !== undefined &&
      options.organizationUuid.toLowerCase() !== me.organization_uuid
    )
      throw new NotFoundError(
        `Organization ${options.organizationUuid} not found for this API key (the key belongs to ${me.organization_uuid}).`,
        "organization_not_found",
      );
    return new RemoteBackend(http, me.organization_uuid);
  }

  /** The service path of an operation for the path arguments of a call (each one URL-encoded). */
  path(op: AnyOperation, args: readonly string[]): string {
    let i = 0;
    return op.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) =>
      encodeURIComponent(name === "organization_uuid" ? this.organizationUuid : (args[i++] ?? "")),
    );
  }

  /**
   * Calls `POST .../rebalance_runs/` in chunks of {@link REBALANCE_RUN_CHUNK} accounts until the run is completed
   * (the first call carries `force`; later ones continue the newest run of the key). With `max_accounts` in the body,
   * one call.
   */
  async rebalanceAll(
    body: RebalanceRunRequest,
    options: RebalanceRunCallOptions = {},
  ): Promise<RebalanceRun> {
    if (body.max_accounts !== undefined) return this.runRebalance(body);
    let run = await this.runRebalance({ ...body, max_accounts: REBALANCE_RUN_CHUNK });
    const { force: _force, ...rest } = body;
    for (;;) {
      options.onProgress?.(run.totals.accounts - run.totals.pending, run.totals.accounts);
      if (run.status === "completed") return run;
      // A service with a job queue runs the run on its workers: follow it.
      if (run.queued_jobs !== undefined && run.queued_jobs > 0)
        run = await this.followQueuedRun(run, options);
      if (run.status === "completed") return run;
      const pending = run.totals.pending;
      run = await this.runRebalance({ ...rest, max_accounts: REBALANCE_RUN_CHUNK });
      // A call that leaves as many accounts pending made no progress: answer the run as it is rather than loop.
      if (run.status !== "completed" && run.totals.pending >= pending && !(run.queued_jobs ?? 0)) return run;
    }
  }

  /** Polls a run processed by the service's workers until it completes or none of its jobs is queued any more. */
  private async followQueuedRun(run: RebalanceRun, options: RebalanceRunCallOptions): Promise<RebalanceRun> {
    for (let poll = 0; run.status !== "completed" && (run.queued_jobs ?? 0) > 0; poll++) {
      const wait = SCAN_JOB_POLL_MS[Math.min(poll, SCAN_JOB_POLL_MS.length - 1)]!;
      await new Promise((resolve) => setTimeout(resolve, wait));
      run = await this.getRebalanceRun(run.run_uuid);
      options.onProgress?.(run.totals.accounts - run.totals.pending, run.totals.accounts);
    }
    return run;
  }

  /**
   * The whole selection as a scan job (`POST .../scan_jobs/`): the service scans a selection up to its threshold
   * in the request and answers the job finished, and runs a larger one on its job workers, which this method polls
   * (progress from the job's progress record) until it ends. With `limit`, the one page asked for; with `offset`
   * alone, the pages from there ({@link SCAN_PAGE_MAX} accounts each).
   * @throws {PortfolioError} `scan_job_failed` with the job's error_message when the job fails
   */
  async scan(request: ScanRequest = {}, options: ScanProgressOptions = {}): Promise<ScanResult> {
    if (request.limit !== undefined) {
      const one = await this.scanAccounts(request);
      options.onProgress?.(one.rows.length, one.rows.length);
      return one;
    }
    if (request.offset === undefined) return this.scanAsJob(request, options);
    const start = request.offset ?? 0;
    let next: number | null = start;
    const rows: ScanResult["rows"] = [];
    let first: ScanResult | undefined;
    while (next !== null) {
      // Every page at the first page's date (the default date could move between requests).
      const asOf = first?.as_of_date ?? request.as_of_date;
      const p: ScanResult = await this.scanAccounts({
        ...request,
        ...(asOf !== undefined ? { as_of_date: asOf } : {}),
        offset: next,
        limit: SCAN_PAGE_MAX,
      });
      first ??= p;
      rows.push(...p.rows);
      next = p.next_offset;
      options.onProgress?.((next ?? p.selected_accounts) - start, p.selected_accounts - start);
    }
    return {
      as_of_date: first!.as_of_date,
      selected_accounts: first!.selected_accounts,
      offset: start,
      next_offset: null,
      rows,
      summary: summarizeScan(rows),
    };
  }

  /** Starts a scan job and polls it to its end. */
  private async scanAsJob(request: ScanRequest, options: ScanProgressOptions): Promise<ScanResult> {
    const { offset: _offset, limit: _limit, ...body } = request;
    let job: ScanJob = await this.startScanJob(body);
    for (let poll = 0; ; poll++) {
      options.onProgress?.(job.progress.completed_accounts, job.progress.total_accounts);
      if (job.status === "SUCCESS" && job.result !== null) return job.result;
      if (job.status === "FAILURE")
        throw new PortfolioError(`Scan job ${job.id} failed: ${job.error_message ?? "no message"}`, {
          code: "scan_job_failed",
        });
      const wait = SCAN_JOB_POLL_MS[Math.min(poll, SCAN_JOB_POLL_MS.length - 1)]!;
      await new Promise((resolve) => setTimeout(resolve, wait));
      job = await this.getScanJob(job.id);
    }
  }

  /**
   * Calls an operation of the table with the arguments of its Backend method. A file is streamed as the body
   * (lots import: one request, one all-or-nothing import on the server).
   */
  call(op: AnyOperation, args: readonly unknown[]): Promise<unknown> {
    const input = callInput(op, args);
    return this.http.request(op.method, this.path(op, input.path), {
      operation: op.operationId,
      ...(op.body ? { body: input.body } : {}),
      ...(op.query ? { query: queryStrings(input.query) } : {}),
      ...(op.upload && input.upload !== undefined
        ? {
            upload: { contentType: op.upload.contentType, data: input.upload },
            timeoutMs: op.upload.clientTimeoutMs,
          }
        : {}),
      ...(op.response.schema ? { schema: op.response.schema } : {}),
    });
  }
}

installOperationMethods(RemoteBackend, OPERATION_LIST, (self, op, args) => self.call(op, args));
