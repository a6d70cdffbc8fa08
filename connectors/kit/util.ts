/**
 * Internal helpers shared by the connectors: token clean-up, secret
 * redaction, time comparison and cursor bookkeeping.
 *
 * @module
 */

import { ConnectorConfigError } from "../errors.ts";

/** Pattern of a connector id. */
export const CONNECTOR_ID_PATTERN: RegExp = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Checks a connector id; throws `ConnectorConfigError` when it does not match the pattern. */
export function checkConnectorId(id: unknown): string {
  if (typeof id !== "string" || !CONNECTOR_ID_PATTERN.test(id)) {
    throw new ConnectorConfigError(
      "Cannot create connector: id must be 1 to 64 letters, digits, '.', '_' or '-'",
    );
  }
  return id;
}

/**
 * Trims a token and drops a pasted `Bearer ` (or `token `) prefix. Returns
 * undefined for an empty token.
 */
export function cleanToken(token: string | undefined): string | undefined {
  if (typeof token !== "string") return undefined;
  const t = token.trim().replace(/^(bearer|token)\s+/i, "").trim();
  return t === "" ? undefined : t;
}

/** Replaces every occurrence of each secret (4 characters or more) with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (typeof s === "string" && s.length >= 4) out = out.split(s).join("[redacted]");
  }
  return out;
}

/** Milliseconds of an ISO time, or NaN. */
export function timeOf(iso: string | undefined): number {
  return iso === undefined ? NaN : Date.parse(iso);
}

/** True when `iso` is strictly before `since` (false when either is not a time). */
export function isBefore(iso: string, since: string | undefined): boolean {
  const a = timeOf(iso);
  const b = timeOf(since);
  return Number.isFinite(a) && Number.isFinite(b) && a < b;
}

/** Cuts a string to `max` characters, adding an ellipsis. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join("") + "…";
}

/**
 * Tracks the cursors of one listing. `next()` returns the cursor to ask for
 * next, or throws (through `fail`) when the upstream promised more without a
 * cursor, or handed back a cursor it had already given.
 */
export class CursorTrail {
  #seen = new Set<string>();
  #fail: (reason: string) => Error;
  constructor(fail: (reason: string) => Error) {
    this.#fail = fail;
  }

  /** The cursor of the next page, or undefined when the listing is complete. */
  next(hasMore: boolean, cursor: unknown): string | undefined {
    if (!hasMore) return undefined;
    if (typeof cursor !== "string" || cursor === "") {
      throw this.#fail("the API said there are more results but gave no cursor");
    }
    if (this.#seen.has(cursor)) {
      throw this.#fail("the API repeated a paging cursor, so the listing would never end");
    }
    this.#seen.add(cursor);
    return cursor;
  }
}
