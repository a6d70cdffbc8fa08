/**
 * The stateless Streamable HTTP handler: `(request) => Promise<Response>`
 * that checks, in this order, the origin (allowed, or, when authentication is
 * required, the request's own), CORS, bearer authentication and the headers,
 * then dispatches the JSON-RPC message (an earlier check's refusal wins over a
 * later one's). Everything per endpoint is compiled once in
 * {@linkcode createHttpHandler}; the hot path reads headers, reads the body
 * once and hands the parsed message to the protocol server.
 *
 * @module
 */

import { authRefusalResponse, createAuthenticator, type MemoMcpHttpAuthOptions } from "./auth.ts";
import type { OAuthResourceServer } from "./oauth/mod.ts";
import { ALLOW_METHODS, corsHeaders, preflightHeaders, VARY_ORIGIN } from "./cors.ts";
import { readBodyLimited } from "./body.ts";
import {
  HTTP_DEFAULT_PROTOCOL_VERSION,
  HTTP_SUPPORTED_PROTOCOL_VERSIONS,
  isJsonContentType,
  negotiateAccept,
} from "./headers.ts";
import { createOriginMatcher, isLoopbackHost, isSameOrigin, requestHost } from "./origin.ts";
import {
  answerResponse,
  emptyResponse,
  httpErrorResponse,
  rpcResponse,
  sseEvent,
  sseResponse,
} from "./responses.ts";
import {
  JSON_RPC_CODES,
  jsonRpcCodeOf,
  McpValidationError,
  type SafeError,
  toSafeError,
} from "../errors.ts";
import { isValidId, rpcErrorJson } from "../_jsonrpc.ts";
import { versionFeatures } from "../_versions.ts";
import { checkModernHttp, type HttpRefusal, unsupportedVersionRefusal } from "./modern.ts";
import { createListenStreams } from "./listen.ts";
import type { MemoMcpProtocolServer, MemoMcpRequestContext } from "../types.ts";
import { DeadlineQueue } from "../_deadline_queue.ts";

/**
 * What {@linkcode createHttpHandler} needs, with every default already applied.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHttpHandler, type HttpHandlerConfig } from "./handler.ts";
 *
 * const config: HttpHandlerConfig = {
 *   allowedOrigins: ["https://app.example.com"],
 *   auth: {},
 *   maxInputBytes: 256000,
 *   path: "/mcp",
 * };
 * const fake = {
 *   name: "fake",
 *   version: "0",
 *   handle: async () => undefined,
 *   handleParsed: async () => '{"jsonrpc":"2.0","id":1,"result":{}}',
 * };
 * const handler = createHttpHandler(config, () => fake);
 * const elsewhere = await handler(new Request("http://127.0.0.1/other", { method: "POST" }));
 * assert.equal(elsewhere.status, 404);
 * await elsewhere.body?.cancel();
 * const foreign = await handler(
 *   new Request("http://127.0.0.1/mcp", {
 *     method: "POST",
 *     headers: { origin: "https://evil.example" },
 *   }),
 * );
 * assert.equal(foreign.status, 403);
 * await foreign.body?.cancel();
 * ```
 */
export interface HttpHandlerConfig {
  /** Allowed browser origins (patterns, see `createOriginMatcher`). */
  allowedOrigins: readonly string[];
  /** The `auth` options. */
  auth: MemoMcpHttpAuthOptions;
  /** The OAuth resource server, when `auth.oauth` (or `MEMO_OAUTH_*`) is set. */
  oauth?: OAuthResourceServer;
  /** Largest accepted body in bytes. */
  maxInputBytes: number;
  /** When set, only this path is answered; 404 elsewhere. */
  path?: string;
  /** Accepted `MCP-Protocol-Version` values. */
  supportedVersions?: readonly string[];
  /**
   * Most `subscriptions/listen` streams open at once.
   * @default 64
   */
  maxListenStreams?: number;
  /**
   * Milliseconds between the keep-alive comments of a listen stream.
   * @default 15000
   */
  listenKeepAliveMs?: number;
  /**
   * Aborted when the endpoint shuts down: open listen streams end with
   * their completion result.
   */
  listenClosed?: AbortSignal;
}

