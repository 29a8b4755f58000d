/**
 * @module server/node
 * The app on a Node HTTP server (@hono/node-server). `serve()` resolves once the socket listens and returns a
 * handle with the bound address and a graceful `close()`; the CLI's `lotwise serve` wires SIGINT/SIGTERM to it.
 */
import { maxHeaderSize, type Server, STATUS_CODES } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { ValidationError } from "../core/errors.js";
import { type AppOptions, closeApp, createApp, type LotwiseApp, markAppStopping, warmApp } from "./app.js";
import { errorResponse } from "./error-response.js";
import { HttpError } from "./http-error.js";

/** Default address of `lotwise serve` (loopback: exposing the service is an explicit choice). */
export const DEFAULT_HOST = "127.0.0.1";
/** Default port of `lotwise serve`. */
export const DEFAULT_PORT = 8000;

/** Options of {@link serve}: the app's options plus where to listen. */
export interface ServeOptions extends AppOptions {
  /** Interface to bind. @default DEFAULT_HOST */
  host?: string;
  /** Port to bind; 0 picks a free one. @default DEFAULT_PORT */
  port?: number;
  /** Start the request workers at once rather than on the first heavy request. @default false */
  warmWorkers?: boolean;
}

/** A listening server. */
export interface ServerHandle {
  /** The bound interface. */
  readonly host: string;
  /** The bound port (the real one when 0 was asked). */
  readonly port: number;
  /** Base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  /** The Hono app served. */
  readonly app: LotwiseApp;
  /** The Node server (for advanced wiring). */
  readonly server: Server;
  /**
   * Stops accepting connections (and `/readyz` answers 503 on the open ones), lets in-flight requests finish for up
   * to `graceMs`, then closes what is left and stops the app's request workers. Resolves when both are closed; idempotent.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * The error for a request node:http refused before the app saw it: 431 when the request line (a long URL) and
 * headers pass Node's limit (`--max-http-header-size`, 16 KiB by default), else 400 for a request that does not
 * parse as HTTP.
 */
function clientErrorOf(err: NodeJS.ErrnoException, maxHeaderSize: number): Error {
  if (err.code === "HPE_HEADER_OVERFLOW")
    return new HttpError(
      "request_header_fields_too_large",
      `The URL and headers of the request are longer than the limit of ${maxHeaderSize / 1024} KiB; send long inputs in a request body.`,
    );
  return new ValidationError("The request is not well-formed HTTP/1.1.", [], "malformed_request");
}

/**
 * Answers a request node:http refused while parsing with the error envelope (Node's own answer is a bare status
 * line), then closes the connection. A socket already answering or gone is destroyed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket, maxHeaderSize: number): void {
  if (err.code === "ECONNRESET" || !socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  // The request-timeout answer keeps Node's own status and code.
  const timeout = err.code === "ERR_HTTP_REQUEST_TIMEOUT" || err.code === "HPE_REQUEST_TIMEOUT";
  const r = timeout
    ? {
        status: 408,
        body: { error: { code: "request_timeout", message: "The request took too long to arrive." } },
      }
    : errorResponse(clientErrorOf(err, maxHeaderSize), () => {});
  const body = JSON.stringify(r.body);
  socket.end(
    `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ""}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Starts the service on a port.
 * @throws {Error} (rejects) when the address cannot be bound, e.g. `EADDRINUSE`.
 * @example const handle = await serve({ ctx, port: 0 }); ...; await handle.close();
 */
export function serve(options: ServeOptions): Promise<ServerHandle> {
  const app = createApp(options);
  if (options.warmWorkers) warmApp(app);
  const host = options.host ?? DEFAULT_HOST;
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(err, socket, maxHeaderSize),
  );
  return new Promise((resolve, reject) => {
    const failed = (err: Error) => {
      void closeApp(app);
      reject(err);
    };
    server.once("error", failed);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off("error", failed);
      const address = server.address() as AddressInfo;
      const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      let closing: Promise<void> | undefined;
      resolve({
        host: address.address,
        port: address.port,
        url: `http://${urlHost}:${address.port}`,
        app,
        server,
        close: ({ graceMs = 5_000 } = {}) => {
          // Requests still arriving on open connections learn from /readyz that this instance is going away.
          markAppStopping(app);
          closing ??= new Promise<void>((done) => {
            const timer = setTimeout(() => server.closeAllConnections(), graceMs);
            timer.unref();
            server.close(() => {
              clearTimeout(timer);
              void closeApp(app, { graceMs }).then(done);
            });
            // Keep-alive sockets with no request in flight would otherwise hold close() open.
            server.closeIdleConnections();
          });
          return closing;
        },
      });
    });
  });
}
