import assert from "node:assert/strict";
import type { Note } from "../../notes/note.ts";
import { Bm25Index, createLexicalIndex, type LexicalIndexOptions } from "./lexical.ts";
import { hashToken } from "../text/tokenizer.ts";

function note(id: string, body: string, title = "", labels: string[] = []): Note {
  return { id, title, body, labels, hash: id, created: "", updated: "" };
}

function indexOf(notes: Note[], options: LexicalIndexOptions = {}) {
  const index = createLexicalIndex(options);
  for (const n of notes) index.add(n);
  return index;
}

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);
const PLAIN: LexicalIndexOptions = { feedbackDocs: 0, proximityWeight: 0 };

Deno.test("search() matches rate-limit, rate_limit and rateLimit for 'rate limit'", async (t) => {
  for (const form of ["rate-limit", "rate_limit", "rateLimit", "RATE_LIMIT", "rate limits"]) {
    await t.step(form, () => {
      const index = indexOf([note("a", `the ${form} was hit`), note("b", "nothing here")]);
      const hits = index.search("rate limit", { limit: 5 });
      assert.deepEqual(ids(hits), ["a"]);
      assert.deepEqual(hits[0].matched, ["rate", "limit"]);
    });
  }
  const index = indexOf([note("a", "the rate_limit option"), note("b", "a rate with no limit")]);
  assert.deepEqual(ids(index.search("rateLimit", { limit: 5 })), ["a", "b"]); // joined form ranks the identifier first
});

Deno.test("search() folds diacritics and case on both sides", () => {
  const index = indexOf([note("a", "Crème brûlée at the CAFÉ"), note("b", "tea")]);
  assert.deepEqual(ids(index.search("cafe creme", { limit: 5 })), ["a"]);
  assert.deepEqual(ids(index.search("Café", { limit: 5 })), ["a"]);
});

Deno.test("search() stems and maps irregular forms", () => {
  const index = indexOf([note("a", "She went to the deployments meeting"), note("b", "other")]);
  assert.deepEqual(ids(index.search("go deploy", { limit: 5 })), ["a"]);
});

Deno.test("search() ranks by BM25: rarer terms and more matched terms first", () => {
  const notes = [
    note("common", "apple banana"),
    note("rare", "apple zucchini"),
    note("both", "banana zucchini apple"),
    ...Array.from({ length: 20 }, (_, i) => note(`f${i}`, `banana filler ${i}`)),
  ];
  const index = indexOf(notes, PLAIN);
  assert.deepEqual(ids(index.search("zucchini banana", { limit: 3 })), ["both", "rare", "common"]);
  const hits = index.search("zucchini", { limit: 5 });
  assert.deepEqual(ids(hits), ["rare", "both"]);
  assert.ok(hits[0].score >= hits[1].score && hits[1].score > 0);
});

Deno.test("search() weights the title above the body and counts labels", () => {
  const index = indexOf([
    note("body", "notes about kubernetes upgrades", "Misc"),
    note("title", "notes about upgrades", "Kubernetes"),
    note("label", "notes about upgrades", "Misc", ["kubernetes"]),
  ], PLAIN);
  assert.deepEqual(ids(index.search("kubernetes", { limit: 3 })), ["title", "label", "body"]);
});

Deno.test("search() matches the last query word as a prefix, below exact matches", () => {
  const index = indexOf([
    note("exact", "deplo is a tool"),
    note("word", "we deploy on fridays"),
    note("other", "nothing"),
  ], PLAIN);
  const hits = index.search("deplo", { limit: 5 });
  assert.deepEqual(ids(hits), ["exact", "word"]);
  assert.deepEqual(hits[1].matched, ["deplo"]);
  assert.ok(hits[0].score > hits[1].score);
});

Deno.test("search() uses the prefix on the last word only, and not after a space or ?", () => {
  const index = indexOf([note("a", "we deploy servers"), note("b", "servers only")], PLAIN);
  const inner = index.search("deplo servers", { limit: 5 });
  assert.deepEqual(inner.map((h) => h.matched), [["servers"], ["servers"]]);
  assert.equal(inner[0].score, inner[1].score);
  const last = index.search("servers deplo", { limit: 5 });
  assert.deepEqual(ids(last), ["a", "b"]);
  assert.deepEqual(last[0].matched, ["servers", "deplo"]);
  assert.deepEqual(ids(index.search("deplo ", { limit: 5 })), []);
  assert.deepEqual(ids(index.search("deplo?", { limit: 5 })), []);
});

