import assert from "node:assert/strict";
import { notesDigest } from "./snapshot_format.ts";
import type { Note } from "../../notes/note.ts";

Deno.test("notesDigest() changes with any id, text or label, and with the order", () => {
  const base: Note = {
    id: "a",
    title: "t",
    body: "body text",
    labels: ["x"],
    hash: "h",
    created: "",
    updated: "",
  };
  const other: Note = { ...base, id: "b" };
  const d = notesDigest([base, other]);
  assert.notEqual(notesDigest([other, base]), d);
  assert.notEqual(notesDigest([{ ...base, body: "body texT" }, other]), d);
  assert.notEqual(notesDigest([{ ...base, title: "T" }, other]), d);
  assert.notEqual(notesDigest([{ ...base, labels: ["y"] }, other]), d);
  assert.notEqual(notesDigest([{ ...base, labels: [] }, other]), d);
  assert.notEqual(notesDigest([base]), d);
  assert.equal(notesDigest([{ ...base, hash: "other", updated: "x" }, other]), d);
  assert.equal(notesDigest([base, other, base], 2), d, "the first `count` notes");
  assert.equal(notesDigest([base, other], 1), notesDigest([base]));
});
