/**
 * Internal: one Cloud API request with the client's policy: a timeout per attempt, retries with
 * exponential backoff and jitter that honour `Retry-After`, and errors turned into
 * {@linkcode MemoCloudError}s that never hold the API key.
 *
 * @module
 */

import { codeOfAnswer, MemoCloudError, type MemoCloudErrorCode, safeText } from "./errors.ts";

/** A `fetch`. */
export type CloudFetch = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/** The settled policy of a client. */
export interface TransportSettings {
  /** `<origin>[/prefix]/v1`, no trailing slash. */
  apiBase: string;
  /** The server's origin, for messages (no user info, no path). */
  origin: string;
  apiKey?: string;
  userAgent: string;
  timeoutMs: number;
  maxRetries: number;
  backoffMs: number;
  fetch: CloudFetch;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
}

/** One request. */
export interface CloudRequest {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path under the API base, starting with `/`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** A JSON body, or a body already serialized. */
  body?: unknown;
  /** Already-serialized JSON (wins over `body`). */
  bodyText?: string;
  /** Writes: reused by every attempt. */
  idempotencyKey?: string;
  ifMatch?: number | string;
  /** Send the bearer token (every route but health). */
  auth: boolean;
  /** What the call does, for messages ("get note x1"). */
  action: string;
  signal?: AbortSignal;
}

/** A successful answer. */
export interface CloudAnswer {
  status: number;
  body: unknown;
  headers: Headers;
  attempts: number;
}

/** Statuses worth another attempt. */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

/** A `Retry-After` longer than this is not waited for: the call fails and says when to retry. */
export const MAX_RETRY_AFTER_SECONDS = 60;

type Failure =
  | { kind: "network"; error: unknown }
  | { kind: "timeout" }
  | {
    kind: "answer";
    status: number;
    statusText: string;
    body: unknown;
    headers: Headers;
    /** `Retry-After` in whole seconds, when the answer has a readable one. */
    retryAfter?: number;
  };

/**
 * Sends `request`, retrying what is worth retrying; resolves with a 2xx answer or throws a
 * {@linkcode MemoCloudError}. An abort of `request.signal` rejects with its reason at once,
 * unwrapped.
 */
export async function sendCloudRequest(
  settings: TransportSettings,
  request: CloudRequest,
): Promise<CloudAnswer> {
  const url = urlOf(settings.apiBase, request.path, request.query);
  const bodyText = request.bodyText ??
    (request.body === undefined ? undefined : JSON.stringify(request.body));
  const headers: Record<string, string> = {
    accept: "application/json",
    "user-agent": settings.userAgent,
  };
  if (bodyText !== undefined) headers["content-type"] = "application/json; charset=utf-8";
  if (request.auth && settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  if (request.idempotencyKey !== undefined) headers["idempotency-key"] = request.idempotencyKey;
  if (request.ifMatch !== undefined) headers["if-match"] = String(request.ifMatch);

  const attemptsAllowed = 1 + Math.max(0, settings.maxRetries);
  let failure: Failure | undefined;
  let attempts = 0;
  while (attempts < attemptsAllowed) {
    request.signal?.throwIfAborted();
    attempts++;
    failure = undefined;
    const result = await attempt(settings, url, {
      method: request.method,
      headers,
      body: bodyText,
    }, request.signal);
    if ("failure" in result) failure = result.failure;
    else if (result.status >= 200 && result.status < 300) {
      return { status: result.status, body: result.body, headers: result.headers, attempts };
    } else {
      failure = {
        kind: "answer",
        ...result,
        retryAfter: await retryAfterOf(result.headers, settings.now()),
      };
      if (!retryable(failure)) break;
    }
    if (attempts >= attemptsAllowed) break;
    const wait = waitBefore(settings, failure, attempts);
    if (wait === undefined) break; // a Retry-After too long to wait for
    await settings.sleep(wait, request.signal);
  }
  throw errorOf(settings, request, failure!, attempts);
}

type AttemptResult =
  | { failure: Failure }
  | { status: number; statusText: string; body: unknown; headers: Headers };

const TIMED_OUT = Symbol("timed out");

/** One attempt, bounded by `timeoutMs`: the answer's head and its whole body. */
async function attempt(
  settings: TransportSettings,
  url: string,
  init: RequestInit,
  outer: AbortSignal | undefined,
): Promise<AttemptResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(TIMED_OUT), settings.timeoutMs);
  const onAbort = () => controller.abort(outer!.reason);
  outer?.addEventListener("abort", onAbort, { once: true });
  // A fetch that ignores its signal still cannot hold the attempt past the timeout.
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), {
      once: true,
    });
  });
  aborted.catch(() => {});
  try {
    const response = await Promise.race([
      settings.fetch(url, { ...init, signal: controller.signal }),
      aborted,
    ]);
    const text = await Promise.race([response.text(), aborted]);
    let body: unknown = undefined;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = NOT_JSON;
      }
    }
    return {
      status: response.status,
      statusText: response.statusText,
      body,
      headers: response.headers,
    };
  } catch (error) {
    if (outer?.aborted) throw outer.reason;
    if (controller.signal.reason === TIMED_OUT) return { failure: { kind: "timeout" } };
    return { failure: { kind: "network", error } };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
}

/** The body of an answer that was not JSON. */
const NOT_JSON = Symbol("not JSON");

function retryable(failure: Failure): boolean {
  if (failure.kind !== "answer") return true;
  if (RETRY_STATUSES.has(failure.status)) return true;
  // An idempotent repeat that found its first request still running: ask again later.
  return failure.status === 409 && detailsOf(failure.body)?.reason === "in_progress";
}

