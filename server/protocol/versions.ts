/**
 * MCP protocol versions and their eras: which ones memo speaks, how an `initialize` is negotiated,
 * and what each version allows (batches, annotations, structured results, the stateless protocol).
 *
 * - **Stateless** (2026-07-28): no handshake; every request carries its version and the client's
 *   capabilities in `_meta`.
 * - **Session** (2025-11-25 back to 2024-11-05): the `initialize` handshake.
 *
 * @module
 */

/** The stateless revision (no handshake). */
export const STATELESS_PROTOCOL_VERSION = "2026-07-28" as const;

/**
 * Protocol versions memo speaks, newest first: the stateless revision, then the session ones.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   LATEST_SESSION_PROTOCOL_VERSION,
 *   LATEST_PROTOCOL_VERSION,
 *   SUPPORTED_PROTOCOL_VERSIONS,
 * } from "@memo/mcp-server";
 *
 * assert.equal(SUPPORTED_PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
 * assert.equal(SUPPORTED_PROTOCOL_VERSIONS[1], LATEST_SESSION_PROTOCOL_VERSION);
 * assert.ok(SUPPORTED_PROTOCOL_VERSIONS.includes("2024-11-05"));
 * ```
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  STATELESS_PROTOCOL_VERSION,
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

/**
 * The newest version memo speaks: the stateless 2026-07-28.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LATEST_PROTOCOL_VERSION } from "@memo/mcp-server";
 *
 * assert.equal(LATEST_PROTOCOL_VERSION, "2026-07-28");
 * ```
 */
export const LATEST_PROTOCOL_VERSION: "2026-07-28" = STATELESS_PROTOCOL_VERSION;

/**
 * The newest version of the `initialize` handshake: what `initialize` answers when a client asks
 * for a version memo does not negotiate (2026-07-28 included, which has no handshake), and what a
 * stdio request without `initialize` and without `_meta` is served with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   LATEST_SESSION_PROTOCOL_VERSION,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = createMemoMcpProtocolServer({ runtime });
 * const reply = await server.handle(JSON.stringify({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "initialize",
 *   params: { protocolVersion: "2026-07-28", capabilities: {}, clientInfo: { name: "c", version: "1" } },
 * }));
 * assert.equal(JSON.parse(reply!).result.protocolVersion, LATEST_SESSION_PROTOCOL_VERSION);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const LATEST_SESSION_PROTOCOL_VERSION = "2025-11-25";

/**
 * @deprecated Use {@linkcode LATEST_SESSION_PROTOCOL_VERSION}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LATEST_LEGACY_PROTOCOL_VERSION, LATEST_SESSION_PROTOCOL_VERSION } from "./versions.ts";
 *
 * assert.equal(LATEST_LEGACY_PROTOCOL_VERSION, LATEST_SESSION_PROTOCOL_VERSION);
 * ```
 */
export const LATEST_LEGACY_PROTOCOL_VERSION: "2025-11-25" = LATEST_SESSION_PROTOCOL_VERSION;

/**
 * What a protocol version allows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type VersionFeatures, versionFeatures } from "./versions.ts";
 *
 * const features: VersionFeatures = versionFeatures("2025-03-26");
 * assert.deepEqual(features, { batches: true, annotations: true, structured: false, stateless: false });
 * ```
 */
export interface VersionFeatures {
  /** JSON-RPC batches (2025-03-26 and earlier). */
  batches: boolean;
  /** Tool annotations (2025-03-26 and later). */
  annotations: boolean;
  /** `outputSchema`, `structuredContent` and `title` (2025-06-18 and later). */
  structured: boolean;
  /**
   * The stateless protocol (2026-07-28): `_meta` on every request, `resultType`, cache hints and
   * `serverInfo` on every result, no handshake.
   */
  stateless: boolean;
}

const FEATURES = new Map<string, VersionFeatures>([
  [STATELESS_PROTOCOL_VERSION, {
    batches: false,
    annotations: true,
    structured: true,
    stateless: true,
  }],
  ["2025-11-25", { batches: false, annotations: true, structured: true, stateless: false }],
  ["2025-06-18", { batches: false, annotations: true, structured: true, stateless: false }],
  ["2025-03-26", { batches: true, annotations: true, structured: false, stateless: false }],
  ["2024-11-05", { batches: true, annotations: false, structured: false, stateless: false }],
]);

/**
 * What a version allows (an unknown version counts as the latest session version).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { versionFeatures } from "./versions.ts";
 *
 * assert.equal(versionFeatures("2024-11-05").annotations, false);
 * assert.equal(versionFeatures("2026-07-28").stateless, true);
 * assert.deepEqual(versionFeatures("2099-01-01"), versionFeatures("2025-11-25"));
 * ```
 */
export function versionFeatures(version: string): VersionFeatures {
  return FEATURES.get(version) ?? FEATURES.get(LATEST_SESSION_PROTOCOL_VERSION)!;
}

/**
 * Whether memo speaks `version`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSupportedVersion } from "./versions.ts";
 *
 * assert.ok(isSupportedVersion("2026-07-28"));
 * assert.ok(!isSupportedVersion("2025-01-01"));
 * ```
 */
export function isSupportedVersion(version: unknown): version is string {
  return typeof version === "string" && FEATURES.has(version);
}

/**
 * The version to answer `initialize` with: the client's if it is a session version memo speaks,
 * else the latest session version (an `initialize` that asks for 2026-07-28, which has no
 * handshake, included).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LATEST_SESSION_PROTOCOL_VERSION, negotiateVersion } from "./versions.ts";
 *
 * assert.equal(negotiateVersion("2025-06-18"), "2025-06-18");
 * assert.equal(negotiateVersion("2026-07-28"), LATEST_SESSION_PROTOCOL_VERSION);
 * assert.equal(negotiateVersion("1999-01-01"), LATEST_SESSION_PROTOCOL_VERSION);
 * assert.equal(negotiateVersion(undefined), LATEST_SESSION_PROTOCOL_VERSION);
 * ```
 */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === "string" && FEATURES.get(requested)?.stateless === false
    ? requested
    : LATEST_SESSION_PROTOCOL_VERSION;
}
