/**
 * Internal: API keys. Each key belongs to one workspace. A presented key is hashed and compared
 * with the digest of every configured key in constant time, so that neither the match nor its
 * position leaks through timing. Keys are never echoed: errors name a pair by its position.
 *
 * @module
 */

import { createHash, timingSafeEqual } from "node:crypto";
import { NOTE_ID_PATTERN } from "@memo/memory";

/**
 * Workspace and project ids: `[0-9a-z][0-9a-z_-]*`, at most 64 characters (the note id pattern).
 */
export const CLOUD_ID_PATTERN: RegExp = NOTE_ID_PATTERN;

/** Describes {@linkcode CLOUD_ID_PATTERN} in errors. */
export const CLOUD_ID_RULE =
  "1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or a digit";

/** An API key and the workspace it opens. */
export interface ApiKeyEntry {
  /** The secret. Visible ASCII, no comma. */
  key: string;
  /** The workspace the key opens. */
  workspaceId: string;
}

/** Who a request is. */
export interface Caller {
  /** The key's workspace. */
  workspaceId: string;
  /** Position of the key in the table. */
  keyIndex: number;
  /**
   * Names the key in the shared rate limit without the secret: a SHA-256 of it (with a prefix of
   * memo's own), 32 hex digits.
   */
  rateKey: string;
}

const KEY_PATTERN = /^[\x21-\x2b\x2d-\x7e]+$/;

function digest(text: string): Uint8Array {
  return createHash("sha256").update(text, "utf8").digest();
}

/** The configured keys. */
export class ApiKeyTable {
  readonly #digests: Uint8Array[] = [];
  readonly #workspaces: string[] = [];
  readonly #secrets: string[] = [];
  readonly #rateKeys: string[] = [];

  /**
   * Builds the table from `key → workspace` pairs. Throws, without echoing the key, for an empty
   * table, a malformed key, a bad workspace id or a key given twice.
   */
  constructor(keys: ReadonlyMap<string, string> | readonly ApiKeyEntry[]) {
    const entries: ApiKeyEntry[] = keys instanceof Map
      ? [...keys].map(([key, workspaceId]) => ({ key, workspaceId }))
      : [...(keys as readonly ApiKeyEntry[])];
    if (entries.length === 0) {
      throw new Error("Cannot start the cloud API: no API key is configured");
    }
    entries.forEach(({ key, workspaceId }, i) => {
      if (typeof key !== "string" || !KEY_PATTERN.test(key)) {
        throw new Error(
          `Cannot use API key ${i + 1}: a key is visible ASCII characters without commas`,
        );
      }
      if (typeof workspaceId !== "string" || !CLOUD_ID_PATTERN.test(workspaceId)) {
        throw new Error(
          `Cannot use API key ${i + 1}: its workspace id must be ${CLOUD_ID_RULE}`,
        );
      }
      const hash = digest(key);
      const twin = this.#digests.findIndex((d) => timingSafeEqual(d, hash));
      if (twin >= 0) {
        throw new Error(`Cannot use API key ${i + 1}: it repeats key ${twin + 1}`);
      }
      this.#digests.push(hash);
      this.#workspaces.push(workspaceId);
      this.#secrets.push(key);
      this.#rateKeys.push(rateKeyOf(key));
    });
  }

  /**
   * The caller an `Authorization` header names, or `undefined` when it is missing, not `Bearer` or
   * holds no configured key. Every configured key is compared, in constant time, whatever the
   * outcome.
   */
  authenticate(authorization: string | null): Caller | undefined {
    const match = authorization === null ? null : /^Bearer +(\S+) *$/i.exec(authorization);
    // A missing header is hashed too, so that the work done does not depend on it.
    const presented = digest(match ? match[1] : "");
    let found = -1;
    for (let i = 0; i < this.#digests.length; i++) {
      const equal = timingSafeEqual(this.#digests[i], presented);
      found = equal && found < 0 ? i : found;
    }
    if (!match || found < 0) return undefined;
    return {
      workspaceId: this.#workspaces[found],
      keyIndex: found,
      rateKey: this.#rateKeys[found],
    };
  }

  /** Whether `key` is one of the table's keys (compared in constant time). */
  knows(key: string): boolean {
    const presented = digest(key);
    let found = false;
    for (const d of this.#digests) found = timingSafeEqual(d, presented) || found;
    return found;
  }

  /** `text` with every configured key replaced by `[redacted]`. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join("[redacted]");
    }
    return out;
  }
}

/** The rate limit's name of a key: see {@linkcode Caller.rateKey}. */
function rateKeyOf(key: string): string {
  return createHash("sha256").update(`memo-cloud-rate-limit\0${key}`, "utf8").digest("hex")
    .slice(0, 32);
}

/**
 * The operator keys (`MEMO_CLOUD_OPERATOR_KEYS`): they read `GET /v1/stats` and nothing else. None
 * may also be a workspace key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ApiKeyTable, OperatorKeyTable } from "./_auth.ts";
 *
 * const api = new ApiKeyTable([{ key: "k-team", workspaceId: "team" }]);
 * const operators = new OperatorKeyTable(["op-1"], api);
 * assert.equal(operators.authenticate("Bearer op-1"), true);
 * assert.equal(operators.authenticate("Bearer k-team"), false);
 * assert.throws(() => new OperatorKeyTable(["k-team"], api), /also an API key/);
 * ```
 */
export class OperatorKeyTable {
  readonly #digests: Uint8Array[] = [];
  readonly #secrets: string[] = [];

  /** Builds the table; throws, without echoing a key, for a malformed or shared one. */
  constructor(keys: readonly string[], apiKeys?: ApiKeyTable) {
    keys.forEach((key, i) => {
      if (typeof key !== "string" || !KEY_PATTERN.test(key)) {
        throw new Error(
          `Cannot use operator key ${i + 1}: a key is visible ASCII characters without commas`,
        );
      }
      if (apiKeys?.knows(key)) {
        throw new Error(`Cannot use operator key ${i + 1}: it is also an API key`);
      }
      const hash = digest(key);
      if (this.#digests.some((d) => timingSafeEqual(d, hash))) {
        throw new Error(`Cannot use operator key ${i + 1}: it is given twice`);
      }
      this.#digests.push(hash);
      this.#secrets.push(key);
    });
  }

  /** Number of operator keys. */
  get size(): number {
    return this.#digests.length;
  }

  /** Whether the `Authorization` header holds an operator key (every key compared). */
  authenticate(authorization: string | null): boolean {
    const match = authorization === null ? null : /^Bearer +(\S+) *$/i.exec(authorization);
    const presented = digest(match ? match[1] : "");
    let found = false;
    for (const d of this.#digests) found = timingSafeEqual(d, presented) || found;
    return match !== null && found;
  }

  /** `text` with every operator key replaced by `[redacted]`. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join("[redacted]");
    }
    return out;
  }
}