Deno.test("search() reports matched terms, and explain sums to the score", () => {
  const index = indexOf([
    note("a", "the staging database is db-stage-2", "Staging database", ["infra"]),
    note("b", "the production database"),
    note("c", "staging notes"),
  ]);
  const hits = index.search("Staging databases infra", { limit: 3, explain: true });
  assert.equal(hits[0].id, "a");
  assert.deepEqual(hits[0].matched, ["staging", "databases", "infra"]);
  for (const hit of hits) {
    assert.ok(hit.explain && hit.explain.length > 0);
    const sum = hit.explain.reduce((s, e) => s + e.score, 0);
    assert.ok(Math.abs(sum - hit.score) < 1e-9, `${hit.id}: ${sum} vs ${hit.score}`);
  }
  const fields = new Set(hits[0].explain!.map((e) => e.field));
  for (const f of ["title", "body", "labels", "proximity"]) assert.ok(fields.has(f), f);
  const db = hits[0].explain!.find((e) => e.term === "databases");
  assert.equal(db?.indexTerm, "databas");
  assert.equal(index.search("staging", { limit: 1 })[0].explain, undefined);
});

Deno.test("search() returns nothing for empty, blank, stop-word-only or unknown queries", async (t) => {
  const index = indexOf([note("a", "the quick brown fox")]);
  for (const q of ["", "   ", "\n\t", "the and of", "?!", "zyxwv", "🙂"]) {
    await t.step(JSON.stringify(q), () => assert.deepEqual(index.search(q, { limit: 5 }), []));
  }
  assert.deepEqual(index.search("fox", { limit: 0 }), []);
  assert.deepEqual(createLexicalIndex().search("fox", { limit: 5 }), []);
});

Deno.test("search() applies the filter callback before the limit", () => {
  const notes = Array.from({ length: 30 }, (_, i) => note(`n${i}`, `alpha ${i % 2 ? "beta" : ""}`));
  const index = indexOf(notes);
  const seen: string[] = [];
  const hits = index.search("alpha", {
    limit: 5,
    filter: (id) => {
      seen.push(id);
      return Number(id.slice(1)) % 3 === 0;
    },
  });
  assert.equal(hits.length, 5);
  for (const h of hits) assert.equal(Number(h.id.slice(1)) % 3, 0);
  assert.ok(seen.length > 0);
  assert.deepEqual(index.search("alpha", { limit: 5, filter: () => false }), []);
});

Deno.test("add() replaces a note with the same id; remove() and clear() forget notes", () => {
  const index = indexOf([note("a", "old words"), note("b", "other words")]);
  assert.equal(index.size, 2);
  index.add(note("a", "new text"));
  assert.equal(index.size, 2);
  assert.deepEqual(ids(index.search("old", { limit: 5 })), []);
  assert.deepEqual(ids(index.search("new", { limit: 5 })), ["a"]);
  index.remove("a");
  index.remove("missing");
  assert.equal(index.size, 1);
  assert.deepEqual(ids(index.search("new", { limit: 5 })), []);
  assert.deepEqual(ids(index.search("words", { limit: 5 })), ["b"]);
  index.clear();
  assert.equal(index.size, 0);
  assert.deepEqual(index.search("words", { limit: 5 }), []);
  index.add(note("c", "words again"));
  assert.deepEqual(ids(index.search("words", { limit: 5 })), ["c"]);
});

Deno.test("search() ranks the same before and after flush() and many removals", () => {
  const vocabulary = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split(
    " ",
  );
  const text = (i: number) =>
    Array.from({ length: 8 }, (_, k) => vocabulary[(i * 7 + k * k * 3) % vocabulary.length]).join(
      " ",
    );
  const notes = Array.from({ length: 3000 }, (_, i) => note(`n${i}`, text(i)));
  const incremental = createLexicalIndex();
  for (let i = 0; i < notes.length; i++) {
    incremental.add(notes[i]);
    if (i === 1000) incremental.flush();
    if (i % 3 === 0 && i > 0) incremental.remove(`n${i - 1}`);
  }
  const kept = notes.filter((_, i) => !(i % 3 === 2 && i < notes.length - 1));
  const fresh = indexOf(kept);
  assert.equal(incremental.size, fresh.size);
  for (const q of ["alpha beta", "gamma", "kappa lambda mu", "iota zeta"]) {
    const a = incremental.search(q, { limit: 10 });
    const b = fresh.search(q, { limit: 10 });
    assert.deepEqual(ids(a), ids(b), q);
    a.forEach((h, i) => assert.ok(Math.abs(h.score - b[i].score) < 1e-9));
    incremental.flush();
    assert.deepEqual(ids(incremental.search(q, { limit: 10 })), ids(b), `${q} after flush`);
  }
});

