/**
 * Reads memo's own JSONL export (`memo export`): one note per line, ids, sources and times kept.
 *
 * @module
 */

import { prepareNoteDrafts } from "@memo/memory";
import type { NoteDraft } from "@memo/memory";
import type { ReaderResult } from "./types.ts";
import { splitLines } from "./_files.ts";

/**
 * Parses the text of a memo JSONL export. Each line `{ id, title, body, labels, source?, hash,
 * created, updated, supersedes?, validFrom?, validUntil? }` becomes a draft `{ id, title, text:
 * body, labels, source, created, updated, supersedes, validFrom, validUntil }`; extra keys are
 * ignored. A line that is not a JSON object, lacks a field, or whose `hash` is not
 * the content hash of its content (history fields included) is skipped with its line. Blank lines are ignored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash } from "@memo/memory";
 * import { parseMemoJsonl } from "./memo_jsonl.ts";
 *
 * const note = {
 *   id: "01jq3v7k9x0000000000", title: "Deploys", body: "make deploy", labels: ["ops"],
 *   hash: contentHash({ title: "Deploys", body: "make deploy", labels: ["ops"] }),
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-02T00:00:00.000Z",
 * };
 * const text = JSON.stringify(note) + "\n{oops\n" + JSON.stringify({ ...note, hash: "0" }) + "\n";
 * const { records, skipped } = parseMemoJsonl(text, "notes.jsonl");
 * assert.equal(records[0].draft.id, note.id);
 * assert.equal(records[0].draft.text, "make deploy");
 * assert.deepEqual(skipped.map((s) => [s.line, s.reason]), [
 *   [2, "not valid JSON"],
 *   [3, "hash does not match the content"],
 * ]);
 * ```
 */
export function parseMemoJsonl(
  text: string,
  file: string,
  onLine?: (done: number, total: number) => void,
): ReaderResult {
  const out: ReaderResult = { records: [], skipped: [] };
  const lines = splitLines(text);
  for (let i = 0; i < lines.length; i++) {
    if (onLine && i % 1000 === 999) onLine(i + 1, lines.length);
    const raw = lines[i];
    if (raw.trim() === "") continue;
    const line = i + 1;
    const draft = memoDraft(raw);
    if (typeof draft === "string") out.skipped.push({ file, line, reason: draft });
    else out.records.push({ draft, file, line });
  }
  onLine?.(lines.length, lines.length);
  return out;
}

/** One line as a draft, or why not. */
function memoDraft(raw: string): NoteDraft | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return "not valid JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "not a JSON object";
  }
  const o = value as Record<string, unknown>;
  for (const key of ["id", "title", "body", "hash", "created", "updated"]) {
    if (typeof o[key] !== "string") return `"${key}" is missing or not a string`;
  }
  if (!Array.isArray(o.labels) || !o.labels.every((l) => typeof l === "string")) {
    return `"labels" is missing or not a list of strings`;
  }
  if (o.source !== undefined && o.source !== null && typeof o.source !== "string") {
    return `"source" is not a string`;
  }
  const draft: NoteDraft = {
    id: o.id as string,
    title: o.title as string,
    text: o.body as string,
    labels: o.labels as string[],
    created: o.created as string,
    updated: o.updated as string,
  };
  if (typeof o.source === "string") draft.source = o.source;
  if (o.supersedes !== undefined) {
    if (!Array.isArray(o.supersedes) || !o.supersedes.every((s) => typeof s === "string")) {
      return `"supersedes" is not a list of note ids`;
    }
    draft.supersedes = o.supersedes as string[];
    if (draft.supersedes.includes(draft.id!)) return `note ${draft.id} cannot supersede itself`;
  }
  if (o.scope !== undefined) {
    if (o.scope !== "user" && o.scope !== "project" && o.scope !== "local") {
      return `"scope" is not user, project or local`;
    }
    draft.scope = o.scope;
  }
  for (const key of ["validFrom", "validUntil"] as const) {
    if (o[key] === undefined) continue;
    if (typeof o[key] !== "string") return `"${key}" is not a string`;
    draft[key] = o[key] as string;
  }
  let hash: string;
  try {
    [{ hash }] = prepareNoteDrafts([draft]);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  return hash === o.hash ? draft : "hash does not match the content";
}
