/**
 * Text a connector shows in its messages: pasted tokens cleaned, secrets
 * redacted, long upstream text clipped.
 *
 * @module
 */

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

/** Cuts a string to `max` characters, adding an ellipsis. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join("") + "…";
}