Deno.test("search() finds CJK and emoji tokens", () => {
  const index = indexOf([note("a", "東京タワーに行った 🚀"), note("b", "京都 🙂")]);
  const hits = index.search("東京", { limit: 5 });
  assert.deepEqual(ids(hits), ["a", "b"]); // b shares 京 only
  assert.ok(hits[0].score > 2 * hits[1].score);
  assert.deepEqual(ids(index.search("🚀", { limit: 5 })), ["a"]);
});

Deno.test("search() with feedback still returns only notes that match a query word", () => {
  const notes = [
    note("a", "pottery class bowl glaze kiln"),
    note("b", "pottery wheel glaze kiln"),
    note("c", "glaze kiln without the word"),
  ];
  const index = indexOf(notes, { feedbackDocs: 2 });
  const hits = index.search("pottery", { limit: 5 });
  assert.deepEqual(ids(hits).sort(), ["a", "b"]);
  for (const h of hits) assert.ok(h.matched.length > 0);
});

Deno.test("search() scores feedback terms alike in long and short posting lists", () => {
  // "common" and "shared" are in every note, "rare" in three: feedback re-weights
  // three matched notes by terms whose lists are long (looked up, not read through).
  const notes = [
    note("r1", "rare common shared alpha"),
    note("r2", "rare common shared shared beta"),
    note("r3", "rare common gamma"),
    ...Array.from({ length: 300 }, (_, i) => note(`f${i}`, `common shared filler${i % 7}`)),
  ];
  const index = indexOf(notes, { feedbackTerms: 5 });
  const hits = index.search("rare", { limit: 3, explain: true });
  assert.deepEqual(ids(hits).sort(), ["r1", "r2", "r3"]);
  for (const hit of hits) {
    const sum = hit.explain!.reduce((s, e) => s + e.score, 0);
    assert.ok(Math.abs(sum - hit.score) < 1e-9, `${hit.id}: ${sum} vs ${hit.score}`);
  }
  assert.ok(hits.some((h) => h.explain!.some((e) => e.field === "feedback")));
});

Deno.test("search() ranks the same with the log pending as after flush()", () => {
  const notes = Array.from(
    { length: 400 },
    (_, i) =>
      note(`n${i}`, `deploy ${i % 3 ? "staging" : "production"} server${i % 11} rate_limit`),
  );
  const index = indexOf(notes);
  const queries = ["deploy staging", "server3 rate limit", "production serv", "rateLimit deploy"];
  const before = queries.map((q) => index.search(q, { limit: 10 }));
  index.flush();
  assert.deepEqual(queries.map((q) => index.search(q, { limit: 10 })), before);
});

Deno.test("Bm25Index: a search merges the pending log once it passes 4,096 pairs and 1/128 of the merged part", () => {
  const index = new Bm25Index();
  const note = (i: number) => ({
    id: `n${i}`,
    title: `note ${i}`,
    body: `alpha beta gamma delta word${i % 97} term${i % 13}`,
    labels: [],
    hash: `h${i}`,
    created: "2026-01-01T00:00:00.000Z",
    updated: "2026-01-01T00:00:00.000Z",
  });
  let n = 0;
  while (n < 2000) index.add(note(n++));
  index.flush();
  const frozen = index.postings.frozenCount;
  // Below 4,096 pending pairs a search leaves the log alone.
  while (index.postings.pendingCount < 4000) index.add(note(n++));
  index.search("alpha", { limit: 1 });
  assert.ok(index.postings.pendingCount > 0);
  // Past both bounds (4,096 pairs; frozen / 128 is far lower here) the next search merges it.
  while (index.postings.pendingCount <= Math.max(4096, frozen / 128)) index.add(note(n++));
  assert.equal(index.search("alpha", { limit: 1 }).length, 1);
  assert.equal(index.postings.pendingCount, 0);
});

Deno.test("add(note, held) and remove(id, indexed) rank as the plain index does, holding no text", () => {
  const texts = Array.from(
    { length: 40 },
    (_, i) =>
      note(
        `n${i}`,
        `deploy ${i % 3 ? "staging" : "production"} step ${i} of ${i % 7} runbook`,
        `T${i % 5}`,
      ),
  );
  const plain = indexOf(texts);
  const lean = createLexicalIndex();
  const held = new Map<string, Note>();
  for (const n of texts) {
    const stub = { ...n, title: "", body: "" };
    held.set(n.id, stub);
    lean.add(n, stub);
  }
  for (const i of [3, 8, 21]) {
    plain.remove(`n${i}`);
    lean.remove(`n${i}`, texts[i]);
  }
  const changed = note("n5", "deploy production twice", "T9");
  plain.add(changed);
  lean.remove("n5", texts[5]);
  lean.add(changed, { ...changed, title: "", body: "" });
  for (const query of ["deploy staging", "production runbook", "step 12", "t9"]) {
    const a = plain.search(query, { limit: 10, explain: true });
    const b = lean.search(query, { limit: 10, explain: true });
    assert.deepEqual(b, a, query);
  }
  // The held stand-in is what the index keeps.
  assert.equal(lean.idOf(0), "n0");
  assert.equal((lean as Bm25Index).notes[0], held.get("n0"));
});

