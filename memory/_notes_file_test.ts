import assert from "node:assert/strict";
import { encodePieces } from "./_notes_file.ts";

Deno.test("encodePieces() gives the UTF-8 of the joined pieces", async (t) => {
  const cases: [string, string[]][] = [
    ["nothing", []],
    ["empty pieces", ["", "", ""]],
    ["ASCII", ["abc", "def\n", "g"]],
    ["text that grows the buffer", ["a", "café — ✓", "日本語".repeat(1000), "z"]],
    ["surrogate pairs at every place", ["🎉", "x🎉", "🎉y".repeat(300), "\u{10FFFF}"]],
    ["a lone surrogate", ["a\ud800b", "\udc00"]],
  ];
  for (const [name, pieces] of cases) {
    await t.step(name, () => {
      assert.deepEqual(encodePieces(pieces), new TextEncoder().encode(pieces.join("")));
    });
  }
});
