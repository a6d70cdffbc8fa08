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

Deno.test("readNotes() decodes any bytes as TextDecoder does, each section of other text apart from the ASCII runs", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const notesPath = join(dir, "notes.md");
    const lockPath = `${notesPath}.lock`;
    const enc = new TextEncoder();
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    // Bodies of ASCII, other text, and bytes that are not UTF-8 (a lone continuation byte, a
    // sequence cut short at the section's end or before a line break, an invalid lead byte).
    const bodies: (string | number[])[] = [
      "plain words ",
      "café — naïve ",
      "🚀 日本語",
      [0x80, 0x41],
      [0x41, 0xe2, 0x82],
      [0xf0, 0x9f, 0x0a, 0x42],
      [0xff, 0xfe],
      "Größe ±5 %\r\nline",
    ];
    const section = (i: number): Uint8Array[] => {
      const body = bodies[rand(bodies.length)];
      const text = typeof body === "string"
        ? enc.encode(body.repeat(1 + rand(300)))
        : new Uint8Array(body);
      return [
        enc.encode(`<!-- memo:note {"id":"n${i}"} -->\n## Note ${i}\n`),
        text,
        enc.encode("\n\n"),
      ];
    };
    for (
      const [name, count, start, end] of [
        ["a BOM and other text before the first section", 12, [0xef, 0xbb, 0xbf, 0xc3], []],
        ["sections over several pieces", 1_500, [...enc.encode("# Memory\n\n")], []],
        ["a file that ends inside a sequence", 30, [], [...enc.encode("<!-- memo:note x\n"), 0xe2]],
      ] as const
    ) {
      const parts: Uint8Array[] = [new Uint8Array(start)];
      for (let i = 0; i < count; i++) parts.push(...section(i));
      parts.push(new Uint8Array(end));
      const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
      await Deno.writeFile(notesPath, bytes);
      const read = await readNotes({ notesPath, lockPath, locked: false });
      assert.ok(typeof read !== "string", name);
      const expected = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
      assert.equal(read.chunks.join(""), expected, name);
      for (const [i, chunk] of read.chunks.entries()) {
        if (i > 0) assert.ok(chunk.startsWith("<!-- memo:note"), `${name}: starts at a section`);
        // A piece holding other text than ASCII is one section.
        if ([...chunk].some((c) => c.charCodeAt(0) > 0x7f)) {
          assert.ok(!chunk.includes("\n<!-- memo:note"), `${name}: one section`);
        }
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