Deno.test("compact() lets a snapshot be taken after removals; the import ranks alike", () => {
  const notes = Array.from({ length: 30 }, (_, i) => note(`n${i}`, `alpha ${i} beta ${i % 4}`));
  const index = indexOf(notes);
  index.remove("n4");
  index.remove("n17");
  assert.equal(index.exportSnapshot(), undefined); // holes: no snapshot
  index.compact();
  assert.equal(index.docCount, 28);
  const snapshot = index.exportSnapshot()!;
  assert.ok(snapshot);
  const order = Array.from({ length: index.docCount }, (_, doc) => index.idOf(doc)!);
  assert.ok(!order.includes("n4") && order.length === 28);
  const byId = new Map(notes.map((n) => [n.id, n]));
  const copy = createLexicalIndex();
  assert.equal(copy.importSnapshot(snapshot, order.map((id) => byId.get(id)!)), true);
  for (const query of ["alpha 7", "beta 2", "alpha beta"]) {
    assert.deepEqual(copy.search(query, { limit: 8 }), index.search(query, { limit: 8 }), query);
  }
  assert.equal(
    copy.importSnapshot({ ...snapshot, version: 999 }, order.map((id) => byId.get(id)!)),
    false,
  );
});

Deno.test("a snapshot without the token table imports alike: the table is built again, new words intern after it", () => {
  const words = (i: number) =>
    `alpha${i % 97} beta-${i % 13} Gamma_${i % 7} deploying runbooks ${i}`;
  const notes = Array.from({ length: 400 }, (_, i) => note(`n${i}`, words(i)));
  const index = indexOf(notes);
  const full = index.exportSnapshot()!;
  const lean = index.exportSnapshot({ tokenTable: false })!;
  assert.ok("slots" in full.arrays && !("tokenHash" in full.arrays));
  assert.ok("tokenHash" in lean.arrays && !("slots" in lean.arrays));
  let fullBytes = 0, leanBytes = 0;
  for (const a of Object.values(full.arrays)) fullBytes += a.byteLength;
  for (const a of Object.values(lean.arrays)) leanBytes += a.byteLength;
  assert.ok(leanBytes < fullBytes * 0.8, `${leanBytes} of ${fullBytes} bytes`);
  const a = createLexicalIndex();
  const b = createLexicalIndex();
  assert.equal(a.importSnapshot(full, notes), true);
  assert.equal(b.importSnapshot(lean, notes), true);
  for (const query of ["alpha5 deploy", "beta-3 runbook", "gamma_2 17", "nothing"]) {
    const expected = index.search(query, { limit: 10, explain: true });
    assert.deepEqual(a.search(query, { limit: 10, explain: true }), expected, query);
    assert.deepEqual(b.search(query, { limit: 10, explain: true }), expected, query);
  }
  // Words never seen, and seen ones, after the import (the trimmed arrays grow).
  const more = [note("x1", "zebra quokka alpha5 deploying"), note("x2", "Quokkas and zebras")];
  for (const n of more) {
    index.add(n);
    b.add(n);
  }
  for (const query of ["zebra", "quokka alpha5", "deploy"]) {
    assert.deepEqual(b.search(query, { limit: 10 }), index.search(query, { limit: 10 }), query);
  }
  // A damaged token list is refused.
  const tokenTerm = (lean.arrays.tokenTerm as Int32Array).slice();
  tokenTerm[3] = 1 << 30;
  assert.equal(
    createLexicalIndex().importSnapshot({ ...lean, arrays: { ...lean.arrays, tokenTerm } }, notes),
    false,
  );
});

