// The tuned MiniSearch peer of the recall benchmark: it speaks the JSON Lines protocol of
// ../shared/bench/recall_eval.mjs (see ../shared/bench/locomo-dev/README.md), one MiniSearch
// index per conversation, with the configuration of the README's tuned anchor:
// MiniSearch 7.2.0, Porter2 stemming, Orama's English stop words, the `date_text` field
// indexed beside `text`, BM25+ with b = 0 (k 1.2, d 0.5), the question used verbatim.
//
// Run: deno run -A --lock=deno.dev.lock bench/minisearch_adapter.mjs   (logs on stderr only; exits when stdin closes)
// `--defaults` runs MiniSearch with its default options instead (the README's first anchor).

// deno-lint-ignore no-import-prefix -- bench-only peer, pinned
import MiniSearch from "npm:minisearch@7.2.0";
// deno-lint-ignore no-import-prefix -- bench-only peer, pinned
import { stem } from "npm:porter2@1.1.0";
// deno-lint-ignore no-import-prefix -- bench-only peer, pinned
import { stopwords } from "npm:@orama/stopwords@3.1.18/english";
import process from "node:process";
import { createInterface } from "node:readline";

const defaults = process.argv.includes("--defaults");
const stop = new Set(stopwords);

/** @param {string} term */
function processTerm(term) {
  const t = term.toLowerCase();
  if (stop.has(t)) return null;
  return stem(t);
}

function newIndex() {
  if (defaults) return new MiniSearch({ fields: ["text"] });
  return new MiniSearch({
    fields: ["text", "date_text"],
    processTerm,
    searchOptions: { bm25: { k: 1.2, b: 0, d: 0.5 } },
  });
}

/** @type {Map<string, MiniSearch>} */
const indexes = new Map();

/** @param {any} msg */
function handle(msg) {
  if (msg.op === "index") {
    const index = newIndex();
    index.addAll(msg.items.map((it) => ({ id: it.id, text: it.text, date_text: it.date_text })));
    indexes.set(msg.conversation_id, index);
    return { ok: true };
  }
  if (msg.op === "query") {
    const index = indexes.get(msg.conversation_id);
    const ids = index ? index.search(msg.question).slice(0, msg.k).map((r) => r.id) : [];
    return { qid: msg.qid, ids };
  }
  return { ok: false, error: `unknown op ${msg.op}` };
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let reply;
  try {
    reply = handle(JSON.parse(line));
  } catch (e) {
    console.error(`minisearch_adapter: ${e?.message ?? e}`);
    reply = { ok: false, error: String(e?.message ?? e) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
}
process.exit(0);
