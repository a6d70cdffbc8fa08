import assert from "node:assert/strict";
import {
  escapeBody,
  formatNoteMarker,
  NOTES_PREAMBLE,
  serializeNote,
  unescapeBody,
} from "./codec.ts";
import { parseNotes } from "./parse.ts";
import { contentHash, type Note } from "../notes/note.ts";

const T = "2025-01-02T03:04:05.000Z";

function note(id: string, body: string, extra: Partial<Note> = {}): Note {
  const title = extra.title ?? `Title ${id}`;
  const labels = extra.labels ?? [];
  const n: Note = {
    id,
    title,
    body,
    labels,
    hash: contentHash({ title, body, labels }),
    created: T,
    updated: T,
  };
  if (extra.source) n.source = extra.source;
  return n;
}

const hostileBodies: [string, string][] = [
  ["a marker line", '<!-- memo:note {"id":"zz","hash":"00000000"} -->'],
  ["a marker line in the middle", 'a\n<!-- memo:note {"id":"zz"} -->\n## fake\nb'],
  ["a marker as the last line", "text\n<!-- memo:note"],
  ["an already escaped marker", "\\<!-- memo:note {} -->"],
  ["a doubly escaped marker", "x\n\\\\<!-- memo:note {} -->\ny"],
  ["another memo comment", "<!-- memo:other -->"],
  ["a marker after a bare CR", "a\r<!-- memo:note {} -->"],
  ["CRLF lines", "line one\r\nline two\r\n\r\nline four"],
  ["a trailing CR", "ends with cr\r"],
  ["CRLF with a trailing CRLF", "a\r\nb\r\n"],
  ["emoji and non-BMP text", "🎉 party 𝕏 \u{10FFFF} \u{1F9D1}\u{200D}\u{1F4BB} 中文 עברית"],
  ["an empty body", ""],
  ["only line breaks", "\n\n\n"],
  ["a trailing line break", "text\n"],
  ["two trailing line breaks", "text\n\n"],
  ["a leading blank line", "\ntext"],
  ["a heading like a title", "## not a title\n# h1"],
  ["a comment closer", "--> and --!> here"],
  ["U+2028 and NUL", "a\u2028b\u0000c"],
  ["a 1 MB body", ("0123456789abcdef".repeat(64) + "\n").repeat(1000)],
];

Deno.test("serializeNote() and parseNotes() round-trip hostile bodies", async (t) => {
  for (const [name, body] of hostileBodies) {
    await t.step(name, () => {
      const n = note("a1", body);
      const text = serializeNote(n);
      const parsed = parseNotes(text);
      assert.deepEqual(parsed.issues, []);
      assert.equal(parsed.sections.length, 1);
      assert.deepEqual(parsed.sections[0].note, n);
      assert.equal(parsed.sections[0].raw, text);
    });
  }
  await t.step("all of them in one file, after the preamble", () => {
    const notes = hostileBodies.map(([, body], i) => note(`n${i}`, body));
    const text = NOTES_PREAMBLE + notes.map(serializeNote).join("");
    const parsed = parseNotes(text);
    assert.deepEqual(parsed.issues, []);
    assert.deepEqual(parsed.sections.slice(1).map((s) => s.note), notes);
    assert.equal(parsed.sections.map((s) => s.raw).join(""), text);
  });
});

Deno.test("serializeNote() keeps hostile labels, sources and titles inside the marker", () => {
  const n = note("a1", "body", {
    title: "<!-- memo:note {} --> title",
    labels: ["x-->y", "a--!>b", "\u2028", "日本"],
    source: "github:o/r/discussions/1-->",
  });
  const marker = formatNoteMarker(n);
  assert.equal(marker.indexOf("-->"), marker.length - 3);
  assert.ok(!marker.includes("--!>"));
  assert.ok(!marker.includes("\n"));
  assert.deepEqual(parseNotes(serializeNote(n)).sections[0].note, n);
});

Deno.test("escapeBody() adds and unescapeBody() removes one backslash per marker-like line", () => {
  const body = "<!-- memo:x\n\\<!-- memo:y\nok <!-- memo:z\n\\\\<!-- memo:note";
  const escaped = escapeBody(body);
  assert.equal(escaped, "\\<!-- memo:x\n\\\\<!-- memo:y\nok <!-- memo:z\n\\\\\\<!-- memo:note");
  assert.ok(!("\n" + escaped).includes("\n<!-- memo:"));
  assert.equal(unescapeBody(escaped), body);
  assert.equal(escapeBody("plain"), "plain");
});

Deno.test("parseNotes() keeps a hand-edited file byte for byte", () => {
  const a = note("aa", "first body");
  const b = note("bb", "second body", { labels: ["x"], source: "notion:page/1" });
  const c = note("cc", "third body");
  const crlf = serializeNote(c).replace(/\n/g, "\r\n");
  const text = "# My memory\r\n\r\nkept as written\n\n" +
    serializeNote(b) + // reordered: b before a
    serializeNote(a).replace("first body", "first body, edited by hand") +
    "a paragraph typed between notes\n\n" +
    crlf +
    serializeNote(note("dd", "last")).slice(0, -2); // no trailing blank line
  const parsed = parseNotes(text);
  assert.deepEqual(parsed.issues, []);
  assert.equal(parsed.sections.map((s) => s.raw).join(""), text);
  const notes = parsed.sections.flatMap((s) => s.note ? [s.note] : []);
  assert.deepEqual(notes.map((n) => n.id), ["bb", "aa", "cc", "dd"]);
  assert.deepEqual(notes[0], b);
  assert.equal(notes[1].body, "first body, edited by hand\n\na paragraph typed between notes");
  assert.equal(notes[1].hash, a.hash, "the stored hash is kept");
  assert.deepEqual(notes[2], c, "a CRLF section reads as the same note");
  assert.equal(notes[3].body, "last");
  assert.equal(parsed.sections[0].raw, "# My memory\r\n\r\nkept as written\n\n");
});

