/**
 * Internal: one HTTP exchange with a timeout that covers the whole answer (headers and body), an
 * injectable clock, and errors that never carry a header value or a response body.
 *
 * @module
 */

import { ConnectorNetworkError, ConnectorTimeoutError } from "../errors.ts";
import { REQUEST_TIMEOUT_MS } from "../limits.ts";
import type { Clock, FetchLike } from "../types.ts";

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface HttpAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

export interface HttpRequest {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

export interface HttpOptions {
  fetch: FetchLike;
  clock: Clock;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** What the request does, for messages: "read page 3 of GitHub discussions". */
  action: string;
}

class TimedOut extends Error {}

/**
 * Sends a request and reads the whole answer as text, within the timeout. Throws
 * `ConnectorTimeoutError` when the time runs out, `ConnectorNetworkError` when the connection
 * fails, and the caller's abort reason when its signal aborts.
 */
export async function exchange(request: HttpRequest, options: HttpOptions): Promise<HttpAnswer> {
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const outer = options.signal;
  outer?.throwIfAborted();
  const controller = new AbortController();
  const timedOut = new TimedOut();
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", onAbort, { once: true });
  const timer = options.clock.setTimeout(() => controller.abort(timedOut), timeoutMs);
  try {
    const response = await options.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
      redirect: "manual",
    });
    const text = await response.text();
    return {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      text,
    };
  } catch (e) {
    if (controller.signal.reason === timedOut) {
      throw new ConnectorTimeoutError(
        `Cannot ${options.action}: no complete answer within ${timeoutMs} ms`,
        timeoutMs,
      );
    }
    if (outer?.aborted) throw outer.reason;
    throw new ConnectorNetworkError(`Cannot ${options.action}: ${networkReason(e)}`, {
      cause: e,
    });
  } finally {
    options.clock.clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
}

/** A short description of a network failure, without URLs or header values. */
function networkReason(e: unknown): string {
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  if (/reset|closed|broken pipe|incomplete|decod|body|eof|aborted/i.test(text)) {
    return "the connection broke before the whole answer arrived";
  }
  if (/refused/i.test(text)) return "the connection was refused";
  if (/dns|lookup|resolve|name or service/i.test(text)) return "the host name did not resolve";
  if (/certificate|tls|ssl/i.test(text)) return "the TLS handshake failed";
  return "the network request failed";
}

/**
 * Joins a base URL and a path: `joinUrl("https://x/api/", "/v1/search")` is
 * `https://x/api/v1/search`.
 */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, "") + "/" + path.replace(/^\/+/, "");
}

/**
 * Checks an API base URL: http or https, no user name or password in it, no query or fragment.
 * Returns it without a trailing slash. Throws `makeError` with a message that never repeats the
 * URL's credentials.
 */
export function checkApiUrl(raw: string, what: string, makeError: (m: string) => Error): URL {
  let url: URL;
  try {
    url = new URL(String(raw).trim());
  } catch {
    throw makeError(`Cannot use ${what} apiUrl: it is not an absolute URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw makeError(`Cannot use ${what} apiUrl: it must start with https:// or http://`);
  }
  if (url.username || url.password) {
    throw makeError(
      `Cannot use ${what} apiUrl: it holds credentials; tokens come only from the environment`,
    );
  }
  url.hash = "";
  url.search = "";
  return url;
}

/** The host of a URL, for messages ("api.github.com"). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the API";
  }
}
