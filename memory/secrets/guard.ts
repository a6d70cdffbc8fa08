/**
 * The guard every write goes through: it checks a draft's or a patch's title, text, labels and
 * source, and, by the policy, redacts each secret (`[redacted:<rule-id>]`), refuses the write
 * ({@linkcode SecretsRefusedError}), or lets it be (`allow`). It never returns or throws a
 * detected value: only rule ids and field names.
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";
import type { NoteDraft, NotePatch } from "../notes/note.ts";
import type { SecretsPolicy } from "./policy.ts";
import { findSecrets, mayHoldSecret, redactMatches } from "./scan.ts";

/**
 * The fields of a note the guard checks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SecretField } from "@memo/memory";
 * const field: SecretField = "text";
 * assert.equal(field, "text");
 * ```
 */
export type SecretField = "title" | "text" | "labels" | "source";

/**
 * One redaction (or, under `refuse`, one reason for the refusal): a rule id and the field it was
 * found in, never the value. A batch's entries also carry the draft's `index`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo, type SecretRedaction } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { redacted } = await memo.remember({ text: "npm token npm_Zr8vQ2mW4kT9xN1pLc7Hs3Bd5Gf0Jy6Ra2Ue" });
 * const expected: SecretRedaction[] = [{ rule: "npm-token", field: "text" }];
 * assert.deepEqual(redacted, expected);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface SecretRedaction {
  /** memo's rule id (`github-token`, `aws-access-key`, …). */
  rule: string;
  /** Where it was found. */
  field: SecretField;
  /** In a batch, the draft's position (0-based). */
  index?: number;
}

/**
 * A write refused under the `refuse` policy: its message names the rule ids and fields, never
 * the values, and nothing was written. `code` is `SECRETS_REFUSED`; `details.secrets` lists
 * `{rule, field, index?}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryValidationError, SecretsRefusedError } from "@memo/memory";
 * const e = new SecretsRefusedError("remember", [{ rule: "github-token", field: "text" }]);
 * assert.equal(e.message, "Cannot remember: the note holds a secret (github-token in text); nothing was written");
 * assert.equal(e.code, "SECRETS_REFUSED");
 * assert.ok(e instanceof MemoryValidationError);
 * ```
 */
export class SecretsRefusedError extends MemoryValidationError {
  /** Always `"SECRETS_REFUSED"`. */
  override readonly code: string = "SECRETS_REFUSED";
  /** What was found: rule ids and fields. */
  readonly secrets: SecretRedaction[];
  /** Creates the error for `action` ("remember", "update note") and what was found. */
  constructor(action: string, secrets: SecretRedaction[]) {
    super(`Cannot ${action}: ${describeSecrets(secrets)}; nothing was written`, {
      details: { secrets },
    });
    this.name = "SecretsRefusedError";
    this.secrets = secrets;
  }
}

/**
 * What was found, in words, without values: "the note holds a secret (github-token in text)", or,
 * in a batch, "note 3 of the batch holds secrets (jwt in text, npm-token in labels)".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeSecrets } from "@memo/memory";
 * assert.equal(
 *   describeSecrets([{ rule: "jwt", field: "text", index: 2 }, { rule: "npm-token", field: "labels", index: 2 }]),
 *   "note 3 of the batch holds secrets (jwt in text, npm-token in labels)",
 * );
 * ```
 */
export function describeSecrets(secrets: readonly SecretRedaction[]): string {
  if (!secrets.length) return "no secret found";
  const byNote = new Map<number | undefined, SecretRedaction[]>();
  for (const s of secrets) byNote.set(s.index, [...(byNote.get(s.index) ?? []), s]);
  const one = (list: SecretRedaction[]) => {
    const fields = new Set(list.map((s) => s.field));
    const rules = [...new Set(list.map((s) => s.rule))];
    if (fields.size === 1) return `${rules.join(", ")} in ${list[0].field}`;
    return [...new Set(list.map((s) => `${s.rule} in ${s.field}`))].join(", ");
  };
  const plural = (list: SecretRedaction[]) => list.length > 1 ? "secrets" : "a secret";
  if (byNote.size === 1) {
    const [index, list] = [...byNote][0];
    const where = index === undefined ? "the note" : `note ${index + 1} of the batch`;
    return `${where} holds ${plural(list)} (${one(list)})`;
  }
  const shown = [...byNote].slice(0, 5).map(([i, list]) => `note ${i! + 1}: ${one(list)}`);
  const more = byNote.size > 5 ? "; …" : "";
  return `${byNote.size} notes of the batch hold secrets (${shown.join("; ")}${more})`;
}

/** One field's value, redacted, and what it held. */
async function guardValue(
  value: string,
  field: SecretField,
  index: number | undefined,
  found: SecretRedaction[],
): Promise<string> {
  const matches = await findSecrets(value);
  if (!matches.length) return value;
  const seen = new Set<string>();
  for (const m of matches) {
    if (seen.has(m.rule)) continue;
    seen.add(m.rule);
    if (!found.some((f) => f.rule === m.rule && f.field === field && f.index === index)) {
      found.push(index === undefined ? { rule: m.rule, field } : { rule: m.rule, field, index });
    }
  }
  return redactMatches(value, matches);
}