Deno.test("parseNotes() reports a damaged note with its line and loads the notes around it", async (t) => {
  const before = serializeNote(note("aa", "one\ntwo"));
  const after = serializeNote(note("cc", "three"));
  const cases: [string, string, string][] = [
    ["bad marker JSON", '<!-- memo:note {"id":"bb", -->\n## t\nbody\n\n', "damaged-note"],
    [
      "a marker without id",
      '<!-- memo:note {"hash":"00000000"} -->\n## t\nbody\n\n',
      "damaged-note",
    ],
    ["an invalid id", '<!-- memo:note {"id":"Not Valid"} -->\n## t\nbody\n\n', "damaged-note"],
    [
      "labels not a list",
      '<!-- memo:note {"id":"bb","labels":"x"} -->\n## t\nb\n\n',
      "damaged-note",
    ],
    ["no title line", '<!-- memo:note {"id":"bb"} -->\nbody without title\n\n', "damaged-note"],
    ["an unclosed marker", '<!-- memo:note {"id":"bb"}\n## t\nbody\n\n', "damaged-note"],
    ["a duplicate id", serializeNote(note("aa", "again")), "duplicate-id"],
  ];
  for (const [name, damaged, kind] of cases) {
    await t.step(name, () => {
      const text = "# Memory\n\n" + before + damaged + after;
      const parsed = parseNotes(text);
      assert.equal(parsed.issues.length, 1);
      assert.equal(parsed.issues[0].kind, kind);
      assert.equal(parsed.issues[0].line, 8);
      assert.match(parsed.issues[0].message, /^Cannot /);
      const notes = parsed.sections.flatMap((s) => s.note ? [s.note] : []);
      assert.deepEqual(notes.map((n) => [n.id, n.body]), [["aa", "one\ntwo"], ["cc", "three"]]);
      assert.equal(parsed.sections.map((s) => s.raw).join(""), text);
    });
  }
});

Deno.test("parseNotes() fills in what a hand-written marker leaves out", () => {
  const text = '<!-- memo:note {"id":"hand"} -->\n## Written by hand\nbody\n';
  const n = parseNotes(text).sections[0].note!;
  assert.deepEqual(n.labels, []);
  assert.equal(n.hash, contentHash({ title: "Written by hand", body: "body", labels: [] }));
  assert.equal(n.created, "1970-01-01T00:00:00.000Z");
  assert.equal(n.updated, n.created);
});

Deno.test("parseNotes() reads pieces cut before markers like the whole text", () => {
  const notes = Array.from({ length: 50 }, (_, i) => note(`n${i}`, `body ${i}\n`.repeat(i)));
  const text = NOTES_PREAMBLE + notes.map(serializeNote).join("") + "<!-- memo:note broken\n";
  const cuts = [0];
  for (let i = 3; i < 51; i += 7) cuts.push(text.indexOf(`{"id":"n${i}"`) - 15);
  cuts.push(text.length);
  const pieces = cuts.slice(1).map((end, i) => text.slice(cuts[i], end));
  assert.equal(pieces.join(""), text);
  const whole = parseNotes(text);
  const split = parseNotes(pieces);
  assert.deepEqual(split, whole);
  assert.equal(whole.issues.length, 1);
  assert.equal(whole.issues[0].line, text.split("\n").length - 1);
});

Deno.test("parseNotes() handles a file with no markers and an empty file", () => {
  assert.deepEqual(parseNotes(""), { sections: [], issues: [], byId: new Map() });
  assert.deepEqual(parseNotes("just text\n"), {
    sections: [{ raw: "just text\n" }],
    issues: [],
    byId: new Map(),
  });
});

Deno.test("parseNotes() is linear in the size of the file", () => {
  // 200,000 lines in one body and 20,000 small notes: a quadratic scan would take minutes.
  const big = note("big", "line\n".repeat(200_000));
  const many = Array.from({ length: 20_000 }, (_, i) => serializeNote(note(`m${i}`, "x"))).join("");
  const start = performance.now();
  const parsed = parseNotes(serializeNote(big) + many);
  assert.equal(parsed.sections.length, 20_001);
  // Well under a second here; 30 s holds on a loaded machine and still fails a quadratic scan.
  assert.ok(performance.now() - start < 30_000);
});

Deno.test("parseNotes() skips blank lines a person left between a marker and its title", () => {
  const text = '<!-- memo:note {"id":"aa","labels":[]} -->\n\n## First\nBody one.\n\n' +
    '<!-- memo:note {"id":"bb"} -->\r\n\r\n\r\n## Second\r\nBody two.\r\n\r\n' +
    '<!-- memo:note {"id":"cc"} -->\n\nno title here\n\n';
  const parsed = parseNotes(text);
  const notes = parsed.sections.flatMap((s) => s.note ? [s.note] : []);
  assert.deepEqual(notes.map((n) => [n.id, n.title, n.body]), [
    ["aa", "First", "Body one."],
    ["bb", "Second", "Body two."],
  ]);
  assert.equal(parsed.issues.length, 1, "a marker followed by text that is not a title is damaged");
  assert.equal(parsed.sections.map((s) => s.raw).join(""), text, "kept byte for byte");
});
