/**
 * `syncConfiguredConnectors`: what `memo sync` and the MCP tool `sync_connectors` run. It reads
 * `.memo/config.json`, builds the connectors with tokens from the environment, runs them, and keeps
 * the incremental state in `.memo/connectors/state.json`.
 *
 * @module
 */

import { memoPaths } from "@memo/memory";
import { readConnectorConfig } from "./config.ts";
import { UnknownConnectorError } from "./errors.ts";
import { type ConnectorRegistry, createConnectorRegistry, TOKEN_ENV } from "./registry.ts";
import type { ConnectorMemo } from "./connector_memo.ts";
import { runConnectors, type RunConnectorsResult } from "./runner.ts";
import { FileConnectorState } from "./state.ts";
import type { Clock, Connector, ConnectorProgress, FetchLike } from "./types.ts";

/**
 * Options of {@linkcode syncConfiguredConnectors}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { syncConfiguredConnectors, type SyncConfiguredOptions } from "@memo/connectors";
 * import { openMemo } from "@memo/memory";
 * const rootDir = await Deno.makeTempDir();
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(
 *   `${rootDir}/.memo/config.json`,
 *   JSON.stringify({ connectors: [{ id: "wiki", type: "pages", query: "runbook" }] }),
 * );
 * const memo = await openMemo({ rootDir });
 * const options: SyncConfiguredOptions = { rootDir, env: {} }; // no NOTION_TOKEN
 * const result = await syncConfiguredConnectors(memo, options);
 * assert.equal(result.errors[0].error.name, "ConnectorConfigError");
 * assert.match(result.errors[0].error.message, /set MEMO_NOTION_TOKEN or NOTION_TOKEN/);
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface SyncConfiguredOptions {
  /** Project root (the folder holding `.memo/`). */
  rootDir: string;
  /**
   * Environment holding the tokens (`MEMO_GITHUB_TOKEN` or `GITHUB_TOKEN`, `MEMO_NOTION_TOKEN` or
   * `NOTION_TOKEN`).
   * @default {}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * `fetch` for every connector.
   * @default globalThis.fetch
   */
  fetch?: FetchLike;
  /** Aborts the run. */
  signal?: AbortSignal;
  /**
   * Ids of the connectors to run, in configuration order; an unknown id throws
   * `UnknownConnectorError` before anything runs.
   * @default every configured connector
   */
  only?: readonly string[];
  /** Progress of each pass. */
  onProgress?: (progress: ConnectorProgress) => void;
  /**
   * Clock for request timeouts.
   * @default the system clock
   */
  clock?: Clock;
  /**
   * Read everything, ignoring the incremental state.
   * @default false
   */
  full?: boolean;
  /**
   * Registry that builds the connectors.
   * @default createConnectorRegistry()
   */
  registry?: ConnectorRegistry;
}

/**
 * Runs the connectors configured in `<rootDir>/.memo/config.json`. A connector whose entry cannot
 * be built (a bad parameter) fails its own pass and is reported in `errors`; the others still run.
 * Throws `ConnectorConfigError` when the file itself is unreadable, and `UnknownConnectorError`
 * when `only` names an id that is not configured.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { syncConfiguredConnectors } from "@memo/connectors";
 * import { openMemo } from "@memo/memory";
 *
 * const rootDir = await Deno.makeTempDir();
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(
 *   `${rootDir}/.memo/config.json`,
 *   JSON.stringify({
 *     connectors: [{ id: "github", type: "discussions", repositories: ["octo-org/hello-world"] }],
 *   }),
 * );
 * // Answers like GitHub's GraphQL endpoint: one page holding one discussion.
 * const answerLikeGitHub = () =>
 *   Promise.resolve(Response.json({
 *     data: {
 *       repository: {
 *         nameWithOwner: "octo-org/hello-world",
 *         hasDiscussionsEnabled: true,
 *         discussions: {
 *           pageInfo: { hasNextPage: false, endCursor: null },
 *           nodes: [{
 *             number: 42,
 *             title: "How do I deploy?",
 *             body: "Run `make deploy`.",
 *             url: "https://github.com/octo-org/hello-world/discussions/42",
 *             createdAt: "2024-05-01T10:00:00Z",
 *             updatedAt: "2024-05-02T09:30:00Z",
 *             author: { login: "monalisa" },
 *             category: { name: "Q&A" },
 *             answer: null,
 *             comments: { totalCount: 3 },
 *           }],
 *         },
 *       },
 *     },
 *   }));
 * const memo = await openMemo({ rootDir });
 * const options = {
 *   rootDir,
 *   env: { GITHUB_TOKEN: "ghp_example" }, // in real use: Deno.env.toObject()
 *   fetch: answerLikeGitHub, // in real use: left out
 * };
 * const result = await syncConfiguredConnectors(memo, options);
 * assert.equal(result.written, 1);
 * assert.deepEqual(result.errors, []);
 * const again = await syncConfiguredConnectors(memo, options);
 * assert.equal(again.unchanged, 1, "nothing changed upstream: nothing is written");
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function syncConfiguredConnectors(
  memo: ConnectorMemo,
  options: SyncConfiguredOptions,
): Promise<RunConnectorsResult> {
  const paths = memoPaths(options.rootDir);
  const configs = await readConnectorConfig(paths.config);
  let selected = configs;
  if (options.only !== undefined) {
    const wanted = new Set(options.only);
    const known = configs.map((c) => c.id);
    const unknown = [...wanted].filter((id) => !known.includes(id));
    if (unknown.length) throw new UnknownConnectorError(unknown, known);
    selected = configs.filter((c) => wanted.has(c.id));
  }
  const registry = options.registry ?? createConnectorRegistry();
  const env = options.env ?? {};
  const connectors: Connector[] = selected.map((config) => {
    try {
      return registry.create(config, { env });
    } catch (e) {
      return failing(config.id, config.type, e);
    }
  });
  const secrets = Object.values(TOKEN_ENV).flat().map((name) => env[name]).filter(
    (v): v is string => typeof v === "string" && v.trim() !== "",
  ).flatMap((v) => [v, v.trim()]);
  return await runConnectors(connectors, memo, {
    fetch: options.fetch,
    signal: options.signal,
    onProgress: options.onProgress,
    clock: options.clock,
    full: options.full,
    state: new FileConnectorState(paths.connectorState),
    secrets,
  });
}

/** A connector that could not be built: its pass fails with the build error. */
function failing(id: string, type: string, error: unknown): Connector {
  return { id, type, pull: () => Promise.reject(error) };
}
