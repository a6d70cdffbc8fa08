/**
 * The secrets guard of `@memo/memory`: the policy, the detectors (secretlint's recommended rules,
 * pinned, and memo's own additions), the guard every write goes through, and the scan of what is
 * already stored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findSecrets, redactMatches } from "@memo/memory";
 * const text = "deploy with GITHUB_TOKEN=ghp_Zr8vQ2mW4kT9xN1pLc7Hs3Bd5Gf0Jy6Ra2Ue";
 * assert.equal(redactMatches(text, await findSecrets(text)), "deploy with GITHUB_TOKEN=[redacted:github-token]");
 * ```
 *
 * @module
 */

export * from "./policy.ts";
export * from "./scan.ts";
export * from "./guard.ts";
export * from "./store_scan.ts";
export type { SecretScanResult } from "./memo_secrets.ts";
