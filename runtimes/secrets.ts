/**
 * Internal: the secrets guard in the runtimes. The local and hybrid runtimes get it from their
 * `Memo` client; the cloud runtime runs it here, on this side, before anything is queued or sent,
 * and scans what the cloud holds through `list` and `update`. A refusal becomes
 * `INVALID_INPUT` (a tool error with `MCP_VALIDATION_ERROR`), naming rule ids, never values.
 *
 * @module
 */

import type {
  Note,
  NoteDraft,
  SecretFinding,
  SecretRedaction,
  SecretScanResult,
  SecretsPolicy,
} from "@memo/memory";
import { MemoRuntimeError } from "./errors.ts";
import type { RuntimeNotePatch } from "./types.ts";

/**
 * The runtime error of a write the guard refused (`SECRETS_REFUSED`): `INVALID_INPUT`, with
 * `details.secrets` (`{rule, field, index?}`); undefined for any other error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SecretsRefusedError } from "@memo/memory";
 * import { secretsRefusal } from "./secrets.ts";
 * const e = secretsRefusal(new SecretsRefusedError("remember", [{ rule: "jwt", field: "text" }]));
 * assert.equal(e?.code, "INVALID_INPUT");
 * assert.deepEqual(e?.details, { secrets: [{ rule: "jwt", field: "text" }] });
 * assert.equal(secretsRefusal(new Error("disk full")), undefined);
 * ```
 */
export function secretsRefusal(error: unknown): MemoRuntimeError | undefined {
  if ((error as { code?: unknown } | null)?.code !== "SECRETS_REFUSED") return undefined;
  return new MemoRuntimeError("INVALID_INPUT", (error as Error).message, {
    cause: error,
    details: { secrets: (error as { secrets?: unknown }).secrets },
  });
}

/**
 * The `redacted` list of a Cloud API answer (what the server's own guard replaced), keeping only
 * well-formed `{rule, field, index?}` entries; undefined when there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactedOf } from "./secrets.ts";
 * assert.deepEqual(redactedOf([{ rule: "jwt", field: "text" }, { rule: 1 }]), [{ rule: "jwt", field: "text" }]);
 * assert.equal(redactedOf(undefined), undefined);
 * ```
 */
export function redactedOf(value: unknown): SecretRedaction[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const fields = ["title", "text", "labels", "source"];
  const out: SecretRedaction[] = [];
  for (const r of value) {
    if (!r || typeof r.rule !== "string" || !fields.includes(r.field)) continue;
    const entry: SecretRedaction = { rule: r.rule.slice(0, 64), field: r.field };
    if (Number.isSafeInteger(r.index) && r.index >= 0) entry.index = r.index;
    out.push(entry);
  }
  return out.length ? out : undefined;
}

/** The guard, loaded with the memory package at the first write that needs it. */
async function guard() {
  const { guardDrafts, guardPatch } = await import("@memo/memory");
  return { guardDrafts, guardPatch };
}

/**
 * Runs the guard over drafts on the client side (the cloud runtime), mapping a refusal to
 * `INVALID_INPUT`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { guardForCloud } from "./secrets.ts";
 * const { drafts, redacted } = await guardForCloud([{ text: "glpat-Zr8vQ2mW4kT9xN1pLc7H" }], "redact", "remember");
 * assert.equal(drafts[0].text, "[redacted:gitlab-token]");
 * assert.deepEqual(redacted, [{ rule: "gitlab-token", field: "text" }]);
 * await assert.rejects(guardForCloud([{ text: "glpat-Zr8vQ2mW4kT9xN1pLc7H" }], "refuse", "remember"), { code: "INVALID_INPUT" });
 * ```
 */
export async function guardForCloud<D extends NoteDraft>(
  drafts: readonly D[],
  policy: SecretsPolicy,
  action: string,
): Promise<{ drafts: D[]; redacted: SecretRedaction[] }> {
  if (policy === "allow") return { drafts: [...drafts], redacted: [] };
  try {
    const out = await (await guard()).guardDrafts(drafts, policy, action);
    return { drafts: out.drafts as D[], redacted: out.redacted };
  } catch (e) {
    throw secretsRefusal(e) ?? e;
  }
}

