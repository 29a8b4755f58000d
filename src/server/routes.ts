/**
 * @module server/routes
 * The route table of the service: one route per operation of the operation table (service/operations.ts), which
 * declares each operation once. A route calls its operation's service function with the key's organization and the
 * validated path parameters, query and body; an answer whose JSON text the service already has (a stored proposal)
 * is sent as that text.
 */
import {
  type AnyOperation,
  JsonText,
  LOTS_CSV_MAX_BODY_BYTES,
  LOTS_CSV_MULTIPART_MAX_BODY_BYTES,
  OPERATION_LIST,
  ORG_PREFIX,
  RISK_MODEL_MAX_BODY_BYTES,
} from "../service/index.js";
import type { AnyRoute, RouteInput } from "./route.js";

export { LOTS_CSV_MAX_BODY_BYTES, LOTS_CSV_MULTIPART_MAX_BODY_BYTES, ORG_PREFIX, RISK_MODEL_MAX_BODY_BYTES };

/** The reply of a route for an operation's result. */
function reply(op: AnyOperation, result: unknown): unknown {
  if (result instanceof Promise) return result.then((r) => reply(op, r));
  if (result instanceof JsonText)
    return new Response(result.json, {
      status: op.response.status,
      headers: { "content-type": "application/json" },
    });
  return result;
}

/** The route of an operation. */
export function routeOf(op: AnyOperation): AnyRoute {
  const route: AnyRoute = {
    method: op.method,
    path: op.path,
    operationId: op.operationId,
    summary: op.summary,
    tag: op.tag,
    response: op.response,
    errorCodes: op.errors,
    handler: ({ ctx, org, keyId, params, body, query, upload }: RouteInput<unknown, unknown>) =>
      reply(op, op.run({ ctx, org, keyId, params, body, query, upload })),
  };
  if (op.description !== undefined) route.description = op.description;
  if (op.specEndpoint !== undefined) route.specEndpoint = op.specEndpoint;
  if (op.body) route.body = op.body;
  if (op.upload)
    route.upload = {
      maxBytes: op.upload.maxBytes,
      multipartMaxBytes: op.upload.multipartMaxBytes,
      description: op.upload.description,
    };
  if (op.query) route.query = op.query;
  if (op.cache) route.cache = true;
  if (op.rateLimited) route.rateLimited = true;
  if (op.heavy) route.heavy = op.heavy;
  return route;
}

/** Every operation route of the service, in documentation order. */
export const API_ROUTES: readonly AnyRoute[] = OPERATION_LIST.map(routeOf);
