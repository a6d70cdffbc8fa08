/**
 * memo as a system under test of `../shared/bench/recall_eval.mjs`: it speaks
 * the evaluator's JSON Lines protocol (see `../shared/bench/locomo-dev/README.md`)
 * on stdin/stdout and answers with memo's own recall, through the `Memo` client
 * and its file store.
 *
 * - One `Memo` per conversation, each on its own temporary project directory.
 * - Every corpus item becomes one note: the body is the item's `text`
 *   (`"<speaker>: <turn>"`), the title `"<speaker>, <date_text>"` (the date the
 *   tuned peer indexes too), the speaker a label, and the source key
 *   `locomo:<item id>`, by which a hit maps back to its item.
 * - The question is the query, verbatim; at most `k` ids are returned.
 * - `--engine` picks the recall engine (default `lexical`, with local
 *   embeddings off, as before). For `vector`, `hybrid` and `auto` the model
 *   (`--model`, default `use-lite`) is loaded once per process and given to
 *   every `Memo` as its `embedder`; each conversation's notes are embedded
 *   with `Memo.embed()` after they are written and before any question, so
 *   `auto` runs with every note embedded. `--k`, `--lexical-weight` and
 *   `--vector-weight` are passed as the `Memo`'s `fusion` (defaults:
 *   `DEFAULT_FUSION`). `--cache-dir DIR` keeps the embedding cache in `DIR`
 *   (each project's `.memo/cache/embeddings` points there), so that a later
 *   run embeds nothing again.
 *
 * Works on any split in that format. Logs on stderr only; exits when stdin
 * closes, removing its temporary directories.
 *
 * Run: deno run -A bench/recall_adapter.ts [--engine lexical|vector|hybrid|auto] [--model use-lite]
 *   [--k N] [--lexical-weight W] [--vector-weight W] [--cache-dir DIR]
 *
 * @module
 */

import process from "node:process";
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  type Embedder,
  type FusionOptions,
  loadEmbedder,
  type Memo,
  type MemoOptions,
  type NoteDraft,
  openMemo,
  type RecallEngine,
} from "../memory/mod.ts";
import { serveEvaluatorProtocol } from "./_evaluator_sut.ts";

/** One corpus item of the benchmark format. */
interface Item {
  id: string;
  text: string;
  speaker?: string;
  date_text?: string;
}

const SOURCE_PREFIX = "locomo:";
const ENGINES: readonly RecallEngine[] = ["lexical", "vector", "hybrid", "auto"];

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

/** What the adapter's command line asks for. */
export interface AdapterOptions {
  /** The recall engine. @default "lexical" */
  engine: RecallEngine;
  /** The embedding model of the vector engines. @default "use-lite" */
  model: string;
  /** The fusion settings given; those left out keep memo's defaults. */
  fusion: Partial<FusionOptions>;
  /** Where the embedding cache is kept across runs, if anywhere. */
  cacheDir?: string;
}

/**
 * Reads the adapter's arguments; throws on an unknown engine or a weight
 * that is not a number.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { adapterOptions } from "./recall_adapter.ts";
 *
 * assert.deepEqual(adapterOptions([]), { engine: "lexical", model: "use-lite", fusion: {} });
 * const o = adapterOptions(["--engine", "hybrid", "--k", "20", "--vector-weight", "0.5"]);
 * assert.deepEqual(o.fusion, { k: 20, vectorWeight: 0.5 });
 * assert.throws(() => adapterOptions(["--engine", "fuzzy"]), /engine/);
 * ```
 */
