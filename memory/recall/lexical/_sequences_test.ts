import assert from "node:assert/strict";
import type { Note } from "../../notes/note.ts";
import { Feedback } from "./_feedback.ts";
import { HitCollector } from "./_proximity.ts";
import {
  FIELD_GAP,
  MAX_FEEDBACK_CHARS,
  MAX_RESCAN_CHARS,
  SequenceReader,
  SequenceStore,
  SequenceWriter,
} from "./_sequences.ts";
import type { TermDictionary } from "./_terms.ts";
import { Bm25Index } from "./lexical.ts";
import { scanTokens } from "../text/tokenizer.ts";

/** The terms and positions of a note as the general scanner cuts them (the reference). */
function scanned(note: Note, dict: TermDictionary, bodyChars: number): [number, number][] {
  const out: [number, number][] = [];
  const sink = (
    src: string,
    start: number,
    end: number,
    position: number,
    _k: number,
    h: number,
  ) => {
    const t = dict.lookup(src, start, end, h);
    if (t >= 0) out.push([t, position]);
  };
  let position = scanTokens(note.title, sink, 0) + FIELD_GAP;
  position = scanTokens(note.body.slice(0, bodyChars), sink, position) + FIELD_GAP;
  for (const label of note.labels) position = scanTokens(label, sink, position) + FIELD_GAP;
  return out;
}

function stored(index: Bm25Index, doc: number): [number, number][] {
  const reader = new SequenceReader();
  index.sequences.open(doc, reader);
  const out: [number, number][] = [];
  while (reader.next()) out.push([reader.term, reader.position]);
  return out;
}

const PIECES = [
  "The",
  "quick",
  "fox's",
  "rateLimit",
  "rate_limit",
  "rate-limit",
  "HTTPServer",
  "don't",
  "Don’t",
  "café",
  "naïve",
  "東京タワー",
  "🚀",
  "v1.2.3",
  "x".repeat(70),
  "—",
  "'quoted'",
  "__init__",
  "Zoë's",
  "a_b_c_d_e_f_g_h_i_j",
  "Привет",
  "of",
  "and",
  "\n",
];

function randomText(random: () => number, words: number): string {
  let text = "";
  for (let i = 0; i < words; i++) {
    text += PIECES[Math.floor(random() * PIECES.length)] +
      [" ", ", ", "\n", "", "-"][Math.floor(random() * 5)];
  }
  return text;
}

function note(id: string, title: string, body: string, labels: string[] = []): Note {
  return { id, title, body, labels, hash: id, created: "", updated: "" };
}

Deno.test("Bm25Index.add() stores the terms and positions the general scanner gives", () => {
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const index = new Bm25Index();
  const notes: Note[] = [];
  for (let i = 0; i < 200; i++) {
    const labels = Array.from({ length: Math.floor(random() * 3) }, () => randomText(random, 2));
    notes.push(note(`n${i}`, randomText(random, 5), randomText(random, 40), labels));
  }
  for (const n of notes) index.add(n);
  for (let doc = 0; doc < notes.length; doc++) {
    assert.deepEqual(stored(index, doc), scanned(notes[doc], index.dict, Infinity), `doc ${doc}`);
  }
});

Deno.test("Bm25Index.add() records a long body up to its cut, and feedback's part of it", () => {
  const index = new Bm25Index();
  const word = "alpha beta ";
  const body = word.repeat(Math.ceil(40_000 / word.length));
  const n = note("long", "Title words", body, ["label one"]);
  index.add(n);
  const have = stored(index, 0);
  const want = scanned(n, index.dict, MAX_RESCAN_CHARS);
  assert.deepEqual(have, want);
  // Feedback reads the title, the body's first MAX_FEEDBACK_CHARS characters and the labels.
  const title = 2;
  const bodyTerms = MAX_FEEDBACK_CHARS / word.length * 2;
  assert.equal(index.sequences.feedbackHead[0], title + Math.ceil(bodyTerms));
  assert.equal(index.sequences.feedbackTail[0], have.length - 2);
});