/**
 * Where the handler gets its protocol server (built lazily, once).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHttpHandler, type ProtocolServerSource } from "./handler.ts";
 *
 * let built = 0;
 * const fake = {
 *   name: "fake",
 *   version: "0",
 *   handle: async () => undefined,
 *   handleParsed: async () => '{"jsonrpc":"2.0","id":1,"result":{}}',
 * };
 * const source: ProtocolServerSource = () => (built++, fake);
 * const handler = createHttpHandler({ allowedOrigins: [], auth: {}, maxInputBytes: 1000 }, source);
 * const preflight = await handler(new Request("http://127.0.0.1/mcp", { method: "OPTIONS" }));
 * assert.equal(preflight.status, 204);
 * assert.equal(built, 0); // a preflight needs no protocol server
 * ```
 */
export type ProtocolServerSource = () => MemoMcpProtocolServer | Promise<MemoMcpProtocolServer>;

const { invalidRequest: INVALID_REQUEST, parseError: PARSE_ERROR, invalidParams: INVALID_PARAMS } =
  JSON_RPC_CODES;
const ALLOW: readonly (readonly [string, string])[] = [["allow", ALLOW_METHODS]];

/**
 * Compiles the endpoint configuration into a request handler. Throws a
 * "Cannot configure …" error for an invalid configuration.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHttpHandler } from "./handler.ts";
 *
 * const handler = createHttpHandler(
 *   { allowedOrigins: [], auth: {}, maxInputBytes: 256000 },
 *   () => ({
 *     name: "fake",
 *     version: "0",
 *     handle: async () => undefined,
 *     handleParsed: async () => '{"jsonrpc":"2.0","id":1,"result":{}}',
 *   }),
 * );
 * const res = await handler(
 *   new Request("http://127.0.0.1/mcp", {
 *     method: "POST",
 *     headers: { "content-type": "application/json" },
 *     body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
 *   }),
 * );
 * assert.equal(res.status, 200);
 * assert.deepEqual(await res.json(), { jsonrpc: "2.0", id: 1, result: {} });
 * ```
 */
