/**
 * MCP protocol versions: which ones memo speaks, how a version is negotiated,
 * and what each one allows (batches, annotations, structured results).
 *
 * @module
 */

/** Protocol versions memo speaks, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

/** The newest version, answered when a client asks for one memo does not know. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";

/** What a protocol version allows. */
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

/** What a version allows (an unknown version counts as the latest). */
export function versionFeatures(version: string): VersionFeatures {
  return FEATURES.get(version) ?? FEATURES.get(LATEST_PROTOCOL_VERSION)!;
}

/** The version to answer `initialize` with: the client's if supported, else the latest. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === "string" && FEATURES.has(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}
