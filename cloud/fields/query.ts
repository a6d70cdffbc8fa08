/**
 * The query parameters of the routes that read (`GET notes`, `GET changes`), checked
 * strictly: a parameter not named, or given twice, is refused by name.
 *
 * @module
 */

import { isValidTimeText } from "@memo/memory";
import { splitList } from "../../env.ts";
import type { CloudHistoryFilter, CloudListOptions } from "../store.ts";
import { invalid, quote, withoutUndefined } from "./_checks.ts";
import { HISTORY_FILTERS } from "./history.ts";

/** Largest page of `GET notes`. */
export const MAX_LIST_LIMIT = 100;
/** Page size of `GET notes` without `limit`. */
export const DEFAULT_LIST_LIMIT = 25;
/** Largest page of `GET changes`. */
export const MAX_CHANGES_LIMIT = 1000;
/** Page size of `GET changes` without `limit`. */
export const DEFAULT_CHANGES_LIMIT = 100;

/** Refuses a query parameter not in `allowed`, or given twice. */
function checkParams(params: URLSearchParams, allowed: readonly string[], action: string): void {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!allowed.includes(name)) {
      throw invalid(`Cannot ${action}: unknown query parameter ${quote(name)}`, {
        parameter: name,
      });
    }
    if (seen.has(name)) {
      throw invalid(`Cannot ${action}: query parameter ${quote(name)} is given twice`, {
        parameter: name,
      });
    }
    seen.add(name);
  }
}

/** A query parameter, `undefined` when absent or empty. */
function param(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name);
  return value === null || value === "" ? undefined : value;
}

function intParam(
  params: URLSearchParams,
  name: string,
  min: number,
  max: number,
  action: string,
): number | undefined {
  const value = param(params, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw invalid(`Cannot ${action}: ${name} must be an integer from ${min} to ${max}`, {
      parameter: name,
    });
  }
  return n;
}

/** The history filters of a query (`includeSuperseded=true|false`, times), checked. */
function historyFilterParams(params: URLSearchParams, action: string): CloudHistoryFilter {
  const out: CloudHistoryFilter = {};
  const include = param(params, "includeSuperseded");
  if (include !== undefined) {
    if (include !== "true" && include !== "false") {
      throw invalid(`Cannot ${action}: includeSuperseded must be true or false`, {
        parameter: "includeSuperseded",
      });
    }
    out.includeSuperseded = include === "true";
  }
  for (const name of ["asOf", "since", "until"] as const) {
    const value = param(params, name);
    if (value === undefined) continue;
    if (!isValidTimeText(value)) {
      throw invalid(
        `Cannot ${action}: ${name} must be an ISO 8601 date (2026-03-01) or date-time`,
        { parameter: name },
      );
    }
    out[name] = value;
  }
  return out;
}

/**
 * Refuses any query parameter (routes that take none).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noQuery } from "./query.ts";
 *
 * noQuery(new URLSearchParams(), "read the stats");
 * assert.throws(() => noQuery(new URLSearchParams("x=1"), "read the stats"), /unknown query parameter "x"/);
 * ```
 */
export function noQuery(params: URLSearchParams, action: string): void {
  checkParams(params, [], action);
}

/**
 * The options of `GET notes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listQuery } from "./query.ts";
 *
 * assert.deepEqual(listQuery(new URLSearchParams("labels=ops,db&order=newest")), {
 *   limit: 25,
 *   labels: ["ops", "db"],
 *   order: "newest",
 * });
 * ```
 */
export function listQuery(params: URLSearchParams): CloudListOptions {
  const action = "list the notes";
  checkParams(params, ["cursor", "limit", "labels", "source", "order", ...HISTORY_FILTERS], action);
  const order = param(params, "order");
  if (order !== undefined && order !== "oldest" && order !== "newest") {
    throw invalid(`Cannot ${action}: order must be oldest or newest`, { parameter: "order" });
  }
  const labels = param(params, "labels");
  return withoutUndefined({
    cursor: param(params, "cursor"),
    limit: intParam(params, "limit", 1, MAX_LIST_LIMIT, action) ?? DEFAULT_LIST_LIMIT,
    labels: labels === undefined ? undefined : splitList(labels),
    source: param(params, "source"),
    order: order as "oldest" | "newest" | undefined,
    ...historyFilterParams(params, action),
  });
}

/**
 * The options of `GET changes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { changesQuery } from "./query.ts";
 *
 * assert.deepEqual(changesQuery(new URLSearchParams("since=7")), { since: 7, token: "7", limit: 100 });
 * assert.throws(() => changesQuery(new URLSearchParams("since=x")), /not a token of this feed/);
 * ```
 */
export function changesQuery(
  params: URLSearchParams,
): { since: number; token: string; limit: number } {
  const action = "read the change feed";
  checkParams(params, ["since", "limit"], action);
  const since = param(params, "since");
  const n = since === undefined ? 0 : Number(since);
  if (since !== undefined && (!/^\d{1,16}$/.test(since) || !Number.isSafeInteger(n))) {
    throw invalid(
      `Cannot ${action}: since is not a token of this feed; pass the "next" of a previous answer`,
      { parameter: "since" },
    );
  }
  return {
    since: n,
    token: since ?? "0",
    limit: intParam(params, "limit", 1, MAX_CHANGES_LIMIT, action) ?? DEFAULT_CHANGES_LIMIT,
  };
}