export function createHttpHandler(
  config: HttpHandlerConfig,
  getServer: ProtocolServerSource,
): (request: Request) => Promise<Response> {
  const originAllowed = createOriginMatcher(config.allowedOrigins);
  const auth = createAuthenticator(config.auth, config.oauth);
  const versions = new Set(config.supportedVersions ?? HTTP_SUPPORTED_PROTOCOL_VERSIONS);
  const limit = config.maxInputBytes;
  const path = config.path;
  const listens = createListenStreams({
    maxStreams: config.maxListenStreams ?? 64,
    keepAliveMs: config.listenKeepAliveMs,
    closed: config.listenClosed,
  });

  return async function handleHttp(request: Request): Promise<Response> {
    if (path !== undefined && pathOf(request.url) !== path) {
      return httpErrorResponse(
        404,
        INVALID_REQUEST,
        `Cannot find the path: the endpoint is ${path}`,
        null,
      );
    }
    const headers = request.headers;

    // 1. Origin check (and DNS-rebinding protection when auth is not required).
    // When auth is required, a request from its own origin passes too (a page
    // served beside the endpoint); it still needs the token below.
    const origin = headers.get("origin");
    const forbidden = originRefusal(request, originAllowed, auth.required, auth.required);
    if (forbidden) return forbidden;

    // 2. CORS.
    const method = request.method;
    if (method === "OPTIONS") return emptyResponse(204, preflightHeaders(origin));

    // 3. Bearer authentication.
    let authInfo: MemoMcpRequestContext["authInfo"];
    if (auth.required) {
      const outcome = await auth.check(request);
      if (!outcome.ok) return authRefusalResponse(outcome, origin);
      authInfo = outcome.info;
    }
    if (method !== "POST") {
      return httpErrorResponse(
        405,
        INVALID_REQUEST,
        `Cannot accept ${method}: use POST`,
        origin,
        ALLOW,
      );
    }

    // 4. Header validation.
    const mode = negotiateAccept(headers.get("accept"));
    if (mode === undefined) {
      return httpErrorResponse(
        406,
        INVALID_REQUEST,
        "Cannot answer: Accept must allow application/json or text/event-stream",
        origin,
      );
    }
    if (!isJsonContentType(headers.get("content-type"))) {
      return httpErrorResponse(
        415,
        INVALID_REQUEST,
        "Cannot accept the request: Content-Type must be application/json",
        origin,
      );
    }
    const versionHeader = headers.get("mcp-protocol-version");
    // An unsupported version is refused once the body is read, so that the
    // error can carry the request's id.
    const unsupported = versionHeader !== null && !versions.has(versionHeader);

    // 5. Dispatch.
    const body = await readBodyLimited(request, limit);
    if (!body.ok) {
      if (body.tooLarge) {
        const message =
          `Cannot accept the request: the body is over maxInputBytes (${limit} bytes)`;
        const details = body.bytes === undefined ? { limit } : { limit, size: body.bytes };
        const data = toSafeError(new McpValidationError(message, { details }));
        return httpErrorResponse(413, INVALID_PARAMS, message, origin, [], data);
      }
      return httpErrorResponse(
        400,
        INVALID_REQUEST,
        `Cannot read the request body: ${body.error}`,
        origin,
      );
    }
    let message: unknown;
    try {
      message = JSON.parse(body.text);
    } catch {
      return httpErrorResponse(400, PARSE_ERROR, "Parse error: the body is not valid JSON", origin);
    }
    if (unsupported) {
      return refusalResponse(
        unsupportedVersionRefusal(versionHeader!, idJsonOf(message)),
        mode,
        origin,
      );
    }
    const refused = checkModernHttp(message, headers, versionHeader);
    if (refused !== undefined) return refusalResponse(refused, mode, origin);
    let server: MemoMcpProtocolServer;
    try {
      const source = getServer();
      server = source instanceof Promise ? await source : source;
    } catch (e) {
      const data = toSafeError(e);
      return httpErrorResponse(500, jsonRpcCodeOf(e), data.message, origin, [], data);
    }
    if (versionHeader !== null && isListen(message, versionHeader)) {
      // A listen answers in SSE, whatever Accept prefers: its stream stays open.
      return listens.open(server, {
        request,
        authInfo,
        protocolVersion: versionHeader,
        inputBytes: body.bytes,
        message,
        idJson: JSON.stringify((message as { id: unknown }).id),
        origin,
      });
    }
    // A modern request that sets _meta logLevel gets its log records, and a
    // request that carries _meta.progressToken its progress notifications,
    // on its own response stream, when it accepts one (SSE).
    const accept = headers.get("accept");
    const logs = wantsLogs(message, versionHeader, accept) || wantsProgress(message, accept)
      ? []
      : undefined;
    let answer: string | undefined;
    let context: HttpRequestContext;
    try {
      context = new HttpRequestContext(
        request,
        authInfo,
        versionHeader ?? HTTP_DEFAULT_PROTOCOL_VERSION,
        body.bytes,
        logs,
      );
      const pending = server.handleParsed(message, context);
      const answering = context.watched ? watched(pending, context) : pending;
      // Progress or logs before the answer: stream them as they come (a
      // page watching a long sync sees each step), then the answer.
      if (logs !== undefined && await context.notifiedBefore(answering)) {
        return sseResponse(liveEvents(logs, context, answering, idJsonOf(message)), origin);
      }
      answer = await answering;
    } catch (e) {
      const data = toSafeError(e);
      return httpErrorResponse(500, jsonRpcCodeOf(e), data.message, origin, [], data);
    }
    if (answer === undefined) {
      return emptyResponse(202, origin === null ? VARY_ORIGIN : corsHeaders(origin));
    }
    const status = statusOf(context.errorCode, versionHeader);
    // A single request refused only for its scope: 403 with the challenge
    // (a batch, and an SSE answer, with log records or asked for, stay 200).
    if (
      context.scopeRefused && mode === "json" && !logs?.length && auth.oauth &&
      !Array.isArray(message)
    ) {
      return rpcResponse(answer, mode, origin, 403, auth.oauth.writeChallenge);
    }
    // A result over 1 KB is gzipped when the client accepts it; an error stays plain.
    const encodings = context.errorCode === undefined ? headers : null;
    return answerResponse(
      logs?.length ? [...logs, answer] : answer,
      mode,
      origin,
      status,
      encodings,
    );
  };
}

