/**
 * Internal: the secrets guard on the Cloud API's write routes (`MEMO_CLOUD_SECRETS`, `redact` by
 * default), so that a client that skips its own guard is still caught. `redact` stores
 * `[redacted:<rule-id>]` and answers `redacted: [{rule, field, index?}]`; `refuse` answers 400
 * `invalid_request` naming the rule ids (`details.secrets`), never the values. The guard runs
 * inside the idempotent write, so what an `Idempotency-Key` keeps for a replay is the answer
 * after redaction.
 *
 * @module
 */

import {
  guardDrafts,
  guardPatch,
  type NoteDraft,
  type NotePatch,
  type SecretRedaction,
  type SecretsPolicy,
} from "@memo/memory";
import { CloudApiError } from "./errors.ts";

function refusal(e: unknown): unknown {
  if ((e as { code?: unknown } | null)?.code !== "SECRETS_REFUSED") return e;
  return new CloudApiError("invalid_request", (e as Error).message, {
    details: { secrets: (e as { secrets?: unknown }).secrets },
  });
}

/**
 * Runs the guard over a write's drafts by `policy`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { guardCloudDrafts } from "./_secrets.ts";
 * const out = await guardCloudDrafts([{ text: "glpat-Zr8vQ2mW4kT9xN1pLc7H" }], "redact", "create the note");
 * assert.equal(out.drafts[0].text, "[redacted:gitlab-token]");
 * await assert.rejects(
 *   guardCloudDrafts([{ text: "glpat-Zr8vQ2mW4kT9xN1pLc7H" }], "refuse", "create the note"),
 *   { code: "invalid_request" },
 * );
 * ```
 */
export async function guardCloudDrafts<D extends NoteDraft>(
  drafts: readonly D[],
  policy: SecretsPolicy,
  action: string,
): Promise<{ drafts: D[]; redacted: SecretRedaction[] }> {
  try {
    const out = await guardDrafts(drafts, policy, action);
    return { drafts: out.drafts as D[], redacted: out.redacted };
  } catch (e) {
    throw refusal(e);
  }
}

/** As {@linkcode guardCloudDrafts}, for a patch. */
export async function guardCloudPatch<P extends NotePatch>(
  patch: P,
  policy: SecretsPolicy,
): Promise<{ patch: P; redacted: SecretRedaction[] }> {
  try {
    const out = await guardPatch(patch, policy, "update the note");
    return { patch: out.patch as P, redacted: out.redacted };
  } catch (e) {
    throw refusal(e);
  }
}