/** Milliseconds before the next attempt, or undefined when the server asks for too long. */
function waitBefore(settings: TransportSettings, failure: Failure, attempts: number) {
  if (failure.kind === "answer") {
    const seconds = failure.retryAfter;
    if (seconds !== undefined) {
      return seconds > MAX_RETRY_AFTER_SECONDS ? undefined : seconds * 1000;
    }
  }
  const base = settings.backoffMs * 2 ** (attempts - 1);
  // "Equal jitter": half the backoff for sure, the other half at random.
  return Math.round(base / 2 + settings.random() * base / 2);
}

/**
 * `Retry-After` in whole seconds (a delay, or an HTTP date measured from `now`), or undefined when
 * absent or unreadable. The parser is the connectors' `parseRetryAfter`, loaded only when an answer
 * carries the header.
 */
export async function retryAfterOf(headers: Headers, now: number): Promise<number | undefined> {
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const { parseRetryAfter } = await import("@memo/connectors");
  return parseRetryAfter(value, now);
}

function urlOf(base: string, path: string, query: CloudRequest["query"]): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined) params.set(k, String(v));
  }
  const search = params.toString();
  return `${base}${path}${search ? `?${search}` : ""}`;
}

function detailsOf(body: unknown): Record<string, unknown> | undefined {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  const details = (error as { details?: unknown } | null | undefined)?.details;
  return details !== null && typeof details === "object" && !Array.isArray(details)
    ? details as Record<string, unknown>
    : undefined;
}

function plural(n: number, word: string) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The error a failed request ends with. */
function errorOf(
  settings: TransportSettings,
  request: CloudRequest,
  failure: Failure,
  attempts: number,
): MemoCloudError {
  const secrets = [settings.apiKey];
  const where = `Cannot reach the Memo Cloud API at ${settings.origin}`;
  const tries = plural(attempts, "attempt");
  if (failure.kind === "timeout") {
    return new MemoCloudError(
      "timeout",
      `${where}: no answer within ${settings.timeoutMs} ms (${tries})`,
      { attempts },
    );
  }
  if (failure.kind === "network") {
    return new MemoCloudError(
      "unavailable",
      `${where}: ${networkReason(failure.error, secrets)} (${tries})`,
      { attempts },
    );
  }
  const { status, body } = failure;
  const error = (body as { error?: unknown } | null | undefined)?.error as
    | { code?: unknown; message?: unknown; details?: unknown }
    | undefined;
  const isApiError = body !== NOT_JSON && error !== null && typeof error === "object" &&
    typeof error.message === "string";
  const code: MemoCloudErrorCode = codeOfAnswer(status, isApiError ? error.code : undefined);
  const details = isApiError ? detailsOf(body) : undefined;
  const retryAfterSeconds = failure.retryAfter;
  const options = {
    status,
    attempts,
    ...(details ? { details: safeDetails(details, secrets) } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  };
  if (status === 401) {
    const reason = settings.apiKey
      ? "the API key was refused (401)"
      : "it needs an API key (401; set MEMO_CLOUD_API_KEY)";
    return new MemoCloudError(code, `${where}: ${reason}`, options);
  }
  if (status === 403 && isApiError) {
    const reason = safeText(error.message, secrets);
    return new MemoCloudError(code, `${where}: access denied (403): ${reason}`, options);
  }
  if (!isApiError) {
    const reason = `the server answered ${status}${
      failure.statusText ? ` ${safeText(failure.statusText, secrets)}` : ""
    } without a Memo Cloud API error (is the base URL right?)`;
    const transient = RETRY_STATUSES.has(status);
    return new MemoCloudError(
      code,
      transient ? `${where}: ${reason} (${tries})` : `${where}: ${reason}`,
      options,
    );
  }
  let reason = safeText(error.message, secrets) || `the Memo Cloud API answered ${status}`;
  if (status === 429) {
    reason = retryAfterSeconds === undefined
      ? `${reason} (429, ${tries})`
      : `${reason} (429; retry after ${retryAfterSeconds} s; ${tries})`;
  } else if (retryable(failure)) {
    reason = `${reason} (${status}, ${tries})`;
  }
  const message = /^Cannot /.test(reason) ? reason : `Cannot ${request.action}: ${reason}`;
  return new MemoCloudError(code, message, options);
}

function safeDetails(details: Record<string, unknown>, secrets: (string | undefined)[]) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details)) {
    out[k] = typeof v === "string" ? safeText(v, secrets) : v;
  }
  return out;
}

/** The messages of an error and its causes (Deno and Node say "fetch failed" and put what happened in the cause). */
function causeMessages(error: unknown): string[] {
  const messages: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 4; depth++) {
    messages.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return messages;
}

const REFUSED = /connection refused|ECONNREFUSED/i;

/**
 * Whether a `fetch` failure (or one of its causes) is a refused connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isConnectionRefused } from "./transport.ts";
 * const error = new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") });
 * assert.equal(isConnectionRefused(error), true);
 * assert.equal(isConnectionRefused(new Error("timed out")), false);
 * ```
 */
export function isConnectionRefused(error: unknown): boolean {
  return causeMessages(error).some((m) => REFUSED.test(m));
}

/** A short reason for a network failure, without the URL fetch puts in its message. */
function networkReason(error: unknown, secrets: (string | undefined)[]): string {
  const messages = causeMessages(error);
  const message = messages.find((m) => !/^fetch failed$/i.test(m.trim())) ?? messages[0];
  if (REFUSED.test(message)) return "connection refused";
  if (/reset|ECONNRESET|connection closed|closed before/i.test(message)) {
    return "the connection was reset";
  }
  const cut = message.replace(/^error sending request for url \([^)]*\):\s*/i, "");
  return safeText(cut, secrets) || "network error";
}
