/**
 * The cloud-only runtime: a {@linkcode MemoMcpRuntime} whose notes live behind the Memo Cloud API,
 * reached through a {@linkcode MemoCloudClient}. It writes nothing under its project folder but the
 * connectors' state.
 *
 * @module
 */

import { isMemoCloudError } from "./errors.ts";
import { CloudRuntime } from "./_cloud_runtime.ts";
import { MemoCloudClient, type MemoCloudClientOptions, type MemoCloudOptions } from "./client.ts";
import { MemoRuntimeError } from "../errors.ts";
import type { MemoMcpRuntime, SecretsPolicy } from "../types.ts";

/**
 * Options of {@linkcode createMemoCloudMcpRuntime}: the `cloud` options, a ready client or a
 * `fetch`, and where the connectors find their configuration.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudMcpRuntime, type MemoCloudMcpRuntimeOptions } from "@memo/mcp-server";
 * const calls: string[] = [];
 * const options: MemoCloudMcpRuntimeOptions = {
 *   baseUrl: "https://cloud.example",
 *   apiKey: "mk_example",
 *   // An injected fetch: tests answer without a network.
 *   fetch: (input) => {
 *     calls.push(new URL(String(input)).pathname);
 *     return Promise.resolve(
 *       String(input).endsWith("/whoami")
 *         ? Response.json({ workspaceId: "acme" })
 *         : Response.json({ notes: 0, labels: {}, sources: {}, revision: 0 }),
 *     );
 *   },
 * };
 * const runtime = createMemoCloudMcpRuntime(options);
 * assert.equal((await runtime.stats()).notes, 0);
 * assert.deepEqual(calls, ["/v1/whoami", "/v1/workspaces/acme/projects/default/stats"]);
 * await runtime.close();
 * ```
 */
export interface MemoCloudMcpRuntimeOptions extends MemoCloudOptions {
  /** A ready client; built from the other fields when missing. */
  cloudClient?: MemoCloudClient;
  /**
   * What a write does with a detected secret, checked on this side before anything is sent (the
   * server checks again with its own `MEMO_CLOUD_SECRETS`): `redact`, `refuse` or `allow`.
   * @default "redact"
   */
  secrets?: SecretsPolicy;
  /**
   * `fetch` the client uses.
   * @default globalThis.fetch
   */
  fetch?: (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
  /**
   * Project folder: where `syncConnectors` reads `.memo/config.json` and keeps
   * `.memo/connectors/state.json`. No notes are written there.
   * @default "." (the current directory; `MEMO_ROOT_DIR` through the env factory)
   */
  rootDir?: string;
  /**
   * Environment the connectors read their tokens from (`MEMO_GITHUB_TOKEN` …).
   * @default the process environment
   */
  env?: Record<string, string | undefined>;
  /**
   * How often `watch` polls the change feed while someone listens, in milliseconds.
   * @default 1000
   */
  watchIntervalMs?: number;
}

/**
 * Creates the cloud-only runtime: every call goes to the Memo Cloud API (`baseUrl`, `apiKey`,
 * `workspaceId`, `projectId` …, or a ready `cloudClient`).
 *
 * - Recall is lexical: `engine` `auto` means lexical, and `vector` or `hybrid` are refused
 *   (`INVALID_INPUT`, "Cannot recall with the vector engine: the cloud runtime is lexical"). At
 *   most 100 hits come back. `recallDetailed` says `engine: "lexical"` with nothing embedded, and
 *   `stats().embeddings` says `state: "off"`; there is no `embed`.
 * - Notes come back as the local runtime returns them, without `revision`.
 * - `syncConnectors` runs the connectors in this process, reading `.memo/config.json` and
 *   `.memo/connectors/state.json` under `rootDir`, and commits each connector pass as one batch
 *   (one transaction): a pass over 10000 notes or 16 MiB fails whole, writing nothing.
 * - `watch` polls the change feed while someone listens (every `watchIntervalMs`); writes made
 *   through the runtime are reported at once.
 * - Failures are `MemoRuntimeError`s whose messages never hold the key: `NOTE_NOT_FOUND`,
 *   `INVALID_INPUT` (refused input, a conflict), `CONFIG` (a refused key, another workspace, a
 *   wrong base URL) and `UNAVAILABLE` (the server down or failing, rate limits, timeouts, after the
 *   retries).
 *
 * Throws a `MemoRuntimeError` (`CONFIG`) at once for settings that cannot work (no base URL, no API
 * key, a malformed id); sends nothing until the first call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudMcpRuntime } from "@memo/mcp-server";
 * // A stand-in for the Cloud API; in real use, leave `fetch` out.
 * const note = {
 *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
 * };
 * const fetch = (input: Request | URL | string) =>
 *   Promise.resolve(
 *     String(input).endsWith("/whoami")
 *       ? Response.json({ workspaceId: "acme" })
 *       : Response.json({ note, status: "written" }, { status: 201 }),
 *   );
 * const runtime = createMemoCloudMcpRuntime({ baseUrl: "http://127.0.0.1:8788", apiKey: "k", fetch });
 * assert.equal(runtime.kind, "cloud");
 * const result = await runtime.remember({ text: "Run make deploy." });
 * const { revision: _revision, ...plainNote } = note;
 * assert.deepEqual(result, { note: plainNote, status: "written" }); // no revision
 * await assert.rejects(runtime.recall("deploy", { limit: 5, engine: "vector" }), {
 *   code: "INVALID_INPUT",
 *   message: "Cannot recall with the vector engine: the cloud runtime is lexical",
 * });
 * assert.throws(() => createMemoCloudMcpRuntime({ baseUrl: "http://127.0.0.1:8788" }), {
 *   code: "CONFIG",
 *   message: "Cannot start the cloud runtime: no API key (set MEMO_CLOUD_API_KEY)",
 * });
 * await runtime.close();
 * ```
 */
export function createMemoCloudMcpRuntime(options: MemoCloudMcpRuntimeOptions): MemoMcpRuntime {
  let client = options.cloudClient;
  if (!client) {
    try {
      client = new MemoCloudClient(options as MemoCloudClientOptions);
    } catch (e) {
      if (isMemoCloudError(e, "config")) {
        throw new MemoRuntimeError(
          "CONFIG",
          e.message.replace(/^Cannot use the Memo Cloud API: /, "Cannot start the cloud runtime: "),
          { cause: e },
        );
      }
      throw e;
    }
  }
  return new CloudRuntime(client, options);
}