type Fields = { text?: string; title?: string; labels?: readonly string[]; source?: string };

/**
 * Whether any field may hold a secret (the prefilter, once over the fields joined by line
 * breaks, which no anchor spans): the common case is no.
 */
function candidate(d: Fields): boolean {
  let all = typeof d.text === "string" ? d.text : "";
  if (typeof d.title === "string") all += "\n" + d.title;
  if (typeof d.source === "string") all += "\n" + d.source;
  if (Array.isArray(d.labels)) {
    for (const l of d.labels) if (typeof l === "string") all += "\n" + l;
  }
  return mayHoldSecret(all);
}

async function guardFields<T extends Fields>(
  d: T,
  index: number | undefined,
  found: SecretRedaction[],
): Promise<T> {
  const out: T = { ...d };
  if (typeof d.title === "string") out.title = await guardValue(d.title, "title", index, found);
  if (typeof d.text === "string") out.text = await guardValue(d.text, "text", index, found);
  if (Array.isArray(d.labels)) {
    const labels: string[] = [];
    for (const l of d.labels) {
      labels.push(typeof l === "string" ? await guardValue(l, "labels", index, found) : l);
    }
    out.labels = labels;
  }
  if (typeof d.source === "string") out.source = await guardValue(d.source, "source", index, found);
  return out;
}

/**
 * What the guard made of a batch: the drafts to write (redacted, or the same objects when
 * nothing was found) and what was redacted, with each draft's index.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { guardDrafts, type GuardedDrafts } from "@memo/memory";
 * const guarded: GuardedDrafts = await guardDrafts([{ text: "plain" }], "redact", "remember");
 * assert.deepEqual(guarded.redacted, []);
 * ```
 */
export interface GuardedDrafts {
  /** The drafts to write. */
  drafts: NoteDraft[];
  /** What was redacted: rule, field and the draft's index. */
  redacted: SecretRedaction[];
}

/**
 * Runs the guard over a batch of drafts (title, text, labels, source) by `policy`: `redact`
 * gives drafts with each secret replaced by `[redacted:<rule-id>]`; `refuse` throws
 * {@linkcode SecretsRefusedError} when any draft holds one (the whole batch is refused);
 * `allow` returns the drafts as they are. `action` names the write in messages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { guardDrafts, SecretsRefusedError } from "@memo/memory";
 * const drafts = [
 *   { text: "Deploys run with make deploy" },
 *   { text: "CI token: glpat-Zr8vQ2mW4kT9xN1pLc7H", labels: ["ci"] },
 * ];
 * const { drafts: out, redacted } = await guardDrafts(drafts, "redact", "import");
 * assert.equal(out[0], drafts[0]); // untouched
 * assert.equal(out[1].text, "CI token: [redacted:gitlab-token]");
 * assert.deepEqual(redacted, [{ rule: "gitlab-token", field: "text", index: 1 }]);
 * await assert.rejects(guardDrafts(drafts, "refuse", "import"), SecretsRefusedError);
 * assert.equal((await guardDrafts(drafts, "allow", "import")).drafts[1], drafts[1]);
 * ```
 */
export async function guardDrafts(
  drafts: readonly NoteDraft[],
  policy: SecretsPolicy,
  action: string,
): Promise<GuardedDrafts> {
  if (policy === "allow" || !Array.isArray(drafts)) {
    return { drafts: [...(drafts ?? [])], redacted: [] };
  }
  const batch = drafts.length > 1;
  const redacted: SecretRedaction[] = [];
  const out: NoteDraft[] = [];
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i];
    if (!d || typeof d !== "object" || !candidate(d)) {
      out.push(d);
      continue;
    }
    const before = redacted.length;
    const guarded = await guardFields(d, batch ? i : undefined, redacted);
    out.push(redacted.length > before ? guarded : d);
  }
  if (redacted.length && policy === "refuse") throw new SecretsRefusedError(action, redacted);
  return { drafts: out, redacted };
}

/**
 * Runs the guard over a patch (title, text, labels) by `policy`, as {@linkcode guardDrafts}
 * does for drafts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { guardPatch } from "@memo/memory";
 * const { patch, redacted } = await guardPatch(
 *   { title: "Slack", text: "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy" },
 *   "redact",
 *   "update note",
 * );
 * assert.equal(patch.text, "[redacted:slack-token]");
 * assert.deepEqual(redacted, [{ rule: "slack-token", field: "text" }]);
 * ```
 */
export async function guardPatch(
  patch: NotePatch,
  policy: SecretsPolicy,
  action: string,
): Promise<{ patch: NotePatch; redacted: SecretRedaction[] }> {
  if (policy === "allow" || !patch || typeof patch !== "object" || !candidate(patch)) {
    return { patch, redacted: [] };
  }
  const redacted: SecretRedaction[] = [];
  const guarded = await guardFields(patch, undefined, redacted);
  if (redacted.length && policy === "refuse") throw new SecretsRefusedError(action, redacted);
  return { patch: redacted.length ? guarded : patch, redacted };
}