export function adapterOptions(args: readonly string[]): AdapterOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      engine: { type: "string", default: "lexical" },
      model: { type: "string", default: "use-lite" },
      k: { type: "string" },
      "lexical-weight": { type: "string" },
      "vector-weight": { type: "string" },
      "cache-dir": { type: "string" },
    },
  });
  const engine = values.engine as RecallEngine;
  if (!ENGINES.includes(engine)) {
    throw new Error(`Cannot start: --engine must be one of ${ENGINES.join(", ")}`);
  }
  const fusion: Partial<FusionOptions> = {};
  const number = (flag: string, text: string | undefined, key: keyof FusionOptions) => {
    if (text === undefined) return;
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0) throw new Error(`Cannot start: ${flag} must be a number ≥ 0`);
    fusion[key] = n;
  };
  number("--k", values.k, "k");
  number("--lexical-weight", values["lexical-weight"], "lexicalWeight");
  number("--vector-weight", values["vector-weight"], "vectorWeight");
  const options: AdapterOptions = { engine, model: values.model, fusion };
  if (values["cache-dir"]) options.cacheDir = resolve(values["cache-dir"]);
  return options;
}

/**
 * An embedder that shares `inner` without owning it: closing a `Memo` closes
 * its embedder, and the adapter's one model serves every conversation.
 */
function borrowed(inner: Embedder): Embedder {
  return {
    model: inner.model,
    dimensions: inner.dimensions,
    embed: (texts, options) => inner.embed(texts, options),
  };
}

async function main(): Promise<void> {
  const options = adapterOptions(process.argv.slice(2));
  const semantic = options.engine !== "lexical";
  const root = await mkdtemp(join(tmpdir(), "memo-recall-bench-"));
  const memos = new Map<string, Memo>();
  let embedder: Embedder | undefined;
  if (options.cacheDir) await mkdir(options.cacheDir, { recursive: true });

  // deno-lint-ignore no-explicit-any
  async function handle(msg: any): Promise<unknown> {
    if (msg?.op === "index") {
      const previous = memos.get(msg.conversation_id);
      if (previous) await previous.close();
      const dir = await mkdtemp(join(root, "conv-"));
      const memoOptions: MemoOptions = { rootDir: dir };
      if (semantic) {
        embedder ??= await loadEmbedder(options.model);
        if (options.cacheDir) {
          await mkdir(join(dir, ".memo", "cache"), { recursive: true });
          await symlink(options.cacheDir, join(dir, ".memo", "cache", "embeddings"), "dir");
        }
        Object.assign(memoOptions, {
          embedder: borrowed(embedder),
          embedInBackground: false,
          fusion: options.fusion,
        });
      } else memoOptions.localEmbeddings = false;
      const memo = await openMemo(memoOptions);
      memos.set(msg.conversation_id, memo);
      const items = msg.items as Item[];
      const result = await memo.rememberMany(items.map(itemToDraft));
      const stored = result.written.length + result.updated.length + result.unchanged.length;
      if (stored !== items.length) {
        return { ok: false, error: `stored ${stored} of ${items.length} items` };
      }
      if (semantic) {
        const started = performance.now();
        const done = await memo.embed();
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        process.stderr.write(
          `recall_adapter: ${msg.conversation_id}: ${done.embedded}/${done.total} embedded, ` +
            `${done.computed} computed, in ${seconds} s\n`,
        );
        if (done.embedded !== items.length) {
          return { ok: false, error: `embedded ${done.embedded} of ${items.length} items` };
        }
      }
      return { ok: true };
    }
    if (msg?.op === "query") {
      const memo = memos.get(msg.conversation_id);
      const k = Number.isInteger(msg.k) && msg.k > 0 ? msg.k : 10;
      let ids: string[] = [];
      if (memo && typeof msg.question === "string" && msg.question.trim() !== "") {
        ids = itemIdsOf(await memo.recall(msg.question, { limit: k, engine: options.engine }));
      }
      return { qid: msg.qid, ids };
    }
    return { ok: false, error: `unknown op ${msg?.op}` };
  }

  try {
    await serveEvaluatorProtocol(handle, "recall_adapter");
  } finally {
    for (const memo of memos.values()) await memo.close();
    await embedder?.close?.();
    await rm(root, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
