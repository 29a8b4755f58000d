/**
 * @module service/local-backend
 * {@link Backend} over the service layer and a local store, bound to one organization. Its methods are generated
 * from the operation table (service/operations.ts), whose service functions the HTTP server runs too, so a command
 * run locally and one run against `lotwise serve` give identical JSON: bodies and queries are validated with the
 * same contract schemas as at the HTTP boundary, and answers pass through the response schema as the HTTP client
 * does with the server's (same validation, same key order).
 */
import {
  parseOrThrow,
  type RebalanceRun,
  type RebalanceRunRequest,
  rebalanceRunRequestSchema,
  rebalanceRunSchema,
  type ScanRequest,
  type ScanResult,
  scanRequestSchema,
  scanResultSchema,
} from "../contract/index.js";
import { NotFoundError } from "../core/errors.js";
import type { Backend, BackendMethods, RebalanceRunCallOptions, ScanProgressOptions } from "./backend.js";
import type { ServiceContext } from "./context.js";
import {
  type AnyOperation,
  callInput,
  installOperationMethods,
  JsonText,
  pathParameters,
  queryStrings,
} from "./operation.js";
import { OPERATION_LIST } from "./operations.js";

// The methods of BackendMethods are installed on the prototype from the operation table (below).
export interface LocalBackend extends BackendMethods {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above.
export class LocalBackend implements Backend {
  readonly kind = "local" as const;

  /** A backend of an organization known to exist (see {@link LocalBackend.open}, which checks). */
  constructor(
    readonly ctx: ServiceContext,
    readonly organizationUuid: string,
  ) {}

  /**
   * The backend of an organization of the store.
   * @throws {NotFoundError} `organization_not_found` when the store has no such organization.
   */
  static async open(ctx: ServiceContext, organizationUuid: string): Promise<LocalBackend> {
    if (!(await ctx.store.organizations.get(organizationUuid)))
      throw new NotFoundError(
        `Organization ${organizationUuid} not found in ${ctx.store.location}.`,
        "organization_not_found",
      );
    return new LocalBackend(ctx, organizationUuid);
  }

  async rebalanceAll(
    body: RebalanceRunRequest,
    options: RebalanceRunCallOptions = {},
  ): Promise<RebalanceRun> {
    const request = parseOrThrow(rebalanceRunRequestSchema, body, "request body");
    const onProgress = options.onProgress;
    const run =
      (options.concurrency ?? 1) > 1
        ? await (await import("./rebalance-run-workers.js")).runRebalanceInWorkers(
            this.ctx,
            this.organizationUuid,
            request,
            {
              workers: options.concurrency!,
              onProgress,
            },
          )
        : await (await import("./rebalance-runs.js")).runRebalance(this.ctx, this.organizationUuid, request, {
            ...(onProgress === undefined ? {} : { onProgress: (p) => onProgress(p.completed, p.total) }),
          });
    return rebalanceRunSchema.parse(run);
  }

  async scan(request: ScanRequest = {}, options: ScanProgressOptions = {}): Promise<ScanResult> {
    const { as_of_date, min_loss_usd, min_loss_fraction, offset, limit, ...selection } = parseOrThrow(
      scanRequestSchema,
      request,
      "request body",
    );
    const { scanAccountsParallel } = await import("./scan-parallel.js");
    const result = await scanAccountsParallel(this.ctx, this.organizationUuid, selection, {
      asOf: as_of_date,
      minLossUsd: min_loss_usd,
      minLossFraction: min_loss_fraction,
      offset,
      limit,
      onProgress: options.onProgress,
      concurrency: options.concurrency,
    });
    return scanResultSchema.parse(result);
  }

  /**
   * Runs an operation of the table with the arguments of its Backend method: validates the body and query, calls
   * the service function as the organization (key id `local`) and validates the answer.
   */
  async call(op: AnyOperation, args: readonly unknown[]): Promise<unknown> {
    const input = callInput(op, args);
    const names = pathParameters(op.path).filter((p) => p !== "organization_uuid");
    const params = Object.fromEntries(names.map((name, i) => [name, input.path[i] ?? ""]));
    const body = op.body ? parseOrThrow(op.body.schema, input.body, "request body") : undefined;
    const query = op.query ? parseOrThrow(op.query, queryStrings(input.query), "query") : {};
    let result = await op.run({
      ctx: this.ctx,
      org: this.organizationUuid,
      keyId: "local",
      params,
      body,
      query,
      upload: input.upload,
    });
    if (result instanceof JsonText) result = result.value;
    if (!op.response.schema) return undefined;
    const parsed = op.response.schema.safeParse(result);
    if (!parsed.success)
      throw new Error(`internal error: an answer does not match the contract: ${parsed.error.message}`);
    return parsed.data;
  }
}

installOperationMethods(LocalBackend, OPERATION_LIST, (self, op, args) => self.call(op, args));
