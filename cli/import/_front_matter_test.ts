import assert from "node:assert/strict";
import { readFrontMatter } from "./_front_matter.ts";

Deno.test("readFrontMatter() reads the YAML subset", () => {
  const text = [
    "---",
    'title: "Weekly: review"',
    "tags: [work, 'a, b', \"c\"]",
    "aliases:",
    "  - one",
    "  - 'two'",
    "type: note # a comment",
    "# a comment line",
    "permalink: notes/weekly",
    "cssclasses:",
    "nested:",
    "  key: value",
    "summary: |",
    "  line one",
    "  line two",
    "empty: []",
    "---",
    "Body here",
  ].join("\n");
  const fm = readFrontMatter(text);
  assert.ok("data" in fm);
  assert.deepEqual(fm.data, {
    title: "Weekly: review",
    tags: ["work", "a, b", "c"],
    aliases: ["one", "two"],
    type: "note",
    permalink: "notes/weekly",
    cssclasses: null,
    nested: null,
    summary: "line one\nline two",
    empty: [],
  });
  assert.equal(fm.body, "Body here");
  assert.equal(fm.bodyLine, 18);
});

Deno.test("readFrontMatter() without front matter gives the whole text", () => {
  assert.deepEqual(readFrontMatter("# Hi\n---\n"), { data: {}, body: "# Hi\n---\n", bodyLine: 1 });
});

Deno.test("readFrontMatter() reports what it cannot read, with the line", () => {
  assert.deepEqual(readFrontMatter("---\ntitle: x\n"), {
    error: "front matter has no closing --- line",
    line: 1,
  });
  const bad = (body: string) => readFrontMatter(`---\ntitle: ok\n${body}\n---\n`);
  assert.deepEqual(bad("just words"), {
    error: "cannot read front matter line: just words",
    line: 3,
  });
  assert.deepEqual(bad('t: "open'), { error: "front matter string has no closing quote", line: 3 });
  assert.deepEqual(bad("tags: [a, b"), { error: "front matter list has no closing ]", line: 3 });
});
