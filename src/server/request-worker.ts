/**
 * @module server/request-worker
 * Main module of a request worker thread (see request-pool.ts): opens its own connection to the store file, then
 * runs the heavy routes' handlers one task at a time, on input the main thread already authenticated and
 * validated. The answer is the JSON text of the result (transferred, not copied) or the error envelope of
 * `errorResponse`, so a pooled request answers exactly like an in-process one.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { PortfolioError } from "../core/errors.js";
import { openStoreContext, type ServiceContext } from "../service/index.js";
import { errorResponse } from "./error-response.js";
import type {
  FromRequestWorker,
  RequestAnswer,
  RequestTask,
  RequestWorkerInit,
  ToRequestWorker,
} from "./request-pool.js";
import type { AnyRoute } from "./route.js";
import { API_ROUTES } from "./routes.js";

if (!parentPort) throw new Error("request-worker: this module runs as a worker thread of the HTTP server");
const port: MessagePort = parentPort;
const init = workerData as RequestWorkerInit;
const post = (message: FromRequestWorker, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);
const routes = new Map<string, AnyRoute>(
  API_ROUTES.filter((r) => r.heavy !== undefined && r.heavy !== false).map((r) => [r.operationId, r]),
);

/** The main context's clock at the dispatch of the current task (see RequestTask.nowMs). */
let nowMs = Date.now();
const clock = () => new Date(nowMs);

async function answer(ctx: ServiceContext, task: RequestTask): Promise<RequestAnswer> {
  const route = routes.get(task.operationId);
  if (!route) return { kind: "internal", detail: `request worker: no heavy route ${task.operationId}` };
  nowMs = task.nowMs;
  try {
    const result = await route.handler({
      ctx,
      org: task.org,
      keyId: task.keyId,
      params: task.params,
      body: task.body,
      query: task.query,
      // Heavy handlers do not read the request; this one carries the method and URL for the record.
      request: new Request(task.url, { method: task.method }),
      // Upload routes stream their body on the main thread; they are never heavy.
      upload: undefined,
    });
    if (result instanceof Response)
      return {
        kind: "ok",
        bytes: new Uint8Array(await result.arrayBuffer()),
        status: result.status,
        contentType: result.headers.get("content-type") ?? "application/json",
      };
    // TextEncoder gives a buffer of its own (Buffer.from may share its pool slab, which cannot be transferred).
    return {
      kind: "ok",
      bytes: result === undefined ? new Uint8Array(0) : new TextEncoder().encode(JSON.stringify(result)),
    };
  } catch (err) {
    if (err instanceof PortfolioError) {
      const r = errorResponse(err, () => {});
      return { kind: "error", status: r.status, body: r.body, headers: r.headers };
    }
    return {
      kind: "internal",
      detail: err instanceof Error ? (err.stack ?? err.message) : `non-Error value thrown: ${String(err)}`,
    };
  }
}

function main(ctx: ServiceContext): void {
  // One task at a time, in arrival order; "stop" waits for the task before it.
  let chain: Promise<void> = Promise.resolve();
  port.on("message", (message: ToRequestWorker) => {
    chain = chain.then(async () => {
      if (message.type === "stop") {
        await ctx.jobQueue?.close().catch(() => {});
        await ctx.store.close();
        port.close();
        return;
      }
      const a = await answer(ctx, message.task);
      post(
        { type: "answer", id: message.id, answer: a },
        a.kind === "ok" ? [a.bytes.buffer as ArrayBuffer] : [],
      );
    });
  });
  post({ type: "ready" });
}

let ctx: ServiceContext | undefined;
try {
  const opened = await openStoreContext(init.storePath, clock);
  // A job created by a request of this thread (a scan job) is enqueued here, like on the main thread.
  const jobQueue = init.queue
    ? new (await import("../service/jobs/queue/bull-queue.js")).BullJobQueue({
        ...init.queue,
        store: opened.store,
      })
    : undefined;
  ctx = { ...opened, ...(init.limits ? { limits: init.limits } : {}), ...(jobQueue ? { jobQueue } : {}) };
  main(ctx);
} catch (err) {
  await ctx?.store.close();
  post({ type: "fatal", message: err instanceof Error ? err.message : String(err) });
  port.close();
}
