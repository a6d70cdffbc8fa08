/**
 * The runner: runs connectors one after another and commits each pass with one all-or-nothing
 * `rememberMany`, after every page of it succeeded.
 *
 * @module
 */

import type { ConnectorDraft, ConnectorMemo } from "./connector_memo.ts";
import { type ConnectorErrorInfo, describeError } from "./describe_error.ts";
import { timeOf } from "./kit/paging.ts";
import type { ConnectorStateStore } from "./state.ts";
import type { Clock, Connector, ConnectorProgress, ConnectorRecord, FetchLike } from "./types.ts";

/**
 * Options of {@linkcode runConnectors}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConnectorMemo, runConnectors, type RunConnectorsOptions } from "@memo/connectors";
 * const phases: string[] = [];
 * const options: RunConnectorsOptions = { full: true, onProgress: (p) => phases.push(p.phase) };
 * const memo: ConnectorMemo = {
 *   rememberMany: () => Promise.reject(new Error("an empty pass commits nothing")),
 * };
 * const empty = { id: "empty", type: "static", pull: () => Promise.resolve([]) };
 * await runConnectors([empty], memo, options);
 * assert.deepEqual(phases, ["committing", "committed"]);
 * ```
 */
export interface RunConnectorsOptions {
  /**
   * `fetch` handed to connectors that were not given their own.
   * @default globalThis.fetch
   */
  fetch?: FetchLike;
  /** Aborts the run: the pass under way fails and no later connector runs. */
  signal?: AbortSignal;
  /** Progress of each pass: pages, records, then the commit. */
  onProgress?: (progress: ConnectorProgress) => void;
  /**
   * Clock for request timeouts.
   * @default the system clock
   */
  clock?: Clock;
  /**
   * Incremental-sync state; without it every pass is a full pass.
   * @default undefined
   */
  state?: ConnectorStateStore;
  /**
   * Ignore the stored state and read everything (the state still moves forward after the pass
   * commits).
   * @default false
   */
  full?: boolean;
  /**
   * Values (tokens) to scrub from every error message and field, as a second line of defence.
   * @default []
   */
  secrets?: readonly string[];
}

/**
 * Counts of one connector's pass.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConnectorRunSummary, runConnectors } from "@memo/connectors";
 * const result = await runConnectors(
 *   [{ id: "empty", type: "static", pull: () => Promise.resolve([]) }],
 *   { rememberMany: () => Promise.reject(new Error("an empty pass commits nothing")) },
 * );
 * const summary: ConnectorRunSummary = result.connectors[0];
 * assert.deepEqual(summary, {
 *   id: "empty",
 *   type: "static",
 *   fetched: 0,
 *   written: 0,
 *   updated: 0,
 *   unchanged: 0,
 * });
 * ```
 */
export interface ConnectorRunSummary {
  /** Connector id. */
  id: string;
  /** Connector type. */
  type: string;
  /** Distinct records the pass fetched (0 when it failed). */
  fetched: number;
  /** Notes written (new). */
  written: number;
  /** Notes updated in place. */
  updated: number;
  /** Records already stored unchanged. */
  unchanged: number;
}

/**
 * One failed pass.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   type ConnectorRunError,
 *   runConnectors,
 *   WorkspaceRateLimitError,
 * } from "@memo/connectors";
 * const result = await runConnectors(
 *   [{ id: "wiki", type: "pages", pull: () => Promise.reject(new WorkspaceRateLimitError(30)) }],
 *   { rememberMany: () => Promise.reject(new Error("a failed pass commits nothing")) },
 * );
 * const failure: ConnectorRunError = result.errors[0];
 * assert.equal(failure.connector, "wiki");
 * assert.equal(failure.error.name, "WorkspaceRateLimitError");
 * assert.equal(failure.error.retryAfterSeconds, 30);
 * ```
 */
export interface ConnectorRunError {
  /** Connector id. */
  connector: string;
  /** Connector type. */
  type: string;
  /** What went wrong. */
  error: ConnectorErrorInfo;
}

/**
 * What {@linkcode runConnectors} returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   ConnectorTimeoutError,
 *   runConnectors,
 *   type RunConnectorsResult,
 * } from "@memo/connectors";
 * const result: RunConnectorsResult = await runConnectors(
 *   [{
 *     id: "slow",
 *     type: "pages",
 *     pull: () => Promise.reject(new ConnectorTimeoutError("Cannot read page 1", 30000)),
 *   }],
 *   { rememberMany: () => Promise.reject(new Error("a failed pass commits nothing")) },
 * );
 * assert.equal(result.written, 0);
 * assert.deepEqual(result.connectors.map((c) => c.id), ["slow"]);
 * assert.deepEqual(result.errors.map((e) => e.error.timeoutMs), [30000]);
 * ```
 */
export interface RunConnectorsResult {
  /** One entry per connector run, in order (failed ones with zero counts). */
  connectors: ConnectorRunSummary[];
  /** Notes written, over all connectors. */
  written: number;
  /** Notes updated, over all connectors. */
  updated: number;
  /** Records unchanged, over all connectors. */
  unchanged: number;
  /** One entry per connector whose pass failed. */
  errors: ConnectorRunError[];
}

