/**
 * MCP protocol versions: which ones memo speaks, how a version is negotiated,
 * and what each one allows (batches, annotations, structured results).
 *
 * @module
 */

/**
 * Protocol versions memo speaks, newest first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@memo/mcp-server";
 *
 * assert.equal(SUPPORTED_PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
 * assert.ok(SUPPORTED_PROTOCOL_VERSIONS.includes("2024-11-05"));
 * ```
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

/**
 * The newest version, answered when a client asks for one memo does not know.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   LATEST_PROTOCOL_VERSION,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = createMemoMcpProtocolServer({ runtime });
 * const reply = await server.handle(JSON.stringify({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "initialize",
 *   params: {
 *     protocolVersion: "1999-01-01",
 *     capabilities: {},
 *     clientInfo: { name: "old", version: "1" },
 *   },
 * }));
 * assert.equal(JSON.parse(reply!).result.protocolVersion, LATEST_PROTOCOL_VERSION);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";

/**
 * What a protocol version allows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type VersionFeatures, versionFeatures } from "./_versions.ts";
 *
 * const features: VersionFeatures = versionFeatures("2025-03-26");
 * assert.deepEqual(features, { batches: true, annotations: true, structured: false });
 * ```
 */
export interface VersionFeatures {
  /** JSON-RPC batches (2025-03-26 and earlier). */
  batches: boolean;
  /** Tool annotations (2025-03-26 and later). */
  annotations: boolean;
  /** `outputSchema`, `structuredContent` and `title` (2025-06-18 and later). */
  structured: boolean;
}

const FEATURES = new Map<string, VersionFeatures>([
  ["2025-11-25", { batches: false, annotations: true, structured: true }],
  ["2025-06-18", { batches: false, annotations: true, structured: true }],
  ["2025-03-26", { batches: true, annotations: true, structured: false }],
  ["2024-11-05", { batches: true, annotations: false, structured: false }],
]);

/**
 * What a version allows (an unknown version counts as the latest).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { versionFeatures } from "./_versions.ts";
 *
 * assert.equal(versionFeatures("2024-11-05").annotations, false);
 * assert.deepEqual(versionFeatures("2099-01-01"), versionFeatures("2025-11-25"));
 * ```
 */
export function versionFeatures(version: string): VersionFeatures {
  return FEATURES.get(version) ?? FEATURES.get(LATEST_PROTOCOL_VERSION)!;
}

/**
 * The version to answer `initialize` with: the client's if supported, else the latest.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LATEST_PROTOCOL_VERSION, negotiateVersion } from "./_versions.ts";
 *
 * assert.equal(negotiateVersion("2025-06-18"), "2025-06-18");
 * assert.equal(negotiateVersion("1999-01-01"), LATEST_PROTOCOL_VERSION);
 * assert.equal(negotiateVersion(undefined), LATEST_PROTOCOL_VERSION);
 * ```
 */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === "string" && FEATURES.has(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}
