/**
 * Text the CLI prints that may echo what it was given (an error's message, a skipped record's
 * reason), with what the secrets guard detects replaced by `[redacted:<rule>]`.
 *
 * @module
 */

/**
 * `text` with each detected secret replaced; the detector loads only for a text that may hold one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { maskSecrets } from "./mask.ts";
 *
 * assert.equal(
 *   await maskSecrets("Cannot find note ghp_ZK2vNTaIlzUaP8YUAZtvaJko1sGEultVpJkQ"),
 *   "Cannot find note [redacted:github-token]",
 * );
 * assert.equal(await maskSecrets("Cannot find note n1"), "Cannot find note n1");
 * ```
 */
export async function maskSecrets(text: string): Promise<string> {
  const { mayHoldSecret, findSecrets, redactMatches } = await import("@memo/memory");
  if (!mayHoldSecret(text)) return text;
  return redactMatches(text, await findSecrets(text));
}
