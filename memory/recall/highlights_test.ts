import assert from "node:assert/strict";
import { createLexicalIndex } from "./lexical/lexical.ts";
import { highlightsOf, matchedIndexTerms } from "./highlights.ts";
import { tokenizeWithOffsets } from "./text/tokenizer.ts";

/** The highlighted words of a note for a query, as `field:text`, through a real index's explain. */
function marked(title: string, body: string, query: string): string[] {
  const index = createLexicalIndex();
  index.add({ id: "a", title, body, labels: [], hash: "", created: "", updated: "" });
  const [hit] = index.search(query, { limit: 1, explain: true });
  assert.ok(hit, `"${query}" finds the note`);
  const note = { title, body };
  const spans = highlightsOf(note, matchedIndexTerms(hit.explain ?? []));
  return spans.map((h) => `${h.field}:${note[h.field].slice(h.start, h.end)}`);
}

Deno.test("highlightsOf() marks the words whose stem the query matched", () => {
  assert.deepEqual(marked("Deploying the app", "We deployed it. Deployment done.", "deploys"), [
    "title:Deploying",
    "body:deployed",
    "body:Deployment",
  ]);
});

Deno.test("highlightsOf() marks each part of a split identifier", () => {
  assert.deepEqual(marked("Limits", "The rateLimit and rate_limit", "rate limit"), [
    "title:Limits",
    "body:rate",
    "body:Limit",
    "body:rate",
    "body:limit",
  ]);
  // A query for the joined form marks the whole identifier, once.
  assert.deepEqual(marked("", "The rateLimit is 5", "ratelimit"), ["body:rateLimit"]);
});

Deno.test("highlightsOf() finds folded diacritics and keeps the original spelling", () => {
  assert.deepEqual(marked("Café notes", "Crème brûlée at the CAFÉ", "cafe creme"), [
    "title:Café",
    "body:Crème",
    "body:CAFÉ",
  ]);
  // A decomposed é (e + U+0301) keeps its combining mark inside the span.
  assert.deepEqual(marked("", "Cafe\u0301 open", "cafe"), ["body:Cafe\u0301"]);
});

Deno.test("highlightsOf() marks a prefix match of the last query word", () => {
  assert.deepEqual(marked("Deploys", "make deploy runs", "deplo"), [
    "title:Deploys",
    "body:deploy",
  ]);
});

Deno.test("highlightsOf() never marks stop words", () => {
  assert.deepEqual(marked("The plan", "the plan is on the wiki", "the plan"), [
    "title:plan",
    "body:plan",
  ]);
  // Even when the caller passes one as a matched term.
  assert.deepEqual(highlightsOf({ title: "The plan", body: "" }, ["the"]), []);
});

Deno.test("highlightsOf() offsets are UTF-16 indices into the original text", () => {
  const title = "🚀🎉 Zoë's déploiement";
  const body = "👩‍👩‍👧 family 𝒳 then Café and 東京 deploy";
  assert.deepEqual(marked(title, body, "zoe cafe deploy"), [
    "title:Zoë",
    "body:Café",
    "body:deploy",
  ]);
  const note = { title, body };
  for (const h of highlightsOf(note, ["zoe", "cafe", "deploy"])) {
    assert.ok(h.start < h.end && h.end <= note[h.field].length);
  }
  assert.deepEqual(highlightsOf(note, ["cafe"]), [
    { field: "body", start: body.indexOf("Café"), end: body.indexOf("Café") + 4 },
  ]);
});

Deno.test("highlightsOf() sorts by field then start, with no overlap", () => {
  const note = { title: "rate_limit rate", body: "東京都 limit" };
  const spans = highlightsOf(note, ["ratelimit", "rate", "limit", "東京", "東"]);
  assert.deepEqual(spans, [
    { field: "title", start: 0, end: 10 },
    { field: "title", start: 11, end: 15 },
    { field: "body", start: 0, end: 2 },
    { field: "body", start: 4, end: 9 },
  ]);
  assert.deepEqual(highlightsOf(note, []), []);
});

Deno.test("matchedIndexTerms() leaves out feedback and proximity", () => {
  assert.deepEqual(
    [
      ...matchedIndexTerms([
        { term: "deploys", field: "title", score: 1, indexTerm: "deploy" },
        { term: "make", field: "body", score: 1 },
        { term: "vault", field: "labels", score: 1 },
        { term: "keys", field: "feedback", score: 1, indexTerm: "key" },
        { term: "make", field: "proximity", score: 1 },
      ]),
    ],
    ["deploy", "make", "vault"],
  );
});

Deno.test("tokenizeWithOffsets() gives the tokens of tokenize() with their source spans", () => {
  const text = "x 🚀 Ünïcödé_Wörd’s HTTPServer ﬁle 東京";
  const tokens = tokenizeWithOffsets(text);
  assert.deepEqual(tokens.map((t) => [t.text, text.slice(t.start, t.end)]), [
    ["x", "x"],
    ["🚀", "🚀"],
    ["unicode", "Ünïcödé"],
    ["word", "Wörd"],
    ["unicodeword", "Ünïcödé_Wörd"],
    ["http", "HTTP"],
    ["server", "Server"],
    ["httpserver", "HTTPServer"],
    ["file", "ﬁle"],
    ["東", "東"],
    ["東京", "東京"],
    ["京", "京"],
  ]);
});

Deno.test("tokenizeWithOffsets() cuts exactly as tokenize() does", async () => {
  const { tokenize } = await import("./text/tokenizer.ts");
  for (
    const text of [
      "İstanbul ΣΟΦΟΣ straße",
      "don’t Caroline's e\u0301te\u0301 ＦＵＬＬ",
      "ipv6 v2.3 a-b_c 한국어 ひらがな 🚀🚀",
      "x".repeat(70) + " ok",
    ]
  ) {
    const spanned = tokenizeWithOffsets(text);
    assert.deepEqual(
      spanned.map(({ text, position, kind }) => ({ text, position, kind })),
      tokenize(text),
    );
    for (const t of spanned) {
      assert.ok(0 <= t.start && t.start < t.end && t.end <= text.length, text);
    }
  }
});

Deno.test("a CJK query highlights its own characters, not the next one", () => {
  // "東京" is followed by the particle "の"; "会議" by "は". Neither is part of the query.
  assert.deepEqual(marked("東京の会議は月曜日です", "", "東京"), ["title:東京"]);
  assert.deepEqual(marked("東京の会議は月曜日です", "", "会議"), ["title:会議"]);
});
