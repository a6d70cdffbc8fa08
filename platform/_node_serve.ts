/**
 * The Node side of `serve()` in `_serve.ts`: a `node:http` server that
 * turns each `IncomingMessage` into a web `Request` and writes the handler's
 * `Response` back. A small body with a declared length is read whole first, and an answer that is
 * not an event stream is written whole with its length (one write, as a plain `node:http` server
 * does); other bodies and event streams stream. Deno never loads this file.
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import type { PlatformServer, ServeOptions } from "./_serve_types.ts";
import { enableLightResponses, type LightParts, lightParts } from "./_light_response.ts";
import { clientGone, headersFromRaw, NodeRequest } from "./_node_request.ts";

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
  // From now on the endpoint's string answers come as light ones this adapter writes directly.
  enableLightResponses();
  const sockets = new Set<Socket>();
  let stopping: Promise<void> | undefined;
  const isStopping = () => stopping !== undefined;
  // Once stopping, a connection closes after its answer instead of idling (one listener for all).
  const closeIfStopping = () => {
    if (stopping) server.closeIdleConnections();
  };
  const server = createServer((req, res) => {
    res.on("finish", closeIfStopping);
    void answer(handler, req, res, isStopping);
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

/**
 * Request bodies that declare a length of at most this many bytes are read whole before the handler
 * runs and handed to it as one buffer: no web stream over a Node stream for the usual small
 * JSON-RPC message. Longer bodies, and bodies without a declared length, stream as they come, so
 * that a handler can refuse one over its limit without reading it.
 */
const BUFFERED_BODY_MAX = 1 << 20;

/** Answers whose body is not an event stream are read whole and written at once, with a length. */
const EVENT_STREAM = "text/event-stream";

async function answer(
  handler: Handler,
  req: IncomingMessage,
  res: ServerResponse,
  stopping: () => boolean,
) {
  let response: Response;
  try {
    const buffered = bufferedBody(req);
    response = await handler(toRequest(req, res, buffered && await buffered));
  } catch {
    response = new Response(null, { status: 500 });
  }
  const light = lightParts(response);
  if (light !== undefined) return writeLight(light, req, res, stopping());
  const headers = headLines(response.headers, response.headers.getSetCookie(), stopping());
  const body = response.body;
  if (body === null || req.method === "HEAD") {
    res.writeHead(response.status, response.statusText || undefined, headers);
    res.end();
    return;
  }
  if (!(headers["content-type"] as string | undefined)?.startsWith(EVENT_STREAM)) {
    // A whole answer: one write, with its length, as a plain node:http server sends it.
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch {
      res.destroy();
      return;
    }
    headers["content-length"] = String(bytes.byteLength);
    res.writeHead(response.status, response.statusText || undefined, headers);
    res.end(bytes);
    return;
  }
  res.writeHead(response.status, response.statusText || undefined, headers);
  // A client that goes away cancels the stream (a listen then ends and frees its slot), and a
  // write waiting for the socket to drain stops waiting.
  const reader = body.getReader();
  let gone = false;
  const onClose = () => {
    gone = true;
    reader.cancel().catch(() => {});
  };
  // The client may have gone while the handler ran: its "close" is then emitted already.
  if (res.destroyed) onClose();
  else res.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone) break;
      if (!res.write(value)) await drainedOrClosed(res);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off("close", onClose);
  }
}

/** Resolves when `res` can take more, or is closed. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/**
 * Writes a light answer from its parts: the same status, header lines and body bytes as the
 * `Response` it stands for, the body as a string in one `end()` (Node then sends the head and the
 * body in one write). An event stream goes out chunked, as a streamed one does.
 */
function writeLight(
  light: LightParts,
  req: IncomingMessage,
  res: ServerResponse,
  stopping: boolean,
) {
  const headers = headLines(light.headers, light.cookies, stopping);
  const body = light.body;
  if (body === null || req.method === "HEAD") {
    res.writeHead(light.status, headers);
    res.end();
    return;
  }
  if ((headers["content-type"] as string | undefined)?.startsWith(EVENT_STREAM)) {
    res.writeHead(light.status, headers);
    if (body.length) res.write(body);
    res.end();
    return;
  }
  headers["content-length"] = String(Buffer.byteLength(body));
  res.writeHead(light.status, headers);
  res.end(body);
}

/**
 * The header lines of an answer's head, as `writeHead` takes them: `pairs` but `set-cookie`, the
 * `cookies` as one list, and `Connection: close` once the server is stopping.
 */
function headLines(
  pairs: Iterable<readonly [string, string]>,
  cookies: readonly string[],
  stopping: boolean,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of pairs) if (name !== "set-cookie") headers[name] = value;
  if (cookies.length) headers["set-cookie"] = cookies as string[];
  if (stopping) headers["connection"] = "close";
  return headers;
}

