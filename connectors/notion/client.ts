/**
 * Internal: the Notion HTTP calls of the workspace connector, with their headers (`Authorization`,
 * `Notion-Version`, `Source-Version`), the per-request timeout, and Notion's errors mapped to the
 * connector errors (never echoing a response body).
 *
 * @module
 */

import { exchange, type HttpAnswer, joinUrl } from "../kit/http.ts";
import { clip } from "../kit/text.ts";
import { WorkspaceAuthError, WorkspaceError, WorkspaceRateLimitError } from "../errors.ts";
import { REQUEST_TIMEOUT_MS } from "../limits.ts";
import { parseRetryAfter } from "../retry_after.ts";
import type { Clock, FetchLike } from "../types.ts";

/**
 * The Notion API version the connector speaks (`Source-Version` and `Notion-Version`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NOTION_VERSION } from "@memo/connectors";
 * assert.equal(NOTION_VERSION, "2022-06-28");
 * ```
 */
export const NOTION_VERSION = "2022-06-28";

/**
 * Notion's public API, the default `apiUrl` of the workspace connector.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NOTION_API_URL, WorkspaceConnector } from "@memo/connectors";
 * assert.equal(NOTION_API_URL, "https://api.notion.com");
 * assert.equal(new WorkspaceConnector().apiUrl, NOTION_API_URL);
 * ```
 */
export const NOTION_API_URL = "https://api.notion.com";

/** A list answer of Notion (`object: "list"`). */
export interface NotionList {
  results: unknown[];
  next_cursor: string | null;
  has_more: boolean;
}

/** What the calls need. */
export interface NotionCallOptions {
  apiUrl: string;
  token: string;
  fetch: FetchLike;
  clock: Clock;
  signal?: AbortSignal;
}

/**
 * POSTs or GETs one Notion endpoint and returns the list it answers. `what` describes the request
 * for messages ("query Notion database <id> (page 2)"); `missing` is the advice for a 404.
 */
export async function notionList(
  options: NotionCallOptions,
  request: { method: "GET" | "POST"; path: string; body?: unknown },
  what: string,
  missing: string,
): Promise<NotionList> {
  const headers: Record<string, string> = {
    "Authorization": `Bearer ${options.token}`,
    "Source-Version": NOTION_VERSION,
    "Notion-Version": NOTION_VERSION,
    "Content-Type": "application/json",
  };
  const send = () =>
    exchange({
      url: joinUrl(options.apiUrl, request.path),
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    }, {
      fetch: options.fetch,
      clock: options.clock,
      signal: options.signal,
      timeoutMs: REQUEST_TIMEOUT_MS,
      action: what,
    });
  let answer = await send();
  // Notion's rate limit (about three requests a second) answers 429 with Retry-After: a short wait
  // is waited out inside the pass, a few times, so that a large workspace's pass can finish; a
  // long one (or none given) fails the pass, which says when to retry.
  for (let tries = 0; answer.status === 429 && tries < RATE_LIMIT_RETRIES; tries++) {
    const wait = parseRetryAfter(answer.headers.get("retry-after"), options.clock.now());
    if (wait === undefined || wait > RATE_LIMIT_WAIT_S) break;
    await pause(options.clock, wait * 1000, options.signal);
    answer = await send();
  }
  if (answer.status < 200 || answer.status > 299) {
    throw notionError(answer, what, missing, options.clock.now());
  }
  let body: Partial<NotionList> & { object?: unknown };
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new WorkspaceError(
      `Cannot ${what}: Notion answered HTTP ${answer.status} with a body that is not JSON`,
      { status: answer.status },
    );
  }
  if (
    body === null || typeof body !== "object" || !Array.isArray(body.results) ||
    typeof body.has_more !== "boolean"
  ) {
    throw new WorkspaceError(`Cannot ${what}: the answer is not a Notion list`, {
      status: answer.status,
    });
  }
  return {
    results: body.results,
    has_more: body.has_more,
    next_cursor: typeof body.next_cursor === "string" ? body.next_cursor : null,
  };
}

/** How many 429s a request waits out, and the longest `Retry-After` it waits, in seconds. */
const RATE_LIMIT_RETRIES = 3;
const RATE_LIMIT_WAIT_S = 10;

/** Waits `ms` on `clock`; rejects with the signal's reason when it aborts first. */
function pause(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const stop = () => {
      clock.clearTimeout(handle);
      reject(signal!.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/** Maps a failed answer to the connector's errors; `now` reads a `Retry-After` date. */
function notionError(answer: HttpAnswer, what: string, missing: string, now: number): Error {
  const { status } = answer;
  let apiCode: string | undefined;
  let apiMessage = "";
  try {
    const body = JSON.parse(answer.text);
    if (body && typeof body === "object") {
      if (typeof body.code === "string" && /^[a-z_]{1,64}$/.test(body.code)) apiCode = body.code;
      if (typeof body.message === "string") apiMessage = body.message;
    }
  } catch {
    // not JSON: an HTML error page from a proxy, say
  }
  if (status === 429) {
    return new WorkspaceRateLimitError(parseRetryAfter(answer.headers.get("retry-after"), now));
  }
  if (status === 401 || status === 403) return new WorkspaceAuthError(status, apiCode);
  const code = apiCode ? ` ${apiCode}` : "";
  if (status === 404) {
    return new WorkspaceError(
      `Cannot ${what}: Notion answered HTTP 404${code}: it does not exist or is not shared with the integration; ${missing}`,
      { status, apiCode },
    );
  }
  // The message is read to classify the failure, never repeated.
  if (status === 400 && /data sources?/i.test(apiMessage)) {
    return new WorkspaceError(
      `Cannot ${what}: the database has multiple data sources, which Notion API ${NOTION_VERSION} cannot query (HTTP 400${code}); sync it with a workspace search instead (leave databaseId out and set query)`,
      { status, apiCode },
    );
  }
  if (status === 400 && /cursor/i.test(apiMessage)) {
    return new WorkspaceError(
      `Cannot ${what}: Notion refused the paging cursor (HTTP 400${code}); run the sync again`,
      { status, apiCode },
    );
  }
  const html = !apiCode && /^\s*</.test(answer.text) ? "; it sent an HTML error page" : "";
  const statusText = answer.statusText ? ` ${clip(answer.statusText, 60)}` : "";
  return new WorkspaceError(
    `Cannot ${what}: Notion answered HTTP ${status}${statusText}${code}${html}`,
    { status, apiCode },
  );
}
