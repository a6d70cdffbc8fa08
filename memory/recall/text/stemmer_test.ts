import assert from "node:assert/strict";
import { analyzeToken, stemWord } from "./stemmer.ts";
import { ENGLISH_STOP_WORDS, isStopWord } from "./stopwords.ts";
import { IRREGULAR_FORMS } from "./irregular.ts";

Deno.test("stemWord() applies Porter2 to words of a–z only", async (t) => {
  const table: [string, string][] = [
    ["deployments", "deploy"],
    ["running", "run"],
    ["generously", "generous"],
    ["skies", "sky"],
    ["dying", "die"],
    ["ipv6", "ipv6"], // digits: kept
    ["o'neill", "o'neill"], // apostrophe: kept
    ["привет", "привет"], // other scripts: kept
    ["go", "go"], // two letters: kept
  ];
  for (const [word, stem] of table) {
    await t.step(word, () => assert.equal(stemWord(word), stem));
  }
});

Deno.test("analyzeToken() drops stop words and maps irregular forms to their base", async (t) => {
  const table: [string, string | undefined][] = [
    ["the", undefined],
    ["don't", undefined],
    ["a", undefined],
    ["went", "go"],
    ["bought", "buy"],
    ["children", "child"],
    ["rose", "rose"], // more often the flower: not mapped
    ["painted", "paint"],
  ];
  for (const [token, want] of table) {
    await t.step(token, () => assert.equal(analyzeToken(token, ENGLISH_STOP_WORDS), want));
  }
});

Deno.test("isStopWord() knows the Snowball list plus modal verbs", () => {
  for (const w of ["i", "the", "and", "will", "can", "might", "us", "wasn't"]) {
    assert.equal(isStopWord(w), true, w);
  }
  for (const w of ["deploy", "caroline", "rate", "limit", "dont"]) {
    assert.equal(isStopWord(w), false, w);
  }
  assert.equal(ENGLISH_STOP_WORDS.size, 168);
});

Deno.test("IRREGULAR_FORMS maps past forms, never a form to itself", () => {
  assert.equal(IRREGULAR_FORMS.get("ran"), "run");
  assert.equal(IRREGULAR_FORMS.get("met"), "meet");
  assert.equal(IRREGULAR_FORMS.has("ground"), false);
  for (const [form, base] of IRREGULAR_FORMS) assert.notEqual(form, base);
});
