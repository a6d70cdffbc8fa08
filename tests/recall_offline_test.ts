/**
 * The real `use-lite` model, offline: `memo` runs under Deno's `--deny-net`,
 * so nothing can be fetched. A paraphrase that shares no word with the note
 * it means is found by `vector` (not by `lexical`), ranked first by
 * `hybrid`, and a second process embeds nothing the first one cached.
 */

import assert from "node:assert/strict";
import { openMemo } from "../memory/mod.ts";
import { fileURLToPath } from "node:url";
import { runProcess } from "./_run_process.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";

const ROOT = new URL("..", import.meta.url);
const QUERY = "how often do we change the credentials for pre-production";
const TARGET = "The staging deploy key rotates every 90 days";

async function memo(dir: string, ...args: string[]) {
  const out = await runProcess(
    Deno.execPath(),
    ["run", "-A", "--deny-net", "cli.ts", ...args, "--dir", dir, "--json"],
    { cwd: fileURLToPath(ROOT), env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" } },
  );
  assert.equal(out.code, 0, out.err);
  assert.equal(out.err, "", "nothing on stderr off a terminal (no progress bar, no model banner)");
  // stdout holds exactly one JSON document: the model printed nothing there.
  return JSON.parse(out.out);
}

test("use-lite offline: vector finds a paraphrase lexical misses, hybrid ranks it first, the cache is shared", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-offline-" });
  const setup = await openMemo({ rootDir: dir, localEmbeddings: false });
  for (
    const text of [
      "Lunch is served at noon in the cafeteria",
      TARGET,
      "Our office plants are watered on Mondays",
    ]
  ) await setup.remember({ text });
  await setup.close();

  const lexical = await memo(dir, "recall", QUERY, "--engine", "lexical");
  assert.equal(lexical.engine, "lexical");
  assert.ok(!lexical.hits.some((h: { note: { title: string } }) => h.note.title === TARGET));

  const vector = await memo(dir, "recall", QUERY, "--engine", "vector");
  assert.equal(vector.engine, "vector");
  assert.deepEqual(vector.coverage, { embedded: 3, total: 3 }); // embedded first
  assert.equal(vector.hits[0].note.title, TARGET);

  const hybrid = await memo(dir, "recall", QUERY, "--engine", "hybrid", "--explain");
  assert.equal(hybrid.engine, "hybrid");
  assert.equal(hybrid.hits[0].note.title, TARGET);
  assert.equal(hybrid.hits[0].parts.vector.rank, 1);
  assert.equal(hybrid.hits[0].parts.lexical, undefined);

  // Another process: everything is in the cache already.
  const embedded = await memo(dir, "embed");
  assert.equal(embedded.embedded, 3);
  assert.equal(embedded.computed, 0);
  await Deno.remove(dir, { recursive: true });
});
