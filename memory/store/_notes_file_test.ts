import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { readNotes } from "./_notes_file.ts";
import { encodePieces } from "./_notes_write.ts";

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

Deno.test("readNotes() hashes what it reads, and the bytes before a mark where a section starts", async (t) => {
  // Small notes (one piece), and notes of 30 to 210 KB (a read of several 1 MB pieces).
  for (const size of [1, 3_000]) {
    await t.step(`bodies of ${size * 10} bytes and more`, () => hashedRead(size));
  }
});

async function hashedRead(size: number) {
  const dir = await Deno.makeTempDir();
  try {
    const notesPath = join(dir, "notes.md");
    const lockPath = `${notesPath}.lock`;
    const note = (i: number) =>
      `<!-- memo:note {"id":"n${i}"} -->\n## Note ${i}\n${
        "body café ".repeat(size * (i % 7 + 1))
      }\n\n`;
    const preamble = "# Memory\n\n";
    const sections = Array.from({ length: 40 }, (_, i) => note(i));
    const text = preamble + sections.join("");
    await Deno.writeTextFile(notesPath, text);
    const bytes = new TextEncoder().encode(text);
    const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
    const at = (i: number) =>
      new TextEncoder().encode(preamble + sections.slice(0, i).join("")).length;

    const plain = await readNotes({ notesPath, lockPath, locked: false });
    assert.ok(typeof plain !== "string");
    assert.equal(plain.sha256, undefined, "no hash unless asked");

    for (
      const [name, mark, expected] of [
        ["a section start", at(17), at(17)],
        ["the end of the file", bytes.length, bytes.length],
        ["the first section's start", at(0), at(0)],
        ["inside a body", at(17) + 5, undefined],
        ["a line start that is not a marker", at(18) - 1, undefined],
        ["past the end", bytes.length + 1, undefined],
        ["nothing asked", undefined, undefined],
      ] as const
    ) {
      const read = await readNotes({ notesPath, lockPath, locked: false, hash: true, mark });
      assert.ok(typeof read !== "string", name);
      assert.equal(read.chunks.join(""), text, name);
      assert.equal(read.sha256, sha(bytes), name);
      if (expected === undefined) {
        assert.equal(read.marked, undefined, name);
        continue;
      }
      assert.equal(read.marked?.bytes, expected, name);
      assert.equal(read.marked?.sha256, sha(bytes.subarray(0, expected)), name);
      const before = read.chunks.slice(0, read.marked?.chunks).join("");
      assert.equal(new TextEncoder().encode(before).length, expected, `${name}: cut at the mark`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
