import assert from "node:assert/strict";
import { parseServerMemory } from "./server_memory.ts";

const lines = (...objects: unknown[]) => objects.map((o) => JSON.stringify(o)).join("\n");

Deno.test("parseServerMemory() makes one note per entity with its relations", () => {
  const text = lines(
    { type: "entity", name: "Bob", entityType: "person", observations: ["plays chess"] },
    {
      type: "entity",
      name: "Alice",
      entityType: "person",
      observations: ["likes tea", "two\nlines"],
    },
    { type: "entity", name: "Acme", entityType: "company", observations: [] },
    { type: "relation", from: "Alice", to: "Acme", relationType: "works_at" },
    { type: "relation", from: "Bob", to: "Alice", relationType: "knows" },
    { type: "relation", from: "Bob", to: "Alice", relationType: "knows" },
  );
  const { records, skipped } = parseServerMemory([{ file: "memory.jsonl", text }]);
  assert.deepEqual(skipped, []);
  assert.deepEqual(records.map((r) => [r.draft.title, r.line]), [["Bob", 1], ["Alice", 2], [
    "Acme",
    3,
  ]]);
  assert.deepEqual(records[1].draft, {
    title: "Alice",
    text: "- likes tea\n- two\n  lines\n\nRelations:\n- Alice works_at Acme\n- Bob knows Alice",
    labels: ["person"],
    source: "server-memory:Alice",
  });
  assert.equal(records[2].draft.text, "Relations:\n- Alice works_at Acme");
});

Deno.test("parseServerMemory() merges an entity named twice, across files", () => {
  const a = lines({ type: "entity", name: "Al", entityType: "person", observations: ["x", "y"] });
  const b = lines({ type: "entity", name: "Al", entityType: "other", observations: ["y", "z"] });
  const { records } = parseServerMemory([{ file: "a.jsonl", text: a }, {
    file: "b.jsonl",
    text: b,
  }]);
  assert.equal(records.length, 1);
  assert.deepEqual(records[0].draft.text, "- x\n- y\n- z");
  assert.deepEqual(records[0].draft.labels, ["person"]);
});

Deno.test("parseServerMemory() skips malformed lines", () => {
  const text = [
    "{bad",
    JSON.stringify({ type: "entity", name: "A", entityType: "t", observations: ["o"] }),
    JSON.stringify({ type: "thing" }),
    JSON.stringify({ type: "entity", entityType: "t" }),
    JSON.stringify({ type: "entity", name: "B", observations: "no" }),
  ].join("\n");
  const { records, skipped } = parseServerMemory([{ file: "m.jsonl", text }]);
  assert.deepEqual(records.map((r) => r.draft.title), ["A"]);
  assert.deepEqual(skipped.map((s) => s.line).sort(), [1, 3, 4, 5]);
  const reason = (line: number) => skipped.find((s) => s.line === line)?.reason;
  assert.equal(reason(1), "not valid JSON");
  assert.match(reason(3)!, /unknown "type"/);
  assert.match(reason(4)!, /"name"/);
  assert.match(reason(5)!, /observations/);
});

Deno.test("parseServerMemory() keeps a relation under the end that exists", () => {
  const text = lines(
    { type: "entity", name: "A", entityType: "t", observations: ["o"] },
    { type: "relation", from: "A", to: "Nobody", relationType: "knows" },
    { type: "relation", from: "Ghost", to: "A", relationType: "haunts" },
    { type: "relation", from: "Ghost", to: "Nobody", relationType: "r" },
    { type: "relation", from: "Ghost", to: "Ghost", relationType: "r" },
  );
  const { records, skipped } = parseServerMemory([{ file: "m.jsonl", text }]);
  assert.deepEqual(records.map((r) => [r.draft.title, r.draft.text]), [
    ["A", "- o\n\nRelations:\n- A knows Nobody\n- Ghost haunts A"],
  ]);
  assert.deepEqual(skipped, [
    { file: "m.jsonl", line: 4, reason: 'relation names no known entity: "Ghost" and "Nobody"' },
    { file: "m.jsonl", line: 5, reason: 'relation names no known entity: "Ghost"' },
  ]);
});

Deno.test("parseServerMemory() makes a note of an entity with nothing to say", () => {
  const text = lines(
    { type: "entity", name: "Empty", entityType: "t", observations: [] },
    { type: "entity", name: "Bare", entityType: "t" },
  );
  const { records, skipped } = parseServerMemory([{ file: "m.jsonl", text }]);
  assert.deepEqual(skipped, []);
  assert.deepEqual(records.map((r) => [r.draft.title, r.draft.text, r.line]), [
    ["Empty", "(no observations)", 1],
    ["Bare", "(no observations)", 2],
  ]);
});
