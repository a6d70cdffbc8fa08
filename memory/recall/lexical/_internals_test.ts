import assert from "node:assert/strict";
import { NoteReader } from "./_indexer.ts";
import { PostingStore } from "./_postings.ts";
import { FILLS_BEFORE_ALL, PrefixBuckets } from "./_prefixes.ts";
import { TermDictionary } from "./_terms.ts";
import { TopK } from "./_topk.ts";
import { ENGLISH_STOP_WORDS } from "../text/stopwords.ts";
import { hashToken, scanTokens, TOKEN_CJK_PAIR, TOKEN_JOINED } from "../text/tokenizer.ts";
import { parseQuery } from "./_query.ts";

/** Term frequencies through the general scanner, for comparison with the fast path. */
function slowCounts(
  dict: TermDictionary,
  text: string,
): { tf: Map<number, number>; length: number } {
  const tf = new Map<number, number>();
  let length = 0;
  scanTokens(text, (src, start, end, _p, kind, hash) => {
    const t = dict.lookup(src, start, end, hash);
    if (t < 0) return;
    if (kind !== TOKEN_JOINED && kind !== TOKEN_CJK_PAIR) length++;
    tf.set(t, (tf.get(t) ?? 0) + 1);
  });
  return { tf, length };
}

Deno.test("NoteReader.field() counts exactly what the general scanner cuts", () => {
  const pieces = [
    "The",
    "quick",
    "brown",
    "fox's",
    "rateLimit",
    "rate_limit",
    "rate-limit",
    "HTTPServer",
    "don't",
    "Don’t",
    "café",
    "CAFÉ",
    "naïve",
    "東京タワー",
    "🚀",
    "❤️",
    "v1.2.3",
    "2023-05-08",
    "ipv6",
    "x".repeat(70),
    "ok",
    "—",
    "...",
    "'quoted'",
    "__init__",
    "Zoë's",
    "𝐁old",
    "a",
    "I",
    "Alpha9",
    "abcdefgh",
    "abcdefghi",
    "abcdefghijklmnop",
    "ABCDEFGHIJ",
    "e\u0301",
    "Привет",
    "\n",
    "?!",
  ];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const dict = new TermDictionary(ENGLISH_STOP_WORDS);
  const reader = new NoteReader(dict);
  dict.onNewTerm = (id) => reader.reserve(id + 1);
  for (let round = 0; round < 300; round++) {
    let text = "";
    const n = 1 + Math.floor(random() * 25);
    for (let i = 0; i < n; i++) {
      text += pieces[Math.floor(random() * pieces.length)] +
        [" ", ", ", "\n", "", "-"][Math.floor(random() * 5)];
    }
    reader.begin(true);
    const length = reader.field(text, 0, 0xffff);
    const fast = new Map<number, number>();
    for (let i = 0; i < reader.uniqueCount; i++) {
      fast.set(reader.unique[i], reader.tf[reader.unique[i]]);
    }
    const slow = slowCounts(dict, text);
    assert.deepEqual(fast, slow.tf, JSON.stringify(text));
    assert.equal(length, slow.length, JSON.stringify(text));
  }
  assert.ok(dict.size > 20);
});

Deno.test("NoteReader.field() saturates a field's count at its mask", () => {
  const dict = new TermDictionary(ENGLISH_STOP_WORDS);
  const reader = new NoteReader(dict);
  dict.onNewTerm = (id) => reader.reserve(id + 1);
  reader.begin(true);
  reader.field("word ".repeat(300), 16, 0xff);
  assert.equal(reader.uniqueCount, 1);
  assert.equal(reader.tf[reader.unique[0]], 0xff << 16);
});

Deno.test("TermDictionary interns tokens to stems and finds prefixes", () => {
  const dict = new TermDictionary(ENGLISH_STOP_WORDS);
  const a = dict.termOf("Deployments", 0, 11);
  assert.equal(dict.term(a), "deploy");
  assert.equal(dict.termOf("deployed", 0, 8), a);
  assert.equal(dict.termOf("the", 0, 3), -1);
  const b = dict.termOf("deplete", 0, 7);
  assert.deepEqual(dict.termsWithPrefix("depl").sort(), [a, b].sort());
  assert.deepEqual(dict.termsWithPrefix("d").sort(), [a, b].sort());
  assert.deepEqual(dict.termsWithPrefix("x"), []);
  assert.equal(dict.termId("deploy"), a);
  assert.equal(dict.termId("nothing"), -1);
  for (let i = 0; i < 5000; i++) dict.termOf(`w${i}x`, 0, `w${i}x`.length); // grows and rehashes
  assert.equal(dict.termOf("deployment", 0, 10), a);
  assert.equal(dict.term(dict.termId("w4999x")), "w4999x");
});

Deno.test("PostingStore merges its log and renumbers docs on flush", () => {
  const store = new PostingStore();
  store.append(1, 0, 5);
  store.append(0, 1, 6);
  store.append(1, 2, 7);
  const seen = (t: number) => {
    const out: number[][] = [];
    store.forEach(t, (d, tf) => out.push([d, tf]));
    return out;
  };
  assert.deepEqual(seen(1), [[0, 5], [2, 7]]);
  store.flush(2);
  assert.equal(store.pendingCount, 0);
  assert.equal(store.frozenCount, 3);
  store.append(1, 3, 8);
  assert.deepEqual(seen(1), [[0, 5], [2, 7], [3, 8]]);
  store.flush(3, Int32Array.from([0, -1, 1, 2]));
  assert.deepEqual(seen(0), []);
  assert.deepEqual(seen(1), [[0, 5], [1, 7], [2, 8]]);
  assert.deepEqual(seen(2), []);
});

