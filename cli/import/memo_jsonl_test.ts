import assert from "node:assert/strict";
import { contentHash } from "@memo/memory";
import { parseMemoJsonl } from "./memo_jsonl.ts";

const note = {
  id: "01jq3v7k9x0000000000",
  title: "Deploys",
  body: "Run make deploy",
  labels: ["ops", "infra"],
  source: "github:acme/app/issues/1",
  hash: contentHash({ title: "Deploys", body: "Run make deploy", labels: ["ops", "infra"] }),
  created: "2026-01-01T00:00:00.000Z",
  updated: "2026-01-02T00:00:00.000Z",
};

Deno.test("parseMemoJsonl() keeps ids, sources and times, ignores extra keys", () => {
  const text = JSON.stringify({ ...note, extra: 1 }) + "\r\n\r\n" +
    JSON.stringify({ ...note, id: "b2", source: undefined }) + "\n";
  const { records, skipped } = parseMemoJsonl(text, "x.jsonl");
  assert.deepEqual(skipped, []);
  assert.deepEqual(records[0], {
    file: "x.jsonl",
    line: 1,
    draft: {
      id: note.id,
      title: "Deploys",
      text: "Run make deploy",
      labels: ["ops", "infra"],
      source: note.source,
      created: note.created,
      updated: note.updated,
    },
  });
  assert.equal(records[1].line, 3);
  assert.equal(records[1].draft.source, undefined);
});

Deno.test("parseMemoJsonl() skips bad lines with their line and reason", () => {
  const lines = [
    "[1]",
    "{nope",
    JSON.stringify({ ...note, title: undefined }),
    JSON.stringify({ ...note, labels: "ops" }),
    JSON.stringify({ ...note, body: "changed" }),
    JSON.stringify({ ...note, id: "Bad Id" }),
    JSON.stringify({ ...note, created: "yesterday" }),
    JSON.stringify(note),
  ];
  const { records, skipped } = parseMemoJsonl(lines.join("\n"), "x.jsonl");
  assert.deepEqual(records.map((r) => r.line), [8]);
  assert.deepEqual(skipped.map((s) => s.line), [1, 2, 3, 4, 5, 6, 7]);
  assert.equal(skipped[0].reason, "not a JSON object");
  assert.equal(skipped[1].reason, "not valid JSON");
  assert.equal(skipped[2].reason, '"title" is missing or not a string');
  assert.equal(skipped[3].reason, '"labels" is missing or not a list of strings');
  assert.equal(skipped[4].reason, "hash does not match the content");
  assert.match(skipped[5].reason, /^Cannot store note: id must be 1 to 64 lower-case letters/);
  assert.equal(skipped[6].reason, "Cannot store note: created must be an ISO 8601 time");
});
