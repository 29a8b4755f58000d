/**
 * @module cli/context
 * Global options -> where commands run. Local mode opens a store file (`--store`, `LOTWISE_STORE`, default
 * `./lotwise.db`) and acts for one organization (`--org`, `LOTWISE_ORG`, or the store's only organization). Remote
 * mode (`--url` + `--api-key`, or `LOTWISE_URL` + `LOTWISE_API_KEY`) talks to a running `lotwise serve`. On a
 * PostgreSQL store with a job queue (`LOTWISE_QUEUE`, or `--queue` of serve/worker), local mode enqueues the jobs it
 * creates on that queue and `lotwise worker` processes run them (docs/deploy.md).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { NotFoundError, ValidationError } from "../core/errors.js";
import type { Backend, ServiceContext } from "../service/index.js";
import type { JobQueue } from "../service/jobs/queue/types.js";
import { isPostgresLocation, type LotwiseStore, openStore } from "../store/index.js";
import { usageError } from "./errors.js";
import { limitsFromEnv } from "./limits.js";
import { type Output, processOutput } from "./output.js";

/** Options every command accepts (see {@link addGlobalOptions}). */
export interface GlobalOptions {
  store?: string;
  url?: string;
  apiKey?: string;
  org?: string;
  json?: boolean;
  /** The job queue (`redis://...`): `--queue` of serve and worker, else `LOTWISE_QUEUE`. */
  queue?: string;
}

export const DEFAULT_STORE = "lotwise.db";

/** A location for a message: whatever precedes an `@` (user and password) is masked. */
function withoutCredentials(location: string): string {
  const at = location.lastIndexOf("@");
  if (at < 0) return location;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(location)?.[0] ?? "";
  return `${scheme}***${location.slice(at)}`;
}

/** Where a command runs; `close()` releases the store. */
export interface CommandContext {
  out: Output;
  options: GlobalOptions;
  /** Location of the local store (local mode only): an absolute file path, or a `postgres://` URL as given. */
  storePath(): string;
  /** The local store (opened on first use). @throws {ValidationError} in remote mode. */
  store(): Promise<LotwiseStore>;
  /** Service context over the local store. */
  service(): Promise<ServiceContext>;
  /** The backend (local or remote) for organization-scoped operations. */
  backend(): Promise<Backend>;
  /** True when --url / LOTWISE_URL selects a server. */
  readonly remote: boolean;
  /**
   * The job queue's URL when jobs go through it: local mode, a PostgreSQL store and `options.queue` set (with SQLite
   * the queue is ignored: jobs run on this process's or `lotwise serve`'s worker threads).
   */
  queueUrl(): string | undefined;
  /** The job queue of {@link service} (opened on first use), or undefined when {@link queueUrl} is. */
  jobQueue(): Promise<JobQueue | undefined>;
  close(): Promise<void>;
}

export function resolveGlobalOptions(
  raw: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
): GlobalOptions {
  const pick = (v: string | undefined, e: string | undefined) =>
    v !== undefined && v !== "" ? v : e || undefined;
  const out: GlobalOptions = {};
  const store = pick(raw.store, env.LOTWISE_STORE);
  const url = pick(raw.url, env.LOTWISE_URL);
  const apiKey = pick(raw.apiKey, env.LOTWISE_API_KEY);
  const org = pick(raw.org, env.LOTWISE_ORG);
  const queue = pick(raw.queue, env.LOTWISE_QUEUE);
  if (queue) out.queue = queue;
  if (store) out.store = store;
  if (url) out.url = url;
  if (apiKey) out.apiKey = apiKey;
  if (org) out.org = org;
  if (raw.json) out.json = true;
  return out;
}