Deno.test("a snapshot without the token table: the table waits for its first need, the lookups before it scan", () => {
  const notes = Array.from(
    { length: 300 },
    (_, i) => note(`n${i}`, `alpha${i % 89} beta-${i % 11} the Delta’s ${i} runbooks`),
  );
  const index = indexOf(notes);
  const lean = index.exportSnapshot({ tokenTable: false })!;
  const b = new Bm25Index();
  assert.equal(b.importSnapshot(lean, notes), true);
  assert.equal(b.dict.builtSlots, undefined, "not built on import");
  const bytes = b.byteLength();
  // Exported again before it is built: the same tokens.
  const again = b.exportSnapshot({ tokenTable: false })!;
  assert.deepEqual(again.arrays.tokenHash, lean.arrays.tokenHash);
  assert.deepEqual(again.arrays.tokenTerm, lean.arrays.tokenTerm);
  assert.equal(b.dict.builtSlots, undefined);
  // A lookup by a scan finds what the table finds: a token, a stop word (-1), none (-2).
  const words = ["alpha5", "ALPHA88", "beta-3", "beta_3", "delta’s", "delta's", "the", "zebra"];
  for (const word of words) {
    const h = hashToken(word, 0, word.length);
    assert.equal(
      b.dict.find(word, 0, word.length, h),
      (index as Bm25Index).dict.find(word, 0, word.length, h),
    );
  }
  assert.equal(b.dict.find("the", 0, 3, hashToken("the", 0, 3)), -1);
  assert.equal(b.dict.find("zebra", 0, 5, hashToken("zebra", 0, 5)), -2);
  assert.ok(b.dict.find("alpha5", 0, 6, hashToken("alpha5", 0, 6)) >= 0);
  assert.equal(b.dict.builtSlots, undefined);
  // Searches: by scans first (the same answers), then on the table, built on the way.
  const queries = [
    "alpha5 runbook",
    "BETA-3 delta’s",
    "beta_3",
    "delta's 17",
    "nothing here",
    "alp",
  ];
  for (let round = 0; round < 20; round++) {
    for (const query of queries) {
      const expected = index.search(query, { limit: 10, explain: true });
      assert.deepEqual(b.search(query, { limit: 10, explain: true }), expected, query);
    }
  }
  assert.ok(b.dict.builtSlots, "built after the scans");
  assert.equal(b.byteLength(), bytes, "counted alike before and after it is built");
  // An insert builds it at once.
  const c = new Bm25Index();
  assert.equal(c.importSnapshot(lean, notes), true);
  const more = note("x1", "zebra alpha5 runbooks");
  index.add(more);
  c.add(more);
  assert.ok(c.dict.builtSlots);
  assert.deepEqual(
    c.search("zebra alpha5", { limit: 10 }),
    index.search("zebra alpha5", { limit: 10 }),
  );
});

Deno.test("byteLength() grows with the notes and counts an imported snapshot's buffer once", () => {
  const small = indexOf([note("a", "one two")]);
  const notes = Array.from({ length: 2000 }, (_, i) => note(`n${i}`, `word${i} shared text ${i}`));
  const large = indexOf(notes);
  large.flush();
  assert.ok(large.byteLength() > small.byteLength());
  const snapshot = large.exportSnapshot()!;
  let total = 0;
  const padded = (n: number) => (n + 3) & ~3;
  for (const a of Object.values(snapshot.arrays)) total += padded(a.byteLength);
  // One buffer holding every array, as a decoded snapshot file does.
  const buffer = new ArrayBuffer(total);
  let at = 0;
  const arrays: Record<string, Int32Array | Uint16Array> = {};
  for (const [name, a] of Object.entries(snapshot.arrays)) {
    const view = a instanceof Int32Array
      ? new Int32Array(buffer, at, a.length)
      : new Uint16Array(buffer, at, a.length);
    view.set(a as never);
    arrays[name] = view;
    at += padded(a.byteLength);
  }
  const copy = createLexicalIndex();
  assert.ok(copy.importSnapshot({ ...snapshot, arrays }, notes));
  const bytes = copy.byteLength();
  // The snapshot once (a view counted per view of its buffer would count it 20 times), and
  // no more than the index it was taken of, whose arrays have room to grow.
  assert.ok(bytes >= total && bytes <= large.byteLength(), `${bytes} for a ${total}-byte snapshot`);
  const empty = createLexicalIndex().byteLength();
  assert.ok(empty < 300_000, `an empty index holds ${empty} bytes`);
});

Deno.test("a CJK query of two characters does not complete its last one as a prefix", () => {
  const index = indexOf([note("a", "東京タワー"), note("b", "京都の寺")]);
  const [, kyoto] = index.search("東京", { limit: 5, explain: true });
  assert.equal(kyoto.id, "b");
  // b shares the character 京 with the query; "京都" is no completion of the word "東京".
  assert.deepEqual(
    kyoto.explain!.filter((c) => c.indexTerm !== undefined).map((c) => c.indexTerm),
    [],
  );
});