Deno.test("SequenceWriter escapes large steps and term ids", () => {
  const w = new SequenceWriter();
  const entries: [number, number][] = [[5, 0], [1 << 24, 3], [6, 1000], [7, 993], [8, 993]];
  for (const [t, p] of entries) w.push(t, p);
  const store = new SequenceStore();
  store.set(3, w, 1, 4);
  const r = new SequenceReader();
  store.open(3, r);
  const out: [number, number][] = [];
  while (r.next()) out.push([r.term, r.position]);
  assert.deepEqual(out, entries);
  assert.equal(store.has(2), false);
  store.delete(3);
  assert.equal(store.has(3), false);
});

Deno.test("SequenceStore.compact() keeps the mapped docs under their new numbers", () => {
  const store = new SequenceStore();
  const w = new SequenceWriter();
  for (let doc = 0; doc < 3000; doc++) {
    w.reset();
    for (let k = 0; k < 500; k++) w.push(doc, k); // several chunks
    store.set(doc, w, doc, doc + 1);
  }
  const remap = Int32Array.from({ length: 3000 }, (_, d) => d % 2 ? (d - 1) / 2 : -1);
  store.compact(remap);
  const r = new SequenceReader();
  for (let doc = 0; doc < 1500; doc++) {
    store.open(doc, r);
    assert.ok(r.next());
    assert.equal(r.term, 2 * doc + 1);
    assert.equal(store.feedbackHead[doc], 2 * doc + 1);
  }
  assert.equal(store.has(1500), false);
});

Deno.test("HitCollector.collect() orders hits by position, scan order on ties", () => {
  const index = new Bm25Index();
  index.add(note("a", "rate", "the rate_limit and rateLimit, limit rate"));
  const rate = index.dict.termId("rate");
  const limit = index.dict.termId("limit");
  const joined = index.dict.termId("ratelimit");
  const slot = new Int32Array(index.dict.size).fill(-1);
  slot[rate] = 0;
  slot[limit] = 1;
  slot[joined] = 2;
  const hits = new HitCollector().collect(index.sequences, 0, slot);
  const got = Array.from({ length: hits.count }, (_, i) => [hits.terms[i], hits.positions[i]]);
  // title "rate" at 0; body from 65: rate 66, joined 66, limit 67, ...
  assert.deepEqual(got, [[0, 0], [0, 66], [2, 66], [1, 67], [0, 69], [2, 69], [1, 70], [1, 71], [
    0,
    72,
  ]]);
});

Deno.test("Feedback.terms() weighs the terms of the first-pass notes", () => {
  const index = new Bm25Index();
  index.add(note("a", "", "pottery class bowl bowl"));
  index.add(note("b", "", "pottery bowl glaze"));
  index.add(note("c", "", "glaze kiln bowl"));
  const pottery = index.dict.termId("potteri");
  const picked = new Feedback().terms(
    index.sequences,
    [{ doc: 0, score: 2 }, { doc: 1, score: 1 }],
    (id) => id === pottery,
    (id) => index.df[id],
    index.size,
    { terms: 5, weight: 0.5 },
  );
  // class is in one note only; bowl outweighs glaze.
  assert.deepEqual(picked.map((p) => index.dict.term(p.id)), ["bowl", "glaze"]);
  assert.equal(picked[0].weight, 0.5);
  assert.ok(picked[1].weight < 0.5);
});

Deno.test("Bm25Index.add() writes sequences in place and across chunks alike", () => {
  const index = new Bm25Index();
  const notes: Note[] = [];
  for (let i = 0; i < 240; i++) {
    // About 4,500 terms each: a chunk of 2^20 ints holds some 230 of them.
    const body = Array.from({ length: 4500 }, (_, k) => `w${(k * 7 + i) % 997}`).join(" ");
    notes.push(note(`n${i}`, `title ${i}`, body, [`l${i % 3}`]));
  }
  for (const n of notes) index.add(n);
  assert.ok(index.sequences.chunks.length >= 2);
  for (const doc of [0, 1, 200, 225, 226, 227, 228, 229, 230, 231, 239]) {
    assert.deepEqual(stored(index, doc), scanned(notes[doc], index.dict, Infinity), `doc ${doc}`);
  }
});
