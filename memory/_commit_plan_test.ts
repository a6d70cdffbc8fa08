import assert from "node:assert/strict";
import { planCommit, prepareDrafts } from "./_commit_plan.ts";
import { MemoryValidationError } from "./errors.ts";
import { NOTE_ID_PATTERN } from "./note.ts";

Deno.test("prepareDrafts() keeps or normalises times as Date.prototype.toISOString() does", async (t) => {
  const times = [
    "2024-01-01T00:00:00.000Z",
    "2024-02-28T23:59:59.999Z",
    "2024-02-29T12:00:00.000Z",
    "2023-02-29T12:00:00.000Z",
    "2024-02-30T00:00:00.000Z",
    "2024-12-31T24:00:00.000Z",
    "2024-01-01",
    "2024-01-01T00:00:00Z",
    "2024-01-01T01:00:00.000+01:00",
    "0000-01-01T00:00:00.000Z",
    "+010000-01-01T00:00:00.000Z",
    "2024-13-01T00:00:00.000Z",
    "2024-00-10T00:00:00.000Z",
    "2024-01-01T00:60:00.000Z",
    "2024-01-01T00:00:00.000z",
    "not a time",
  ];
  for (const time of times) {
    await t.step(time, () => {
      const ms = Date.parse(time);
      const draft = { text: "x", created: time, updated: time };
      if (Number.isNaN(ms)) {
        assert.throws(() => prepareDrafts({ notes: [draft] }), MemoryValidationError);
      } else {
        const [prepared] = prepareDrafts({ notes: [draft] });
        assert.equal(prepared.created, new Date(ms).toISOString());
        assert.equal(prepared.updated, new Date(ms).toISOString());
      }
    });
  }
});

Deno.test("planCommit() gives every new note of a large batch its own well-formed id", () => {
  const drafts = prepareDrafts({
    notes: Array.from({ length: 5000 }, (_, i) => ({ text: `note ${i}` })),
  });
  const store = { has: () => false, findIdentity: () => undefined };
  const now = new Date("2025-01-01T00:00:00.000Z");
  const ids = [
    ...planCommit(store, drafts, now).written,
    ...planCommit(store, drafts, now).written,
  ].map((n) => n.id);
  assert.equal(new Set(ids).size, 10_000);
  for (const id of ids) {
    assert.match(id, NOTE_ID_PATTERN);
    assert.equal(id.length, 20);
    assert.equal(id.slice(0, 10), ids[0].slice(0, 10), "the time part is the same in one ms");
  }
});

Deno.test("planCommit() keeps one draft per identity, at its first place, the last one winning", () => {
  const drafts = prepareDrafts({
    notes: [
      { text: "a", source: "s:1" },
      { text: "same" },
      { text: "b", source: "s:2" },
      { text: "a2", source: "s:1" },
      { text: "same" },
    ],
  });
  const plan = planCommit({ has: () => false, findIdentity: () => undefined }, drafts, new Date());
  assert.deepEqual(plan.written.map((n) => n.body), ["a2", "same", "b"]);
});