/**
 * The whole body of a request that declares a small length ({@linkcode BUFFERED_BODY_MAX}), else
 * undefined (no body, or one to stream). A body cut short (the client closed or reset the
 * connection first) is an error: the handler's read of it fails, as Deno's does, and nothing of it
 * is carried out.
 */
function bufferedBody(req: IncomingMessage): Promise<Uint8Array | Error> | undefined {
  const method = req.method;
  if (method === "GET" || method === "HEAD") return undefined;
  const declared = req.headers["content-length"];
  if (declared === undefined || req.headers["transfer-encoding"] !== undefined) return undefined;
  const size = Number(declared);
  if (!Number.isSafeInteger(size) || size < 0 || size > BUFFERED_BODY_MAX) return undefined;
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let length = 0;
    const done = () => {
      req.off("data", data);
      req.off("end", done);
      req.off("error", done);
      req.off("close", done);
      resolve(
        !req.complete
          ? new Error("the connection closed before the whole body came")
          : chunks.length === 1
          ? chunks[0]
          : concat(chunks, length),
      );
    };
    const data = (chunk: Uint8Array) => {
      chunks.push(chunk);
      length += chunk.byteLength;
    };
    req.on("data", data);
    req.on("end", done);
    req.on("error", done);
    req.on("close", done);
  });
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** The answer a {@linkcode StreamedRequest}'s signal watches. */
const ANSWER = Symbol("answer");
/** The controller of a {@linkcode StreamedRequest}'s signal, once it was asked for. */
const CONTROLLER = Symbol("controller");

/**
 * A `Request` with a streamed body whose `signal` is made when first read: it aborts when the
 * client goes away before its answer is written. Most handlers never read it, and a `Request`
 * built with a signal of its own costs Node's fetch about twice as much.
 */
class StreamedRequest extends Request {
  declare [ANSWER]: ServerResponse;
  declare [CONTROLLER]: AbortController | undefined;
}
Object.defineProperty(StreamedRequest.prototype, "signal", {
  configurable: true,
  enumerable: true,
  get(this: StreamedRequest): AbortSignal {
    return (this[CONTROLLER] ??= clientGone(this[ANSWER])).signal;
  },
});

/** The methods a light request takes: the ones `Request` knows and does not refuse. */
const LIGHT_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]);

/** The methods `Request` refuses to make: they reach the handler as light requests. */
const REFUSED_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

let lastTarget: string | undefined;
let lastHost: string | undefined;
let lastUrl = "";

/**
 * The request's URL from its target and `Host` (`new URL(…).href`), keeping the last one: a server
 * sees the same URL request after request. An absolute-form target (`GET http://host/path`) is
 * its own URL; a `Host` that is no host reads as `localhost`, so the handler answers (404), as
 * Deno's server does.
 */
function requestUrl(target: string, host: string | undefined): string {
  if (target !== lastTarget || host !== lastHost) {
    // An origin-form target (`/path`, even `//path`) is a path on the Host; any other is a URL.
    const path = target.startsWith("/");
    let url: string;
    try {
      // (An empty Host too: `http:///mcp` would make the path's first segment the host.)
      url = new URL(path ? `http://${host || "localhost"}${target}` : target).href;
    } catch {
      url = new URL(`http://localhost${path ? target : "/"}`).href;
    }
    lastUrl = url;
    lastTarget = target;
    lastHost = host;
  }
  return lastUrl;
}

function toRequest(
  req: IncomingMessage,
  res: ServerResponse,
  buffered?: Uint8Array | Error,
): Request {
  const url = requestUrl(req.url ?? "/", req.headers.host);
  const method = req.method ?? "GET";
  // A method `Request` refuses (TRACE, CONNECT, TRACK) reaches the handler too, which answers 405.
  if (REFUSED_METHODS.has(method)) return new NodeRequest(method, url, req.rawHeaders, null, res);
  const hasBody = method !== "GET" && method !== "HEAD";
  const bytes = buffered instanceof Uint8Array ? buffered : undefined;
  if ((bytes !== undefined || !hasBody) && LIGHT_METHODS.has(method)) {
    return new NodeRequest(method, url, req.rawHeaders, bytes ?? null, res);
  }
  const headers = headersFromRaw(req.rawHeaders);
  let request: StreamedRequest;
  if (buffered instanceof Error) {
    const failed = buffered;
    request = new StreamedRequest(url, {
      method,
      headers,
      body: new ReadableStream({ start: (controller) => controller.error(failed) }),
      duplex: "half",
    } as RequestInit);
  } else if (buffered !== undefined) {
    request = new StreamedRequest(url, { method, headers, body: buffered as BodyInit });
  } else {
    request = new StreamedRequest(url, {
      method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>) : undefined,
      // Required by Node's fetch for a streamed body.
      ...(hasBody ? { duplex: "half" } : {}),
    } as RequestInit);
  }
  request[ANSWER] = res;
  return request;
}
