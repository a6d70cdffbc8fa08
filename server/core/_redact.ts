/**
 * Redaction of tool arguments: secret-named keys are always masked, then the
 * user's `redact` runs. Any string the redaction removed or replaced is a
 * secret, and is masked wherever it would show up in an error or a log.
 *
 * @module
 */

import type { SafeError } from "../errors.ts";
import { isSecretKey, safeDetails } from "../scrub.ts";

const MASK = "[REDACTED]";

/**
 * A deep copy of `value` with the values of secret-named keys masked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { maskSecretKeys } from "./_redact.ts";
 *
 * assert.deepEqual(maskSecretKeys({ query: "deploy", auth: { apiKey: "k-123" } }), {
 *   query: "deploy",
 *   auth: { apiKey: "[REDACTED]" },
 * });
 * ```
 */
export function maskSecretKeys(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth > 32) return MASK;
  if (Array.isArray(value)) return value.map((v) => maskSecretKeys(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretKey(k) ? MASK : maskSecretKeys(v, depth + 1);
  }
  return out;
}

function strings(value: unknown, into: Set<string>, depth = 0): Set<string> {
  if (typeof value === "string") into.add(value);
  else if (value !== null && typeof value === "object" && depth <= 32) {
    for (const v of Array.isArray(value) ? value : Object.values(value)) {
      strings(v, into, depth + 1);
    }
  }
  return into;
}

/**
 * The redaction of one call's arguments, computed on first use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Redaction } from "./_redact.ts";
 *
 * // The user's redact drops `text`; it is then a secret wherever it shows up.
 * const redaction = new Redaction(
 *   { text: "the door code is 4711", token: "s3cret" },
 *   (args) => ({ ...(args as object), text: undefined }),
 * );
 * assert.deepEqual(redaction.args, { text: undefined, token: "[REDACTED]" });
 * assert.equal(
 *   redaction.scrub("Cannot store the door code is 4711"),
 *   "Cannot store [REDACTED]",
 * );
 * ```
 */
export class Redaction {
  #raw: unknown;
  #redact: ((args: unknown) => unknown) | undefined;
  #args: unknown;
  #secrets: string[] | undefined;

  constructor(raw: unknown, redact: ((args: unknown) => unknown) | undefined) {
    this.#raw = raw;
    this.#redact = redact;
  }

  /** The arguments after masking and `redact`. */
  get args(): unknown {
    this.#compute();
    return this.#args;
  }

  #compute(): void {
    if (this.#secrets !== undefined) return;
    let args: unknown = maskSecretKeys(this.#raw);
    let failed = false;
    if (this.#redact) {
      try {
        args = this.#redact(args);
      } catch {
        args = MASK;
        failed = true;
      }
    }
    this.#args = args;
    const kept = strings(args, new Set());
    const secrets: string[] = [];
    for (const s of strings(this.#raw, new Set())) {
      if ((failed || !kept.has(s)) && s.length >= 3) secrets.push(s);
    }
    // Longest first, so that a secret containing another is masked whole.
    this.#secrets = secrets.sort((a, b) => b.length - a.length);
  }

  /** `text` with every secret masked. */
  scrub(text: string): string {
    this.#compute();
    let out = text;
    for (const s of this.#secrets!) {
      if (out.includes(s)) out = out.split(s).join(MASK);
    }
    return out;
  }

  #scrubDeep(value: unknown): unknown {
    if (typeof value === "string") return this.scrub(value);
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((v) => this.#scrubDeep(v));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[this.scrub(k)] = this.#scrubDeep(v);
    return out;
  }

  /** A safe error with every secret masked in its message and details. */
  scrubError(error: SafeError): SafeError {
    this.#compute();
    if (!this.#secrets!.length) return error;
    const out: SafeError = { ...error, message: this.scrub(error.message) };
    if (error.details !== undefined) {
      out.details = this.#scrubDeep(safeDetails(error.details)) as Record<string, unknown>;
    }
    return out;
  }
}