const encoder = new TextEncoder();

/**
 * The events of a streamed answer: the notifications sent so far, then each
 * one as it is sent, then the answer (or its error), then the end.
 */
function liveEvents(
  sent: readonly string[],
  context: HttpRequestContext,
  answering: Promise<string | undefined>,
  idJson: string,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (json: string) => {
        try {
          controller.enqueue(encoder.encode(sseEvent(json)));
        } catch { /* the client went away */ }
      };
      for (const message of sent) send(message);
      context.streamTo(send);
      answering.then(
        (answer) => answer !== undefined && send(answer),
        (e) => {
          const data = toSafeError(e);
          send(rpcErrorJson(idJson, jsonRpcCodeOf(e), data.message, data));
        },
      ).finally(() => {
        try {
          controller.close();
        } catch { /* already closed */ }
      });
    },
  });
}

/** Whether a modern request asked for log records (`_meta` logLevel) and accepts SSE. */
function wantsLogs(message: unknown, versionHeader: string | null, accept: string | null): boolean {
  if (versionHeader === null || !versionFeatures(versionHeader).modern) return false;
  if (!acceptsSse(accept)) return false;
  return typeof metaOf(message)?.["io.modelcontextprotocol/logLevel"] === "string";
}

/**
 * Whether a request asked for progress (`_meta.progressToken`, any protocol
 * version) and accepts SSE. The notifications go out before the answer, on
 * its stream.
 */
function wantsProgress(message: unknown, accept: string | null): boolean {
  if (!acceptsSse(accept)) return false;
  const token = metaOf(message)?.progressToken;
  return typeof token === "string" || typeof token === "number";
}

function acceptsSse(accept: string | null): boolean {
  return accept !== null && /text\/event-stream|text\/\*|\*\/\*/.test(accept);
}

