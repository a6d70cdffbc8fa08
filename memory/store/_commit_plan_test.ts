import assert from "node:assert/strict";
import { patchNote, planCommit, prepareDrafts } from "./_commit_plan.ts";
import { MemoryValidationError } from "../errors.ts";
import { contentHash, type Note, NOTE_ID_PATTERN } from "../notes/note.ts";

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
  const store = { has: () => false, get: () => undefined, findIdentity: () => undefined };
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
  const plan = planCommit(
    { has: () => false, get: () => undefined, findIdentity: () => undefined },
    drafts,
    new Date(),
  );
  assert.deepEqual(plan.written.map((n) => n.body), ["a2", "same", "b"]);
});

Deno.test("patchNote() records the patch's updated (canonical), else now; a patch that changes nothing stays one", () => {
  const note: Note = {
    id: "n1",
    title: "Deploys",
    body: "make deploy",
    labels: ["ops"],
    source: "github:acme/app/discussions/42",
    hash: "",
    created: "2026-01-01T00:00:00.000Z",
    updated: "2026-01-02T00:00:00.000Z",
  };
  note.hash = contentHash(note);
  const now = new Date("2026-03-01T00:00:00.000Z");

  const given = patchNote(note, { text: "make ship", updated: "2026-02-01T10:00:00.000Z" }, now);
  assert.equal(given.updated, "2026-02-01T10:00:00.000Z");
  assert.equal(given.body, "make ship");
  assert.equal(given.created, note.created);
  assert.equal(given.source, note.source);
  const zoned = patchNote(note, { title: "Ship", updated: "2026-02-01T11:00:00+01:00" }, now);
  assert.equal(zoned.updated, "2026-02-01T10:00:00.000Z", "made canonical as a draft's time");
  assert.equal(patchNote(note, { labels: [] }, now).updated, now.toISOString(), "default: now");

  // Nothing changes: the note itself, whatever `updated` says.
  assert.equal(
    patchNote(note, { text: "make deploy", updated: "2030-01-01T00:00:00Z" }, now),
    note,
  );
  assert.equal(patchNote(note, { updated: "2030-01-01T00:00:00Z" }, now), note);

  for (const bad of ["yesterday", "", 1767225600000, null]) {
    assert.throws(
      () => patchNote(note, { text: "make ship", updated: bad as string }, now),
      (e) =>
        e instanceof MemoryValidationError &&
        e.message === "Cannot update note: updated must be an ISO 8601 time",
      String(bad),
    );
  }
  // Refused even when the patch would change nothing: bad input is bad input.
  assert.throws(() => patchNote(note, { updated: "soon" }, now), MemoryValidationError);
});
