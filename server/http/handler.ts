/**
 * The stateless Streamable HTTP handler: `(request) => Promise<Response>` that checks, in this
 * order, the origin (allowed, or, when authentication is required, the request's own), CORS, bearer
 * authentication and the headers, then dispatches the JSON-RPC message (an earlier check's refusal
 * wins over a later one's). Everything per endpoint is compiled once in
 * {@linkcode createHttpHandler}; the hot path reads headers, reads the body once and hands the
 * parsed message to the protocol server.
 *
 * @module
 */

import { authRefusalResponse, createAuthenticator, type MemoMcpHttpAuthOptions } from "./auth.ts";
import type { OAuthResourceServer } from "./oauth/mod.ts";
import { ALLOW_METHODS, corsHeaders, preflightHeaders, VARY_ORIGIN } from "./cors.ts";
import { NOT_UTF8, readBodyLimited } from "./body.ts";
import {
  HTTP_DEFAULT_PROTOCOL_VERSION,
  HTTP_SUPPORTED_PROTOCOL_VERSIONS,
  isJsonContentType,
  negotiateAccept,
} from "./_headers.ts";
import { createOriginMatcher } from "./origin.ts";
import {
  answerResponse,
  emptyResponse,
  httpErrorResponse,
  rpcResponse,
  sseResponse,
} from "./responses.ts";
import { JSON_RPC_CODES, jsonRpcCodeOf, McpValidationError, toSafeError } from "../errors.ts";
import { rpcErrorJson } from "../protocol/jsonrpc.ts";
import { versionFeatures } from "../protocol/versions.ts";
import {
  checkStatelessHeaders,
  type HttpRefusal,
  unsupportedVersionRefusal,
} from "./_stateless_headers.ts";
import { createListenStreams } from "./_listen_sse.ts";
import type { MemoMcpProtocolServer, MemoMcpRequestContext } from "../types.ts";
import { HttpRequestContext, liveEvents } from "./_http_context.ts";
import { idJsonOf, isListen, wantsLogs, wantsProgress } from "./_message_meta.ts";
import { originRefusal, pathOf } from "./_request_checks.ts";

export { originRefusal, pathOf } from "./_request_checks.ts";

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
   * Aborted when the endpoint shuts down: open listen streams end with their completion result.
   */
  listenClosed?: AbortSignal;
  /**
   * A request whose `Origin` is its own passes the origin check even without authentication (the
   * web page served beside the endpoint; the loopback `Host` rule still applies). With
   * authentication required it always does.
   * @default {false}
   */
  ownOriginPasses?: boolean;
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
 * Compiles the endpoint configuration into a request handler. Throws a "Cannot configure …" error
 * for an invalid configuration.
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
  const ownOrigin = auth.required || config.ownOriginPasses === true;
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

    // With auth required, a request from its own origin passes too (a page
    // served beside the endpoint); it still needs the token.
    const origin = headers.get("origin");
    const forbidden = originRefusal(request, originAllowed, auth.required, ownOrigin, origin);
    if (forbidden) return forbidden;

    const method = request.method;
    if (method === "OPTIONS") return emptyResponse(204, preflightHeaders(origin));

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

    const accept = headers.get("accept");
    const mode = negotiateAccept(accept);
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

    const body = await readBodyLimited(request, limit);
    if (!body.ok) {
      if (body.tooLarge) {
        const message =
          `Cannot accept the request: the body is over maxInputBytes (${limit} bytes)`;
        const details = body.bytes === undefined ? { limit } : { limit, size: body.bytes };
        const data = toSafeError(new McpValidationError(message, { details }));
        return httpErrorResponse(413, INVALID_PARAMS, message, origin, [], data);
      }
      return body.error === NOT_UTF8
        ? httpErrorResponse(400, PARSE_ERROR, `Parse error: ${NOT_UTF8}`, origin)
        : httpErrorResponse(
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
    const refused = checkStatelessHeaders(message, headers, versionHeader);
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
    // A stateless request that sets _meta logLevel gets its log records, and a
    // request that carries _meta.progressToken its progress notifications,
    // on its own response stream, when it accepts one (SSE).
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
      // A slow answer is linked to the client (when the server took its signal or hook) until
      // it settles.
      const pending = server.handleParsed(message, context);
      if (logs !== undefined) {
        const answering = pending.finally(() => context.settled());
        // Progress or logs before the answer: stream them as they come (a
        // page watching a long sync sees each step), then the answer.
        if (await context.notifiedBefore(answering)) {
          return sseResponse(liveEvents(logs, context, answering, idJsonOf(message)), origin);
        }
        answer = await answering;
      } else {
        try {
          answer = await pending;
        } finally {
          context.settled();
        }
      }
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

/** A refusal of the 2026-07-28 rules: its status with a JSON-RPC error body. */
function refusalResponse(r: HttpRefusal, mode: "json" | "sse", origin: string | null): Response {
  return rpcResponse(rpcErrorJson(r.idJson, r.code, r.message, r.data), mode, origin, r.status);
}

/**
 * The status of an answer: 200, except 404 for -32601 (method not found) to a stateless request, as
 * 2026-07-28 says. The protocol server reports the error code of a single request's answer
 * (`onError`), so the answer itself is never read again.
 */
function statusOf(errorCode: number | undefined, versionHeader: string | null): number {
  return errorCode === JSON_RPC_CODES.methodNotFound && versionHeader !== null &&
      versionFeatures(versionHeader).stateless
    ? 404
    : 200;
}
