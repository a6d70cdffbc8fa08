/**
 * Internal: {@linkcode MemoCloudClient}'s options checked and settled, with their defaults: the API
 * base from the base URL, the ids, the timeout and retry policy, and the I/O (`fetch`, `sleep`,
 * `random`, `now`). A setting that cannot work is a `MemoCloudError` with code `config`.
 *
 * @module
 */

import { VERSION } from "../../version.ts";
import { MemoCloudError } from "./errors.ts";
import type { TransportSettings } from "./transport.ts";
import type { MemoCloudClientOptions } from "./client_options.ts";

/**
 * Workspace and project ids.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ID_PATTERN } from "./_settings.ts";
 * assert.ok(ID_PATTERN.test("team-1"));
 * assert.ok(!ID_PATTERN.test("Team"));
 * ```
 */
export const ID_PATTERN = /^[0-9a-z][0-9a-z_-]{0,63}$/;

/**
 * A client's settled settings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ClientSettings, clientSettingsOf } from "./_settings.ts";
 * const settings: ClientSettings = clientSettingsOf({ baseUrl: "http://127.0.0.1:8788", apiKey: "k" });
 * assert.equal(settings.configuredWorkspace, undefined); // the key's
 * ```
 */
export interface ClientSettings {
  /** `<origin>[/prefix]/v1`, no trailing slash. */
  apiBase: string;
  /** The project the notes belong to. */
  projectId: string;
  /** The configured workspace, checked against the key's before the first call. */
  configuredWorkspace: string | undefined;
  /** The transport's policy and I/O. */
  transport: TransportSettings;
}

/**
 * Checks `options` and fills in their defaults; sends nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientSettingsOf } from "./_settings.ts";
 * const { apiBase, projectId, transport } = clientSettingsOf({
 *   baseUrl: "https://cloud.example/",
 *   apiKey: "mk_example",
 * });
 * assert.equal(apiBase, "https://cloud.example/v1");
 * assert.equal(projectId, "default");
 * assert.equal(transport.timeoutMs, 10000);
 * assert.equal(transport.maxRetries, 3);
 * assert.throws(() => clientSettingsOf({ baseUrl: "https://cloud.example" }), { code: "config" });
 * ```
 */
export function clientSettingsOf(options: MemoCloudClientOptions): ClientSettings {
  const { apiBase, origin } = apiBaseOf(options.baseUrl);
  const apiKey = options.apiKey?.trim() ? options.apiKey.trim() : undefined;
  if (!apiKey && (options.requireApiKey ?? true)) {
    throw configError("no API key (set MEMO_CLOUD_API_KEY)");
  }
  const projectId = checkId("projectId", options.projectId ?? "default");
  const configuredWorkspace = options.workspaceId === undefined
    ? undefined
    : checkId("workspaceId", options.workspaceId);
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const transport: TransportSettings = {
    apiBase,
    origin,
    apiKey,
    userAgent: options.userAgent ?? `memo/${VERSION}`,
    timeoutMs: checkCount("timeoutMs", options.timeoutMs, 10000, 1),
    maxRetries: checkCount("retry.maxRetries", options.retry?.maxRetries, 3, 0),
    backoffMs: checkCount("retry.backoffMs", options.retry?.backoffMs, 250, 0),
    fetch: fetchImpl,
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
  };
  return { apiBase, projectId, configuredWorkspace, transport };
}

function configError(message: string): MemoCloudError {
  return new MemoCloudError("config", `Cannot use the Memo Cloud API: ${message}`);
}

/** The API base (`…/v1`) and the origin of a base URL. */
function apiBaseOf(baseUrl: string | undefined): { apiBase: string; origin: string } {
  if (baseUrl === undefined || baseUrl.trim() === "") {
    throw configError(
      "no base URL (set MEMO_CLOUD_BASE_URL, or cloud.baseUrl in .memo/config.json)",
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw configError("the base URL is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw configError(`the base URL must be http or https, not ${url.protocol.slice(0, 20)}`);
  }
  if (url.username || url.password) {
    throw configError("the base URL must not hold a user name or password (use the API key)");
  }
  if (url.search || url.hash) throw configError("the base URL must not hold a query or fragment");
  let path = url.pathname.replace(/\/+$/, "");
  if (!path.endsWith("/v1")) path += "/v1";
  return { apiBase: `${url.origin}${path}`, origin: url.origin };
}

function checkId(name: string, value: string): string {
  if (!ID_PATTERN.test(value)) {
    throw configError(
      `${name} must be 1 to 64 lowercase letters, digits, '_' or '-', starting with a letter or digit`,
    );
  }
  return value;
}

function checkCount(name: string, value: number | undefined, fallback: number, min: number) {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw configError(`${name} must be an integer of at least ${min}`);
  }
  return value;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
