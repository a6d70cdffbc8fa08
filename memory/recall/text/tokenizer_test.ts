import assert from "node:assert/strict";
import {
  foldText,
  hashToken,
  scanTokens,
  TOKEN_CJK,
  TOKEN_CJK_PAIR,
  TOKEN_EMOJI,
  TOKEN_JOINED,
  TOKEN_PART,
  TOKEN_WORD,
  tokenize,
  tokenText,
} from "./tokenizer.ts";

const words = (text: string) => tokenize(text).map((t) => t.text);

Deno.test("tokenize() folds case and diacritics", async (t) => {
  const table: [string, string[]][] = [
    ["Hello WORLD", ["hello", "world"]],
    ["Crème Brûlée", ["creme", "brulee"]],
    ["naïve façade Zoë", ["naive", "facade", "zoe"]],
    ["e\u0301te\u0301", ["ete"]], // decomposed accents
    ["ＦＵＬＬ width", ["full", "width"]], // NFKD compatibility forms
    ["Straße", ["straße"]], // no decomposition: kept
    ["ПРИВЕТ мир", ["привет", "мир"]],
    ["𝐁old", ["bold"]], // mathematical bold, outside the BMP
  ];
  for (const [text, want] of table) {
    await t.step(text, () => assert.deepEqual(words(text), want));
  }
});

Deno.test("tokenize() splits identifiers into parts plus the joined form", async (t) => {
  const table: [string, string[]][] = [
    ["rate-limit", ["rate", "limit", "ratelimit"]],
    ["rate_limit", ["rate", "limit", "ratelimit"]],
    ["rateLimit", ["rate", "limit", "ratelimit"]],
    ["RATE_LIMIT", ["rate", "limit", "ratelimit"]],
    ["HTTPServer", ["http", "server", "httpserver"]],
    ["parseJSONFile", ["parse", "json", "file", "parsejsonfile"]],
    ["utf8 ipv6", ["utf8", "ipv6"]], // letters and digits stay together
    ["2023-05-08", ["2023", "05", "08", "20230508"]],
    ["__init__", ["init"]],
    ["v1.2.3", ["v1", "2", "3"]],
  ];
  for (const [text, want] of table) {
    await t.step(text, () => assert.deepEqual(words(text), want));
  }
});

Deno.test("tokenize() keeps apostrophes inside words and drops a possessive 's", async (t) => {
  const table: [string, string[]][] = [
    ["don't", ["don't"]],
    ["Don’t", ["don't"]], // typographic apostrophe
    ["Caroline's book", ["caroline", "book"]],
    ["O'Neill", ["o'neill"]],
    ["'quoted'", ["quoted"]],
  ];
  for (const [text, want] of table) {
    await t.step(text, () => assert.deepEqual(words(text), want));
  }
});

Deno.test("tokenize() gives CJK characters and their pairs", () => {
  const tokens = tokenize("東京タワー");
  assert.deepEqual(
    tokens.map((t) => [t.text, t.kind]),
    [
      ["東", TOKEN_CJK],
      ["東京", TOKEN_CJK_PAIR],
      ["京", TOKEN_CJK],
      ["京タ", TOKEN_CJK_PAIR],
      ["タ", TOKEN_CJK],
      ["タワ", TOKEN_CJK_PAIR],
      ["ワ", TOKEN_CJK],
      ["ワー", TOKEN_CJK_PAIR],
      ["ー", TOKEN_CJK],
    ],
  );
  assert.deepEqual(words("서울 Seoul"), ["서", "서울", "울", "seoul"]); // Hangul stays composed
  assert.deepEqual(words("だ"), ["だ"]); // kana voicing marks are kept
});

Deno.test("tokenize() makes each emoji a token and skips their modifiers", () => {
  const tokens = tokenize("ship it 🚀❤️ 👍🏽!");
  assert.deepEqual(tokens.map((t) => t.text), ["ship", "it", "🚀", "❤", "👍"]);
  assert.deepEqual(tokens.slice(2).map((t) => t.kind), [TOKEN_EMOJI, TOKEN_EMOJI, TOKEN_EMOJI]);
});

Deno.test("tokenize() numbers positions, sharing them for joined forms", () => {
  const tokens = tokenize("the rate_limit hit");
  assert.deepEqual(
    tokens.map((t) => [t.text, t.position, t.kind]),
    [
      ["the", 0, TOKEN_WORD],
      ["rate", 1, TOKEN_PART],
      ["limit", 2, TOKEN_PART],
      ["ratelimit", 1, TOKEN_JOINED],
      ["hit", 3, TOKEN_WORD],
    ],
  );
});

Deno.test("tokenize() skips tokens longer than 64 units and handles empty text", () => {
  assert.deepEqual(words("x".repeat(65) + " ok " + "y".repeat(64)), ["ok", "y".repeat(64)]);
  assert.deepEqual(words(""), []);
  assert.deepEqual(words(" \n\t—!?"), []);
});

Deno.test("scanTokens() hands the sink the hash of each token's spelling", () => {
  const text = "Rate_Limit don’t Café 東京 🚀 plain";
  let count = 0;
  scanTokens(text, (src, start, end, _position, _kind, hash) => {
    const spelled = tokenText(src, start, end);
    assert.equal(hash, hashToken(spelled, 0, spelled.length), spelled);
    count++;
  });
  assert.equal(count, 10);
});

Deno.test("foldText() folds like the tokenizer", () => {
  assert.equal(foldText("Crème BRÛLÉE"), "creme brulee");
  assert.equal(foldText("서울"), "서울");
});