/**
 * Runs connectors one after another. Each pass is all-or-nothing: the records of a pass are
 * deduplicated by source key and committed with one `memo.rememberMany` only after every page
 * succeeded. A failed pass writes nothing; its error goes to `errors` and the next connector runs.
 * With a `state` store, each connector reads only what changed since its last committed pass, and
 * the state moves forward only after a commit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Connector, runConnectors } from "@memo/connectors";
 * import { openMemo } from "@memo/memory";
 * const rootDir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir });
 * const fixed: Connector = {
 *   id: "fixed",
 *   type: "static",
 *   pull: () =>
 *     Promise.resolve([{
 *       source: "static:1",
 *       title: "Hello",
 *       text: "Hello, world",
 *       url: "https://example.com/1",
 *       createdAt: "2024-05-01T00:00:00Z",
 *       updatedAt: "2024-05-01T00:00:00Z",
 *       metadata: { labels: ["demo"] },
 *     }]),
 * };
 * const result = await runConnectors([fixed], memo);
 * assert.equal(result.written, 1);
 * assert.deepEqual(result.errors, []);
 * const again = await runConnectors([fixed], memo);
 * assert.equal(again.unchanged, 1, "a second pass writes nothing");
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function runConnectors(
  connectors: readonly Connector[],
  memo: ConnectorMemo,
  options: RunConnectorsOptions = {},
): Promise<RunConnectorsResult> {
  const result: RunConnectorsResult = {
    connectors: [],
    written: 0,
    updated: 0,
    unchanged: 0,
    errors: [],
  };
  const secrets = options.secrets ?? [];
  for (const connector of connectors) {
    options.signal?.throwIfAborted();
    const summary: ConnectorRunSummary = {
      id: connector.id,
      type: connector.type,
      fetched: 0,
      written: 0,
      updated: 0,
      unchanged: 0,
    };
    result.connectors.push(summary);
    let pages = 0;
    let pulled = 0;
    const report = (progress: Omit<ConnectorProgress, "connector" | "type">) =>
      options.onProgress?.({ connector: connector.id, type: connector.type, ...progress });
    try {
      const previous = await readState(options.state, connector);
      const records = await connector.pull({
        fetch: options.fetch,
        signal: options.signal,
        clock: options.clock,
        since: options.full ? undefined : previous?.since,
        onProgress: (p) => {
          pages = p.pages;
          pulled = p.records;
          options.onProgress?.({ ...p, connector: connector.id, type: connector.type });
        },
      });
      options.signal?.throwIfAborted();
      const unique = dedupe(records, connector.id);
      report({ phase: "committing", pages, records: unique.length });
      const commit = unique.length
        ? await memo.rememberMany(unique.map(toDraft), { signal: options.signal })
        : { written: [], updated: [], unchanged: [], bytesWritten: 0 };
      summary.fetched = unique.length;
      summary.written = commit.written.length;
      summary.updated = commit.updated.length;
      summary.unchanged = commit.unchanged.length;
      result.written += summary.written;
      result.updated += summary.updated;
      result.unchanged += summary.unchanged;
      report({
        phase: "committed",
        pages,
        records: unique.length,
        written: summary.written,
        updated: summary.updated,
        unchanged: summary.unchanged,
        bytesWritten: commit.bytesWritten,
      });
      // The notes are durable now: a state that cannot be saved (a full disk) only makes the next
      // pass read again what this one read, which changes nothing. The pass committed.
      await advanceState(options.state, connector, previous?.since, unique).catch(() => {});
    } catch (e) {
      if (options.signal?.aborted && e === options.signal.reason) throw e;
      report({ phase: "failed", pages, records: pulled });
      result.errors.push({
        connector: connector.id,
        type: connector.type,
        error: describeError(e, secrets),
      });
    }
  }
  return result;
}

function dedupe(records: readonly ConnectorRecord[], id: string): ConnectorRecord[] {
  if (!Array.isArray(records)) {
    throw new TypeError(`Cannot commit connector ${id}: pull() did not return a list`);
  }
  const bySource = new Map<string, ConnectorRecord>();
  for (const record of records) {
    if (!record || typeof record.source !== "string") {
      throw new TypeError(`Cannot commit connector ${id}: a record has no source key`);
    }
    const known = bySource.get(record.source);
    // The same item seen twice in a pass (paging shifted under an edit): keep the newer copy.
    if (!known || !(timeOf(record.updatedAt) < timeOf(known.updatedAt))) {
      bySource.set(record.source, record);
    }
  }
  return [...bySource.values()];
}

function toDraft(record: ConnectorRecord): ConnectorDraft {
  return {
    text: record.text,
    title: record.title,
    labels: record.metadata?.labels ?? [],
    source: record.source,
    created: record.createdAt,
    updated: record.updatedAt,
  };
}

async function readState(state: ConnectorStateStore | undefined, connector: Connector) {
  if (!state) return undefined;
  const entry = await state.read(connector.id);
  if (!entry || entry.type !== connector.type || entry.scope !== connector.scope) return undefined;
  return entry;
}

async function advanceState(
  state: ConnectorStateStore | undefined,
  connector: Connector,
  since: string | undefined,
  records: readonly ConnectorRecord[],
): Promise<void> {
  if (!state) return;
  let newest = since;
  for (const r of records) {
    if (Number.isFinite(timeOf(r.updatedAt)) && !(timeOf(r.updatedAt) <= timeOf(newest))) {
      newest = r.updatedAt;
    }
  }
  const entry = await state.read(connector.id);
  if (
    entry && entry.type === connector.type && entry.scope === connector.scope &&
    entry.since === newest
  ) return;
  await state.write(connector.id, {
    type: connector.type,
    ...(connector.scope !== undefined ? { scope: connector.scope } : {}),
    ...(newest !== undefined ? { since: newest } : {}),
  });
}