Deno.test("TopK keeps the k best, ties by lower doc", () => {
  const top = new TopK(3);
  for (const [s, d] of [[1, 1], [5, 2], [3, 3], [5, 0], [2, 4], [0, 5]]) top.offer(s, d);
  assert.deepEqual(top.sorted().map((e) => e.doc), [0, 2, 3]);
  assert.equal(top.accepts(3, 9), false);
  assert.equal(top.accepts(3, 1), true);
  assert.deepEqual(new TopK(0).sorted(), []);
});

Deno.test("PostingStore keeps docs across log chunks and frames", () => {
  const store = new PostingStore();
  const terms = Int32Array.from([0, 1, 2]);
  const tf = Int32Array.from([1, 2, 3]);
  for (let doc = 0; doc < 30_000; doc++) store.appendDoc(doc, terms, 3, tf); // 90,000 pairs
  store.append(1, 30_000, 9);
  store.append(2, 30_000, 8);
  assert.equal(store.pendingCount, 90_002);
  const seen = (t: number) => {
    const out: number[][] = [];
    store.forEach(t, (d, f) => out.push([d, f]));
    return out;
  };
  const pending = seen(1);
  assert.equal(pending.length, 30_001);
  assert.deepEqual(pending.slice(-2), [[29_999, 2], [30_000, 9]]);
  store.flush(3);
  assert.deepEqual(seen(1), pending);
  assert.deepEqual(seen(2).slice(-1), [[30_000, 8]]);
});

Deno.test("TermDictionary.find() finds seen tokens without interning new ones", () => {
  const dict = new TermDictionary(ENGLISH_STOP_WORDS);
  const a = dict.termOf("Deployments", 0, 11);
  const h = (s: string) => hashToken(s, 0, s.length);
  assert.equal(dict.find("deployments", 0, 11, h("deployments")), a);
  assert.equal(dict.find("DEPLOYMENTS", 0, 11, h("DEPLOYMENTS")), a);
  dict.termOf("the", 0, 3);
  assert.equal(dict.find("the", 0, 3, h("the")), -1);
  assert.equal(dict.find("deploying", 0, 9, h("deploying")), -2);
  assert.equal(dict.tokenCount, 2);
});

Deno.test("parseQuery() gives the same terms whether or not the dictionary knows the words", () => {
  const dict = new TermDictionary(ENGLISH_STOP_WORDS);
  for (const w of ["deployments", "staging", "went", "rateLimit", "the"]) {
    scanTokens(w, (src, start, end, _p, _k, hash) => dict.lookup(src, start, end, hash));
  }
  const other = new Set(ENGLISH_STOP_WORDS); // a different set: the dictionary is not used
  for (
    const q of ["The deployment went to staging", "rate_limit deploy", "go stag", "unknown words"]
  ) {
    assert.deepEqual(parseQuery(q, dict, ENGLISH_STOP_WORDS), parseQuery(q, dict, other), q);
  }
});

Deno.test("PrefixBuckets.deferred: buckets filled when searched answer as buckets filled at once", () => {
  const letters = "abcdefghij";
  const terms: string[] = [];
  for (let i = 0; i < 3000; i++) {
    terms.push(
      letters[i % 10] + letters[Math.floor(i / 10) % 10] + letters[(i * 3) % 10] + String(i % 97),
    );
  }
  terms.push("x", "é1", "ab"); // one character, beyond ASCII, a bucket's own key
  const count = terms.length;
  const eager = new PrefixBuckets();
  terms.forEach((term, id) => eager.add(id, term));
  const lazy = PrefixBuckets.deferred(count);
  // Terms added after the deferred ones go in at once.
  for (const term of ["abzz", "aq1", "zz"]) {
    terms.push(term);
    eager.add(terms.length - 1, term);
    lazy.add(terms.length - 1, term);
  }
  const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
  const prefixes = ["ab", "abc", "aq", "é", "x", "zz", "q"];
  for (const a of letters) for (const b of letters) prefixes.push(a + b, a + b + "c1");
  assert.ok(prefixes.length > FILLS_BEFORE_ALL * 2, "past the fills one by one");
  for (const prefix of [...prefixes, ...prefixes]) {
    assert.deepEqual(
      sorted(lazy.withPrefix(prefix, terms)),
      sorted(eager.withPrefix(prefix, terms)),
      prefix,
    );
  }
  // A one-character prefix first fills every bucket.
  const first = terms.slice(0, count);
  const eager1 = new PrefixBuckets();
  first.forEach((term, id) => eager1.add(id, term));
  const lazy1 = PrefixBuckets.deferred(count);
  assert.deepEqual(sorted(lazy1.withPrefix("a", first)), sorted(eager1.withPrefix("a", first)));
  assert.deepEqual(sorted(lazy1.withPrefix("ab", first)), sorted(eager1.withPrefix("ab", first)));
  assert.ok(eager.withPrefix("ab", terms).length > 10);
});