/** As {@linkcode guardForCloud}, for a patch. */
export async function guardPatchForCloud(
  patch: RuntimeNotePatch,
  policy: SecretsPolicy,
): Promise<{ patch: RuntimeNotePatch; redacted: SecretRedaction[] }> {
  if (policy === "allow") return { patch, redacted: [] };
  try {
    const out = await (await guard()).guardPatch(patch, policy, "update note");
    return { patch: out.patch as RuntimeNotePatch, redacted: out.redacted };
  } catch (e) {
    throw secretsRefusal(e) ?? e;
  }
}

/**
 * `memo scan` through a runtime's `list` and `update` (the cloud runtime): every note is read
 * page by page; with `redact`, each note holding a secret in its title, text or labels is
 * patched (one request per note: a source key cannot be patched, and is only reported).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scanThroughPages } from "./secrets.ts";
 * const note = { id: "a", title: "t", body: "glpat-Zr8vQ2mW4kT9xN1pLc7H", labels: [], hash: "", created: "", updated: "" };
 * const patched: string[] = [];
 * const result = await scanThroughPages(
 *   async () => ({ notes: [note] }),
 *   async (id, patch) => void patched.push(`${id}:${patch.text}`),
 *   true,
 * );
 * assert.deepEqual(result.findings, [{ id: "a", rule: "gitlab-token", field: "text", line: 1 }]);
 * assert.deepEqual(patched, ["a:[redacted:gitlab-token]"]);
 * ```
 */
export async function scanThroughPages(
  page: (cursor: string | undefined) => Promise<{ notes: Note[]; nextCursor?: string }>,
  update: (id: string, patch: RuntimeNotePatch) => Promise<unknown>,
  redact: boolean,
): Promise<SecretScanResult> {
  const { findStoredSecrets, redactStoredNote } = await import("@memo/memory");
  const findings: SecretFinding[] = [];
  const redacted: string[] = [];
  const unredacted: SecretFinding[] = [];
  let notes = 0;
  let cursor: string | undefined;
  do {
    const got = await page(cursor);
    notes += got.notes.length;
    for (const note of got.notes) {
      const found = await findStoredSecrets([note]);
      if (!found.length) continue;
      findings.push(...found);
      if (!redact) continue;
      // A patch changes title, text and labels, never the source (the note's identity).
      unredacted.push(...found.filter((f) => f.field === "source"));
      const clean = await redactStoredNote(note, new Date());
      if (
        !clean || (clean.title === note.title && clean.body === note.body &&
          clean.labels.join("\n") === note.labels.join("\n"))
      ) continue;
      await update(note.id, { title: clean.title, text: clean.body, labels: clean.labels });
      redacted.push(note.id);
    }
    cursor = got.nextCursor;
  } while (cursor);
  return { notes, findings, redacted, ...(unredacted.length ? { unredacted } : {}) };
}

/**
 * `value` (tool arguments, say) with every secret in its strings replaced by
 * `[redacted:<rule-id>]`, whatever the policy: what a log line may show. Objects and arrays are
 * copied (to a depth of 32); other values are returned as they are.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scrubSecrets } from "./secrets.ts";
 * assert.deepEqual(
 *   await scrubSecrets({ text: "token glpat-Zr8vQ2mW4kT9xN1pLc7H", labels: ["ops"] }),
 *   { text: "token [redacted:gitlab-token]", labels: ["ops"] },
 * );
 * ```
 */
export async function scrubSecrets(value: unknown, depth = 0): Promise<unknown> {
  if (typeof value === "string") {
    const { findSecrets, mayHoldSecret, redactMatches } = await import("@memo/memory");
    return mayHoldSecret(value) ? redactMatches(value, await findSecrets(value)) : value;
  }
  if (value === null || typeof value !== "object" || depth > 32) return value;
  if (Array.isArray(value)) return await Promise.all(value.map((v) => scrubSecrets(v, depth + 1)));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = await scrubSecrets(v, depth + 1);
  return out;
}
