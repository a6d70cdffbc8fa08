/**
 * The Node side of `serve()` in `_serve.ts`: a `node:http` server that
 * turns each `IncomingMessage` into a web `Request` and writes the handler's
 * `Response` back, streaming both bodies. Deno never loads this file.
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Readable } from "node:stream";
import type { PlatformServer, ServeOptions } from "./_serve_types.ts";

type Handler = (request: Request) => Response | Promise<Response>;

/**
 * Serves `handler` with `node:http`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveNode } from "./_node_serve.ts";
 *
 * const server = await serveNode(() => new Response("hi"), { hostname: "127.0.0.1", port: 0 });
 * const response = await fetch(`http://127.0.0.1:${server.port}/`);
 * assert.equal(await response.text(), "hi");
 * await server.shutdown();
 * ```
 */
export async function serveNode(handler: Handler, options: ServeOptions): Promise<PlatformServer> {
  const sockets = new Set<Socket>();
  let stopping: Promise<void> | undefined;
  const server = createServer((req, res) => {
    // Once stopping, a connection closes after its answer instead of idling.
    res.on("finish", () => {
      if (stopping) server.closeIdleConnections();
    });
    void answer(handler, req, res, () => stopping !== undefined);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  server.on("close", () => finish());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  // Graceful: no new connections, idle keep-alive ones closed, requests in flight finish.
  const shutdown = (): Promise<void> => {
    stopping ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    return stopping;
  };
  // Forced (the signal): every connection is closed now.
  const abort = () => {
    void shutdown();
    for (const socket of sockets) socket.destroy();
  };
  if (options.signal?.aborted) abort();
  options.signal?.addEventListener("abort", abort, { once: true });
  return {
    hostname: address.address,
    port: address.port,
    shutdown,
    finished,
  };
}

async function answer(
  handler: Handler,
  req: IncomingMessage,
  res: ServerResponse,
  stopping: () => boolean,
) {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  let response: Response;
  try {
    response = await handler(toRequest(req, controller.signal));
  } catch {
    response = new Response(null, { status: 500 });
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) {
    if (name === "set-cookie") continue;
    headers[name] = value;
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  if (stopping()) headers["connection"] = "close";
  res.writeHead(response.status, response.statusText || undefined, headers);
  if (response.body === null || req.method === "HEAD") {
    res.end();
    return;
  }
  try {
    for await (const chunk of response.body) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once("drain", resolve));
    }
    res.end();
  } catch {
    res.destroy();
  }
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const host = req.headers.host ?? "localhost";
  const url = `http://${host}${req.url ?? "/"}`;
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    signal,
    body: hasBody ? (Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>) : undefined,
    // Required by Node's fetch for a streamed body.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}