export function createCommandContext(
  raw: GlobalOptions,
  out: Output = processOutput(Boolean(raw.json)),
): CommandContext {
  const options = resolveGlobalOptions(raw);
  let store: Promise<LotwiseStore> | undefined;
  let queue: Promise<JobQueue> | undefined;
  let backend: Backend | undefined;
  const remote = options.url !== undefined;
  const storePath = () => {
    const location = options.store ?? DEFAULT_STORE;
    return isPostgresLocation(location) ? location : resolve(location);
  };
  const ctx: CommandContext = {
    out,
    options,
    remote,
    storePath,
    async store() {
      if (remote)
        throw new ValidationError(
          "This command works on a local store only; drop --url / LOTWISE_URL and use --store.",
          [],
          "local_only",
        );
      if (!store) {
        const path = storePath();
        if (!isPostgresLocation(path) && !existsSync(path))
          throw new NotFoundError(
            `No lotwise store at ${path}. Create one with \`lotwise init --store ${path}\` (add --demo for sample data).`,
            "store_not_found",
          );
        store = openStore(path, { create: false });
        store.catch(() => {
          store = undefined;
        });
      }
      return store;
    },
    queueUrl() {
      if (remote || options.queue === undefined || !isPostgresLocation(storePath())) return undefined;
      // Checked before anything connects: ioredis takes "host:6379" or "http://host:6379" for a socket path and
      // retries it forever ("connect ENOENT //host:6379").
      if (!/^rediss?:\/\/[^/]/i.test(options.queue))
        throw usageError(
          `The job queue (--queue or LOTWISE_QUEUE) must be a redis:// or rediss:// URL, redis://[user:password@]host:6379[/db]; got ${withoutCredentials(options.queue)}.`,
          "queue",
        );
      return options.queue;
    },
    async jobQueue() {
      const url = ctx.queueUrl();
      if (url === undefined) return undefined;
      if (!queue) {
        const opened = await ctx.store();
        // Loaded on demand: commands without a queue never load BullMQ.
        queue = import("../service/jobs/queue/bull-queue.js").then(
          ({ BullJobQueue }) =>
            new BullJobQueue({
              connection: url,
              store: opened,
              ...(process.env.LOTWISE_QUEUE_PREFIX ? { prefix: process.env.LOTWISE_QUEUE_PREFIX } : {}),
            }),
        );
      }
      return queue;
    },
    async service() {
      // Queued-job cap and proposal retention from LOTWISE_* variables (cli/limits.ts), else the service defaults.
      const jobQueue = await ctx.jobQueue();
      return {
        store: await ctx.store(),
        clock: () => new Date(),
        limits: limitsFromEnv(),
        ...(jobQueue ? { jobQueue } : {}),
      };
    },
    async backend(): Promise<Backend> {
      if (backend) return backend;
      if (remote) {
        if (!options.apiKey)
          throw new ValidationError(
            "Remote mode needs an API key: pass --api-key or set LOTWISE_API_KEY.",
            [{ path: "api-key", message: "missing" }],
            "usage",
          );
        // Loaded on demand: a local command never loads the HTTP client, a remote one never the service layer.
        const { RemoteBackend } = await import("../client/index.js");
        backend = await RemoteBackend.connect({ url: checkedUrl(options.url!), apiKey: options.apiKey });
        return backend;
      }
      const service = await ctx.service();
      const { LocalBackend } = await import("../service/local-backend.js");
      backend = new LocalBackend(service, await resolveOrganization(service.store, options.org));
      return backend;
    },
    async close() {
      const q = queue;
      queue = undefined;
      if (q) await (await q.catch(() => undefined))?.close().catch(() => {});
      const opened = store;
      store = undefined;
      if (opened) await (await opened.catch(() => undefined))?.close();
    },
  };
  return ctx;
}

/** The organization to act for in local mode: `--org`, else the store's only organization. */
export async function resolveOrganization(store: LotwiseStore, org: string | undefined): Promise<string> {
  if (org) {
    if (!(await store.organizations.get(org)))
      throw new NotFoundError(`Organization ${org} is not in ${store.location}.`, "organization_not_found");
    return org;
  }
  const all = await store.organizations.list();
  if (all.length === 1) return all[0]!.uuid;
  if (all.length === 0)
    throw new NotFoundError(
      `The store ${store.location} has no organization yet; run \`lotwise orgs create NAME\`.`,
      "organization_not_found",
    );
  throw new ValidationError(
    `The store holds ${all.length} organizations; choose one with --org or LOTWISE_ORG: ${all.map((o) => `${o.uuid} (${o.name})`).join(", ")}`,
    [{ path: "org", message: "required when the store has several organizations" }],
    "usage",
  );
}

/**
 * The --url value when it is an http(s) URL; otherwise a usage error that says what was expected (a bare
 * `127.0.0.1:8000` gets "did you mean http://127.0.0.1:8000?").
 */
export function checkedUrl(value: string): string {
  if (/^https?:\/\//i.test(value)) {
    try {
      new URL(value);
      return value;
    } catch {
      // falls through to the usage error
    }
  }
  const hint = /^[a-z][a-z0-9+.-]*:\/\//i.test(value)
    ? "only http:// and https:// are supported"
    : `did you mean http://${value}?`;
  throw new ValidationError(
    `--url "${value}" is not an http(s) URL (${hint})`,
    [{ path: "url", message: "expected e.g. http://127.0.0.1:8000" }],
    "usage",
  );
}
