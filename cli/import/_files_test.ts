import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeUtf8, keyPart, walkFiles } from "./_files.ts";

Deno.test("decodeUtf8() gives the text, or the line of the first bad byte", () => {
  const enc = new TextEncoder();
  assert.deepEqual(decodeUtf8(enc.encode("\ufeffhé\nllo")), { text: "hé\nllo" });
  const bad = new Uint8Array([...enc.encode("a\nbé\nc"), 0xff, ...enc.encode("\nd")]);
  assert.deepEqual(decodeUtf8(bad), { badLine: 3 });
  // A truncated sequence at the end, an overlong form and a surrogate are bad too.
  assert.deepEqual(decodeUtf8(new Uint8Array([0x61, 0x0a, 0xe2, 0x82])), { badLine: 2 });
  assert.deepEqual(decodeUtf8(new Uint8Array([0xc0, 0x80])), { badLine: 1 });
  assert.deepEqual(decodeUtf8(new Uint8Array([0x0a, 0x0a, 0xc0, 0x80])), { badLine: 3 });
  assert.deepEqual(decodeUtf8(new Uint8Array([0x41, 0xed, 0xa0, 0x80])), { badLine: 1 });
  assert.deepEqual(decodeUtf8(new Uint8Array([0x41, 0x0a, 0x41, 0xed, 0xa0, 0x80])), {
    badLine: 2,
  });
  // A sequence cut by a line break is bad on the line where it starts.
  assert.deepEqual(decodeUtf8(new Uint8Array([0x61, 0xe2, 0x0a, 0x82, 0xac])), { badLine: 1 });
  assert.deepEqual(decodeUtf8(enc.encode("ok 🎉")), { text: "ok 🎉" });
});

Deno.test("walkFiles() lists files sorted, skipping dot-folders and node_modules", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memo-walk-"));
  try {
    for (const d of ["b", "a/c", ".obsidian", "node_modules/x"]) {
      await mkdir(join(dir, d), { recursive: true });
    }
    for (
      const f of [
        "b/z.md",
        "a/c/y.md",
        "a/x.md",
        ".obsidian/w.md",
        "node_modules/x/v.md",
        "a/t.txt",
      ]
    ) {
      await writeFile(join(dir, f), "x");
    }
    const files = await walkFiles(dir, { file: (n) => n.endsWith(".md") });
    assert.deepEqual(files, ["a/c/y.md", "a/x.md", "b/z.md"]);
  } finally {
    await rm(dir, { recursive: true });
  }
});

Deno.test("keyPart() percent-encodes white space and %", () => {
  assert.equal(keyPart("John Smith 100%\tok"), "John%20Smith%20100%25%09ok");
});