/** `params._meta` of a single request. */
function metaOf(message: unknown): Record<string, unknown> | undefined {
  return (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
}

/** The id of a single request, serialized, or `null` when there is none to echo. */
function idJsonOf(message: unknown): string {
  const id = (message as { id?: unknown } | null)?.id;
  return isValidId(id) ? JSON.stringify(id) : "null";
}

/** Whether `message` is a modern `subscriptions/listen` request (it answers in a stream). */
function isListen(message: unknown, versionHeader: string): boolean {
  const m = message as { method?: unknown; id?: unknown } | null;
  return m !== null && typeof m === "object" && m.method === "subscriptions/listen" &&
    m.id !== undefined && versionFeatures(versionHeader).modern;
}

/** A refusal of the 2026-07-28 rules: its status with a JSON-RPC error body. */
function refusalResponse(r: HttpRefusal, mode: "json" | "sse", origin: string | null): Response {
  return rpcResponse(rpcErrorJson(r.idJson, r.code, r.message, r.data), mode, origin, r.status);
}

/**
 * The status of an answer: 200, except 404 for -32601 (method not found)
 * to a modern request, as 2026-07-28 says. The protocol server reports the
 * error code of a single request's answer (`onError`), so the answer itself
 * is never read again.
 */
function statusOf(errorCode: number | undefined, versionHeader: string | null): number {
  return errorCode === -32601 && versionHeader !== null && versionFeatures(versionHeader).modern
    ? 404
    : 200;
}

/**
 * How long an answer may take before the handler starts watching for the
 * client going away. Reading `request.signal` makes Deno abort it, with a new
 * DOMException, when the response ends: about 12 µs on every request, so
 * only answers slower than this pay it.
 */
const WATCH_AFTER_MS = 50;
const watches = new DeadlineQueue(WATCH_AFTER_MS, { linger: true });

/**
 * The context of one HTTP message. Its `signal` is the handler's own, created
 * when the protocol server asks for it (tool calls do); the handler links it
 * to the request's signal only once the answer is slow.
 */
class HttpRequestContext implements MemoMcpRequestContext {
  readonly transport = "http" as const;
  #controller: AbortController | undefined;
  /** The JSON-RPC error code of the answer, when it is an error. */
  errorCode: number | undefined;
  /** Collects the request's log records and progress, when it asked for them and can take SSE. */
  readonly notify?: (message: string) => void;
  #live: ((message: string) => void) | undefined;
  #notified: Promise<true> | undefined;
  constructor(
    readonly request: Request,
    readonly authInfo: MemoMcpRequestContext["authInfo"],
    readonly protocolVersion: string,
    readonly inputBytes: number,
    logs?: string[],
  ) {
    if (logs === undefined) return;
    let first!: (value: true) => void;
    this.#notified = new Promise<true>((resolve) => (first = resolve));
    this.notify = (message) => {
      if (this.#live) return this.#live(message);
      logs.push(message);
      first(true);
    };
  }
  /** Whether a notification is sent before `answer` settles. */
  notifiedBefore(answer: Promise<unknown>): Promise<boolean> {
    const settled = answer.then(() => false, () => false);
    return this.#notified ? Promise.race([settled, this.#notified]) : settled;
  }
  /** From now on, notifications go straight to `send` (a live stream). */
  streamTo(send: (message: string) => void): void {
    this.#live = send;
  }
  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }
  /** Whether the answer is an authorization error for the caller's scope. */
  scopeRefused = false;
  onError(code: number, data?: SafeError): void {
    this.errorCode = code;
    this.scopeRefused = data?.code === "MCP_AUTHORIZATION_ERROR" &&
      (data.details as { reason?: unknown } | undefined)?.reason === "insufficient_scope";
  }
  /** Whether the protocol server asked for `signal`. */
  get watched(): boolean {
    return this.#controller !== undefined;
  }
  /** From now on, `signal` aborts when the client goes away. */
  link(): void {
    const controller = this.#controller!;
    const outer = this.request.signal;
    if (outer.aborted) controller.abort(outer.reason);
    else outer.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
  }
}

/** Waits for `answer`, linking the context's signal to the client if it takes long. */
async function watched<T>(answer: Promise<T>, context: HttpRequestContext): Promise<T> {
  const watch = watches.add(() => context.link());
  try {
    return await answer;
  } finally {
    watches.cancel(watch);
  }
}

/**
 * The 403 of the origin and Host rules, or undefined when the request passes:
 * an `Origin` must be allowed (or, when `ownOriginPasses`, be the request's
 * own); without authentication the `Host` must be loopback (DNS-rebinding
 * protection). The endpoint and the web page share these rules.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { originRefusal } from "./handler.ts";
 *
 * const none = () => false;
 * const own = new Request("http://127.0.0.1:8787/", { headers: { origin: "http://127.0.0.1:8787" } });
 * assert.equal(originRefusal(own, none, false, true), undefined);
 * assert.equal(originRefusal(own, none, false, false)?.status, 403);
 * const rebinding = new Request("http://127.0.0.1/", { headers: { host: "evil.example" } });
 * assert.equal(originRefusal(rebinding, none, false, false)?.status, 403);
 * assert.equal(originRefusal(rebinding, none, true, false), undefined);
 * ```
 */
export function originRefusal(
  request: Request,
  originAllowed: (origin: string) => boolean,
  authRequired: boolean,
  ownOriginPasses: boolean,
): Response | undefined {
  const origin = request.headers.get("origin");
  if (
    origin !== null && !originAllowed(origin) && !(ownOriginPasses && isSameOrigin(origin, request))
  ) {
    return httpErrorResponse(
      403,
      INVALID_REQUEST,
      "Cannot accept the request: origin not allowed",
      null,
    );
  }
  if (!authRequired && !isLoopbackHost(requestHost(request))) {
    return httpErrorResponse(
      403,
      INVALID_REQUEST,
      "Cannot accept the request: the Host is not loopback and the endpoint has no authentication",
      null,
    );
  }
  return undefined;
}

/**
 * The path of a request URL, without query or fragment.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pathOf } from "./handler.ts";
 *
 * assert.equal(pathOf("http://127.0.0.1:8787/mcp?x=1"), "/mcp");
 * assert.equal(pathOf("http://127.0.0.1:8787"), "/");
 * ```
 */
export function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return "/";
  let end = start;
  while (end < url.length) {
    const c = url.charCodeAt(end);
    if (c === 63 || c === 35) break; // ? #
    end++;
  }
  return url.slice(start, end);
}
