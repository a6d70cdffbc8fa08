/**
 * Output helpers of the CLI: one JSON document with `--json`, text for humans otherwise, and the
 * one-line error format `memo: <message>`.
 *
 * @module
 */

import type { Note, RecallHit, ReplicaStatus } from "@memo/memory";

/**
 * Serialises a value as the single JSON document `--json` prints.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonDocument } from "./output.ts";
 *
 * assert.equal(jsonDocument({ ok: true }), '{\n  "ok": true\n}\n');
 * ```
 */
export function jsonDocument(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/**
 * A writer that keeps the order of its texts however they are called, and never rejects (a failed
 * write is dropped): for a server's log lines, which request handlers write without waiting.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { orderedWriter } from "./output.ts";
 *
 * const out: string[] = [];
 * const print = orderedWriter(async (text) => {
 *   await new Promise((r) => setTimeout(r, text === "a" ? 10 : 0));
 *   out.push(text);
 * });
 * void print("a");
 * await print("b");
 * assert.deepEqual(out, ["a", "b"]);
 * ```
 */
export function orderedWriter(
  write: (text: string) => Promise<void>,
): (text: string) => Promise<void> {
  let written = Promise.resolve();
  return (text) => {
    written = written.then(() => write(text)).catch(() => {});
    return written;
  };
}

/**
 * Formats one error line: `memo: <message>` with line breaks flattened.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorLine } from "./output.ts";
 *
 * assert.equal(
 *   errorLine("Cannot read notes.md:\n  disk gone"),
 *   "memo: Cannot read notes.md: disk gone\n",
 * );
 * ```
 */
export function errorLine(message: string): string {
  return `memo: ${message.replace(/\s*\r?\n\s*/g, " ").trim()}\n`;
}

/**
 * One line per note: id, title and labels.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatNoteLine } from "./output.ts";
 *
 * const note = {
 *   id: "01jq3v7k9x0000000000",
 *   title: "Deploys",
 *   body: "Run make deploy.",
 *   labels: ["infra"],
 *   hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z",
 *   updated: "2025-01-02T00:00:00.000Z",
 * };
 * assert.equal(formatNoteLine(note), "01jq3v7k9x0000000000  Deploys [infra]");
 * assert.equal(
 *   formatNoteLine({ ...note, supersededBy: ["n2"] }),
 *   "01jq3v7k9x0000000000  Deploys [infra]  (superseded by n2)",
 * );
 * ```
 */
export function formatNoteLine(note: Note): string {
  const labels = note.labels.length ? ` [${note.labels.join(", ")}]` : "";
  const scope = note.scope && note.scope !== "project" ? `  (${note.scope})` : "";
  return `${note.id}  ${note.title}${labels}${scope}${supersededLabel(note)}`;
}

/** `  (superseded by n2)` for a superseded note, else nothing. */
function supersededLabel(note: Note): string {
  return note.supersededBy?.length ? `  (superseded by ${note.supersededBy.join(", ")})` : "";
}

/**
 * Recall hits for humans: rank, score, title, id, matched terms and a snippet; a hit from the cloud
 * (hybrid runtime, `recall.includeCloud`) says so, and with `explain` a hit shows its term
 * contributions and its lexical, vector and fused parts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatHits } from "./output.ts";
 *
 * const note = {
 *   id: "01jq3v7k9x0000000000",
 *   title: "Deploys",
 *   body: "Run make deploy.",
 *   labels: ["infra"],
 *   hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z",
 *   updated: "2025-01-02T00:00:00.000Z",
 * };
 * const hits = [{ note, score: 0.5, engine: "lexical" as const, matched: ["deploy"] }];
 * assert.equal(
 *   formatHits(hits),
 *   "1. Deploys  (01jq3v7k9x0000000000, score 0.500)  matched: deploy\n   Run make deploy.\n",
 * );
 * assert.equal(formatHits([]), "No matching notes.\n");
 * // A hit the hybrid runtime got from the cloud (recall.includeCloud) says so.
 * assert.match(formatHits([{ ...hits[0], origin: "cloud" }]), /score 0\.500, from the cloud\)/);
 * // With explain, a hybrid hit shows its lexical and vector parts and the fused score.
 * const parts = { lexical: { rank: 2, score: 4.21 }, vector: { rank: 1, similarity: 0.812 }, fused: 0.0325 };
 * assert.match(
 *   formatHits([{ ...hits[0], engine: "hybrid", parts }]),
 *   /\n {3}parts: lexical #2 4\.210, vector #1 0\.812, fused 0\.0325\n$/,
 * );
 * ```
 */
export function formatHits(hits: readonly RecallHit[]): string {
  if (!hits.length) return "No matching notes.\n";
  return hits.map((h, i) => {
    const snippet = h.note.body.replace(/\s+/g, " ").trim().slice(0, 160);
    const matched = h.matched.length ? `  matched: ${h.matched.join(", ")}` : "";
    const why = h.explain?.length
      ? "\n   why: " +
        h.explain.map((c) =>
          `${c.term}${
            c.indexTerm && c.indexTerm !== c.term ? `→${c.indexTerm}` : ""
          } in ${c.field} ${c.score.toFixed(3)}`
        ).join(", ")
      : "";
    const origin = h.origin === "cloud" ? ", from the cloud" : "";
    return `${i + 1}. ${h.note.title}  (${h.note.id}, score ${h.score.toFixed(3)}${origin})${
      supersededLabel(h.note)
    }${matched}\n   ${snippet}${why}${partsLine(h.parts)}`;
  }).join("\n") + "\n";
}

/** `explain`'s parts of a hit: `parts: lexical #2 4.210, vector #1 0.812, fused 0.0325`. */
function partsLine(parts: RecallHit["parts"]): string {
  if (!parts) return "";
  const out: string[] = [];
  if (parts.lexical) out.push(`lexical #${parts.lexical.rank} ${parts.lexical.score.toFixed(3)}`);
  if (parts.vector) out.push(`vector #${parts.vector.rank} ${parts.vector.similarity.toFixed(3)}`);
  if (parts.fused !== undefined) out.push(`fused ${parts.fused.toFixed(4)}`);
  return out.length ? `\n   parts: ${out.join(", ")}` : "";
}

/** A duration for humans: `350 ms`, `12.3 s`, `4 min`, `2.5 h`. */
function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/**
 * The hybrid runtime's replication state for `memo stats`: one line, and a second with the last
 * failure when there is one. `label` names it (`user replica` for the user scope's own).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatReplicaStatus } from "./output.ts";
 *
 * assert.equal(
 *   formatReplicaStatus({
 *     outbox: 0,
 *     lastPush: "2025-01-02T00:00:00.000Z",
 *     lastPull: "2025-01-02T00:00:01.000Z",
 *     lagMs: 12_300,
 *     conflicts: 1,
 *   }),
 *   "replica: outbox 0, last push 2025-01-02T00:00:00.000Z, last pull 2025-01-02T00:00:01.000Z, " +
 *     "lag 12.3 s, 1 conflict",
 * );
 * assert.equal(
 *   formatReplicaStatus({
 *     outbox: 3,
 *     lastPush: null,
 *     lastPull: null,
 *     lagMs: null,
 *     conflicts: 0,
 *     error: "no API key (set MEMO_CLOUD_API_KEY)",
 *   }),
 *   "replica: outbox 3, last push never, last pull never, lag unknown, 0 conflicts\n" +
 *     "replica error: no API key (set MEMO_CLOUD_API_KEY)",
 * );
 * assert.match(
 *   formatReplicaStatus({ outbox: 1, lastPush: null, lastPull: null, lagMs: null, conflicts: 0 }, "user replica"),
 *   /^user replica: outbox 1,/,
 * );
 * ```
 */
export function formatReplicaStatus(replica: ReplicaStatus, label = "replica"): string {
  const line = [
    `outbox ${replica.outbox}`,
    `last push ${replica.lastPush ?? "never"}`,
    `last pull ${replica.lastPull ?? "never"}`,
    `lag ${replica.lagMs === null ? "unknown" : duration(replica.lagMs)}`,
    `${replica.conflicts} conflict${replica.conflicts === 1 ? "" : "s"}`,
  ].join(", ");
  const error = replica.error?.replace(/\s*\r?\n\s*/g, " ").trim();
  return `${label}: ${line}${error ? `\n${label} error: ${error}` : ""}`;
}

/**
 * A text the CLI says back with what the secrets guard detects replaced (a token given where an id
 * or a prefix goes). The memory package loads only when a text is masked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { maskSecrets } from "./output.ts";
 * const masked = await maskSecrets("Cannot find note ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
 * assert.doesNotMatch(masked, /A1b2C3d4E5f6G7h8/);
 * ```
 */
export async function maskSecrets(text: string): Promise<string> {
  return await (await import("@memo/memory")).maskSecrets(text);
}
