/**
 * Output helpers of the CLI: one JSON document with `--json`, text for humans
 * otherwise, and the one-line error format `memo: <message>`.
 *
 * @module
 */

import type { Note, RecallHit } from "@memo/memory";

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
 * A note as markdown for humans.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatNote } from "./output.ts";
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
 * assert.equal(
 *   formatNote(note),
 *   "## Deploys\nid: 01jq3v7k9x0000000000  ·  labels: infra  ·  updated: 2025-01-02T00:00:00.000Z\n\n" +
 *     "Run make deploy.\n",
 * );
 * ```
 */
export function formatNote(note: Note): string {
  const meta = [`id: ${note.id}`];
  if (note.labels.length) meta.push(`labels: ${note.labels.join(", ")}`);
  if (note.source) meta.push(`source: ${note.source}`);
  meta.push(`updated: ${note.updated}`);
  return `## ${note.title}\n${meta.join("  ·  ")}\n\n${note.body}${
    note.body.endsWith("\n") ? "" : "\n"
  }`;
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
 * ```
 */
export function formatNoteLine(note: Note): string {
  const labels = note.labels.length ? ` [${note.labels.join(", ")}]` : "";
  return `${note.id}  ${note.title}${labels}`;
}

/**
 * Recall hits for humans: rank, score, title, id, matched terms and a snippet.
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
    return `${i + 1}. ${h.note.title}  (${h.note.id}, score ${
      h.score.toFixed(3)
    })${matched}\n   ${snippet}${why}`;
  }).join("\n") + "\n";
}
