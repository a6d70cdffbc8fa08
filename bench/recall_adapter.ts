/**
 * memo as a system under test of `../shared/bench/recall_eval.mjs`: it speaks
 * the evaluator's JSON Lines protocol (see `../shared/bench/locomo-dev/README.md`)
 * on stdin/stdout and answers with memo's own recall, through the `Memo` client
 * and its file store, with the default lexical engine.
 *
 * - One `Memo` per conversation, each on its own temporary project directory.
 * - Every corpus item becomes one note: the body is the item's `text`
 *   (`"<speaker>: <turn>"`), the title `"<speaker>, <date_text>"` (the date the
 *   tuned peer indexes too), the speaker a label, and the source key
 *   `locomo:<item id>`, by which a hit maps back to its item.
 * - The question is the query, verbatim; at most `k` ids are returned.
 *
 * Works on any split in that format. Logs on stderr only; exits when stdin
 * closes, removing its temporary directories.
 *
 * Run: deno run -A bench/recall_adapter.ts
 *
 * @module
 */

import process from "node:process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Memo, type NoteDraft, openMemo } from "../memory/mod.ts";
import { serveEvaluatorProtocol } from "./_evaluator_sut.ts";

/** One corpus item of the benchmark format. */
interface Item {
  id: string;
  text: string;
  speaker?: string;
  date_text?: string;
}

const SOURCE_PREFIX = "locomo:";

/**
 * The note memo stores for one benchmark item.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { itemToDraft } from "./recall_adapter.ts";
 *
 * const draft = itemToDraft({ id: "c:D1:3", text: "Ann: hi", speaker: "Ann", date_text: "8 May, 2023" });
 * assert.equal(draft.title, "Ann, 8 May, 2023");
 * ```
 */
export function itemToDraft(item: Item): NoteDraft {
  const title = [item.speaker, item.date_text].filter((x) => x).join(", ");
  return {
    text: item.text,
    title: title || undefined,
    labels: item.speaker ? [item.speaker] : [],
    source: SOURCE_PREFIX + item.id,
  };
}

/**
 * The benchmark item ids of recall hits, in order: the notes whose source key
 * is `locomo:<item id>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { itemIdsOf } from "./recall_adapter.ts";
 *
 * const hits = [{ note: { source: "locomo:c:D1:3" } }, { note: {} }, { note: { source: "x" } }];
 * assert.deepEqual(itemIdsOf(hits), ["c:D1:3"]);
 * ```
 */
export function itemIdsOf(hits: readonly { note: { source?: string | null } }[]): string[] {
  const ids: string[] = [];
  for (const hit of hits) {
    const source = hit.note.source ?? "";
    if (source.startsWith(SOURCE_PREFIX)) ids.push(source.slice(SOURCE_PREFIX.length));
  }
  return ids;
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "memo-recall-bench-"));
  const memos = new Map<string, Memo>();

  // deno-lint-ignore no-explicit-any
  async function handle(msg: any): Promise<unknown> {
    if (msg?.op === "index") {
      const previous = memos.get(msg.conversation_id);
      if (previous) await previous.close();
      const dir = await mkdtemp(join(root, "conv-"));
      const memo = await openMemo({ rootDir: dir });
      const items = msg.items as Item[];
      const result = await memo.rememberMany(items.map(itemToDraft));
      const stored = result.written.length + result.updated.length + result.unchanged.length;
      if (stored !== items.length) {
        return { ok: false, error: `stored ${stored} of ${items.length} items` };
      }
      memos.set(msg.conversation_id, memo);
      return { ok: true };
    }
    if (msg?.op === "query") {
      const memo = memos.get(msg.conversation_id);
      const k = Number.isInteger(msg.k) && msg.k > 0 ? msg.k : 10;
      let ids: string[] = [];
      if (memo && typeof msg.question === "string" && msg.question.trim() !== "") {
        ids = itemIdsOf(await memo.recall(msg.question, { limit: k, engine: "lexical" }));
      }
      return { qid: msg.qid, ids };
    }
    return { ok: false, error: `unknown op ${msg?.op}` };
  }

  try {
    await serveEvaluatorProtocol(handle, "recall_adapter");
  } finally {
    for (const memo of memos.values()) await memo.close();
    await rm(root, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
