/**
 * What reading notes through a runtime takes and returns: the options of `recall` and `list`, id
 * completion, the changes `watch` reports, and the recall profile. `types.ts` re-exports them.
 *
 * @module
 */

import type { AutoEngine, RecallEngine } from "@memo/memory";
import type { RuntimeCallOptions } from "./_call_options.ts";
import type { RuntimeHistoryFilter } from "./history_types.ts";

/** Options of {@linkcode MemoMcpRuntime.recall}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeRecallOptions } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * await runtime.remember({ text: "Deploys run with make deploy", labels: ["infra"] });
 * await runtime.remember({ text: "Deploy previews are built by CI", labels: ["ci"] });
 * const options: RuntimeRecallOptions = { limit: 5, labels: ["infra"], engine: "lexical" };
 * const hits = await runtime.recall("deploy", options);
 * assert.deepEqual(hits.map((h) => h.note.title), ["Deploys run with make deploy"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRecallOptions extends RuntimeCallOptions, RuntimeHistoryFilter {
  /** Most hits. */
  limit: number;
  /** Engine; the runtime's default when missing. */
  engine?: RecallEngine;
  /** Only notes that carry every one of these labels. */
  labels?: string[];
  /** Only notes whose source key starts with this prefix. */
  source?: string;
  /** Only notes of this scope or these scopes (default: every scope served). */
  scope?: "user" | "project" | "local" | ("user" | "project" | "local")[];
  /** Report each term's contribution. */
  explain?: boolean;
}

/** Options of {@linkcode MemoMcpRuntime.list}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   isMemoRuntimeError,
 *   type RuntimeListOptions,
 * } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * for (const text of ["one", "two", "three"]) await runtime.remember({ text });
 * const first = await runtime.list({ limit: 2 });
 * const options: RuntimeListOptions = { limit: 2, cursor: first.nextCursor };
 * const second = await runtime.list(options);
 * assert.deepEqual(second.notes.map((n) => n.title), ["three"]);
 * const newest = await runtime.list({ limit: 2, order: "newest" });
 * assert.deepEqual(newest.notes.map((n) => n.title), ["three", "two"]);
 * await assert.rejects(
 *   runtime.list({ limit: 2, cursor: "not-a-cursor" }),
 *   (e) => isMemoRuntimeError(e, "INVALID_INPUT"),
 * );
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeListOptions extends RuntimeCallOptions, RuntimeHistoryFilter {
  /** Cursor from a previous page. A bad one throws `MemoRuntimeError` `INVALID_INPUT`. */
  cursor?: string;
  /** Page size. */
  limit: number;
  /** Only notes that carry every one of these labels. */
  labels?: string[];
  /** Only notes whose source key starts with this prefix. */
  source?: string;
  /** Only notes of this scope or these scopes (default: every scope served). */
  scope?: "user" | "project" | "local" | ("user" | "project" | "local")[];
  /**
   * `"oldest"` lists the notes in store order, `"newest"` the reverse. A cursor continues in the
   * order of the page that gave it, so pass the same `order` with it. Any other value throws
   * `MemoRuntimeError` `INVALID_INPUT`.
   * @default "oldest"
   */
  order?: "oldest" | "newest";
}

/** Result of {@linkcode MemoMcpRuntime.completeIds}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeCompletion } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "Deploys run with make deploy" });
 * const completion: RuntimeCompletion = await runtime.completeIds(note.id.slice(0, 6), 10);
 * assert.deepEqual(completion, { values: [note.id], total: 1 });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeCompletion {
  /** Matching values, at most the limit asked for. */
  values: string[];
  /** How many values match in all. */
  total: number;
}

/**
 * A change to the notes, as {@linkcode MemoMcpRuntime.watch} reports it.
 *
 * For MCP: each id is the resource `memo://notes/{id}` that changed
 * (`notifications/resources/updated`); `listChanged` means that the list of resources changed
 * (`notifications/resources/list_changed`). Every change changes `memo://stats`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeChange } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const seen: RuntimeChange[] = [];
 * const stop = runtime.watch!((change) => void seen.push(change));
 * const { note } = await runtime.remember({ text: "Deploys run with make deploy" });
 * await runtime.update(note.id, { labels: ["ops"] });
 * await runtime.forget(note.id);
 * assert.deepEqual(seen, [
 *   { ids: [note.id], listChanged: true }, // created
 *   { ids: [note.id], listChanged: false }, // updated
 *   { ids: [note.id], listChanged: true }, // removed
 * ]);
 * stop();
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeChange {
  /**
   * Ids of the notes that were created, updated or removed. Empty when the runtime cannot tell
   * which (a connector sync through a memory client without `watch`); `listChanged` is then true.
   */
  ids: string[];
  /** True when notes were created or removed, so that a list of notes changed. */
  listChanged: boolean;
}

/**
 * The recall settings of a runtime, known before it loads any note
 * (`MemoMcpRuntime.recallProfile`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeRecallProfile } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
 * const profile: RuntimeRecallProfile | undefined = await runtime.recallProfile?.();
 * assert.equal(profile?.engine, "auto");
 * assert.equal(profile?.auto.engine, "lexical"); // use-lite, the default model
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRecallProfile {
  /** The engine of a recall that names none. */
  engine: RecallEngine;
  /** What `auto` does with the configured model (the memory package's `autoEngineOf`). */
  auto: AutoEngine;
  /**
   * The scopes this runtime serves, where a write goes by default, and why the others are not
   * served; absent when it serves the project alone without saying why.
   */
  scopes?: RuntimeScopes;
}

/**
 * The scopes a runtime serves (`RuntimeRecallProfile.scopes`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RuntimeScopes } from "@memo/mcp-server";
 * const scopes: RuntimeScopes = { served: ["project"], defaultScope: "project", refusal: "this endpoint is hosted" };
 * assert.equal(scopes.served.length, 1);
 * ```
 */
export interface RuntimeScopes {
  /** The scopes read and written. */
  served: ("user" | "project" | "local")[];
  /** Where a write without `scope` goes. */
  defaultScope: "user" | "project" | "local";
  /** Why the other scopes are not served. */
  refusal?: string;
}
