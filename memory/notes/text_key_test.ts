import assert from "node:assert/strict";
import { normalizeNoteText } from "./note.ts";
import { textKey } from "./text_key.ts";

Deno.test("textKey() agrees with normalizeNoteText on every ASCII character and random texts", () => {
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    for (const text of [`a${ch}b`, `${ch}5`, `x ${ch}5`, `${ch}`, `A${ch}${ch}-7 Z`]) {
      assert.equal(
        textKey(text) === textKey(normalizeNoteText(text)),
        true,
        `text ${JSON.stringify(text)}`,
      );
    }
  }
  const alphabet = "aZ09 -_.,!?$+%\t\n(`)";
  let seed = 7;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  for (let i = 0; i < 2000; i++) {
    let text = "";
    for (let k = rand(12); k > 0; k--) text += alphabet[rand(alphabet.length)];
    assert.equal(textKey(text), textKey(normalizeNoteText(text)), JSON.stringify(text));
  }
});

Deno.test("textKey() keys texts that normalise differently apart, and non-ASCII text the slow way", () => {
  assert.notEqual(textKey("3.5 GB"), textKey("35 GB"));
  assert.notEqual(textKey("a-5"), textKey("a -5"));
  assert.equal(textKey("Crème  brûlée!"), textKey("crème brûlée"));
  assert.equal(textKey("\u0065\u0301"), textKey("\u00e9")); // NFC
});
