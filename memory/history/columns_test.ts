/**
 * The history columns answer as the history filter does: for every doc and every filter, a
 * sure answer (drop or keep) is the filter's own, and recall ranks the same notes with and
 * without them, through link changes, replaced and removed notes and a renumbering of the docs.
 */

import assert from "node:assert/strict";
import { Bm25Index } from "../recall/lexical/lexical.ts";
import {
  checkHistoryFilter,
  type HistoryFilter,
  historyFilter,
  SupersedeLinks,
} from "./history.ts";
import { HistoryColumns } from "./columns.ts";
import type { Note } from "../notes/note.ts";

const CREATED = [
  "2026-01-01T00:00:00.000Z",
  "2026-01-15T12:00:00.000Z",
  "2026-02-01T00:00:00.000Z",
  "2026-02-30T00:00:00.000Z", // canonical in form, not a real time
  "2026-01-20T10:00:00+02:00", // another form: read as Date.parse reads it
  "2026-01-10",
  "not a time",
  "2026-03-01T00:00:00.000Z",
];

const FILTERS: HistoryFilter[] = [
  {},
  { includeSuperseded: true },
  { asOf: "2026-01-20" },
  { asOf: "2026-01-20T08:00:00Z" },
  { asOf: "2026-02-01" },
  { asOf: "2026-02-01", includeSuperseded: true },
  { since: "2026-01-15" },
  { until: "2026-02-01", includeSuperseded: true },
  { since: "2026-01-01", until: "2026-01-16", asOf: "2026-03-01" },
  { asOf: "2999-01-01" },
];

function world(count: number) {
  const index = new Bm25Index();
  const notes = new Map<string, Note>();
  const links = new SupersedeLinks();
  const lookup = {
    get: (id: string) => notes.get(id),
    supersededBy: (id: string) => links.of(id),
    get anySuperseded() {
      return links.size > 0;
    },
    get linksVersion() {
      return links.version;
    },
  };
  const put = (note: Note) => {
    links.upsert(note, notes.get(note.id));
    notes.set(note.id, note);
    index.add(note);
  };
  const drop = (id: string) => {
    const gone = notes.get(id);
    if (gone) links.remove(gone);
    notes.delete(id);
    index.remove(id);
  };
  for (let i = 0; i < count; i++) {
    const created = CREATED[i % CREATED.length];
    const note: Note = {
      id: `n${String(i).padStart(4, "0")}`,
      title: `deploy note ${i % 7}`,
      body: `deploys run on day ${i % 5} with key ${i % 3}`,
      labels: [],
      hash: "",
      created,
      updated: created,
    };
    if (i % 9 === 4) note.validFrom = "2026-01-18";
    if (i % 11 === 5) note.validUntil = "2026-01-25T00:00:00Z";
    if (i > 3 && i % 4 === 0) note.supersedes = [`n${String(i - 3).padStart(4, "0")}`];
    put(note);
  }
  return { index, notes, links, lookup, put, drop };
}

function checkAll(w: ReturnType<typeof world>, columns: HistoryColumns) {
  let sure = 0;
  for (const spec of FILTERS) {
    const resolved = checkHistoryFilter(spec, "recall");
    const filter = historyFilter(resolved, w.lookup);
    const check = columns.check(resolved, w.lookup);
    if (!filter) {
      assert.equal(check, undefined, JSON.stringify(spec));
      continue;
    }
    for (let d = 0; d < w.index.docCount; d++) {
      const note = w.index.notes[d];
      if (!note) continue;
      const quick = check ? check(w.index.notes, d) : 0;
      if (quick !== 0) {
        sure++;
        assert.equal(quick > 0, filter(note), `${JSON.stringify(spec)} on ${note.id}`);
      }
    }
    const plain = w.index.search("deploys key", { limit: 20, noteFilter: filter });
    const quick = w.index.search("deploys key", { limit: 20, noteFilter: filter, docCheck: check });
    assert.deepEqual(quick, plain, JSON.stringify(spec));
  }
  return sure;
}

Deno.test("history columns: every sure answer is the filter's, and recall ranks the same", () => {
  const w = world(2000);
  const columns = new HistoryColumns();
  assert.ok(checkAll(w, columns) > 1000); // most answers are sure
  // A link added and one removed: the entries read before are stale.
  const fix: Note = { ...w.notes.get("n0009")!, supersedes: ["n0010"] };
  w.put(fix);
  w.put({ ...w.notes.get("n0008")!, supersedes: undefined });
  checkAll(w, columns);
  // A note replaced (new doc number) and notes removed, then the docs renumbered.
  w.put({ ...w.notes.get("n0001")!, created: "2026-02-15T00:00:00.000Z" });
  for (let i = 100; i < 2000; i += 2) w.drop(`n${String(i).padStart(4, "0")}`);
  checkAll(w, columns);
  const docs = w.index.docCount;
  w.index.flush();
  assert.ok(w.index.docCount < docs); // renumbered
  checkAll(w, columns);
});

Deno.test("history columns: a bound outside the years 0000-9999 leaves everything to the filter", () => {
  const w = world(10);
  const columns = new HistoryColumns();
  // checkHistoryFilter refuses such a time; a resolved filter can still carry one.
  const beyond = { includeSuperseded: false, asOf: Date.UTC(10000, 0, 1) };
  assert.equal(columns.check(beyond, w.lookup), undefined);
  assert.notEqual(columns.check({ ...beyond, asOf: Date.UTC(9999, 0, 1) }, w.lookup), undefined);
});
