import assert from "node:assert/strict";
import { snapshotFormat } from "./index_snapshot.ts";
import { type IndexableNote, ProjectIndex } from "./project_index.ts";

const AT = "2026-01-01T00:00:00.000Z";

function note(i: number, body: string, extra: Partial<IndexableNote> = {}): IndexableNote {
  return {
    id: `n${i}`,
    title: `Title ${i}`,
    body,
    labels: i % 2 ? ["odd"] : [],
    hash: `h${i}`,
    created: AT,
    updated: `2026-01-0${1 + (i % 9)}T00:00:00.000Z`,
    revision: i,
    ord: i,
    ...extra,
  };
}

const BODIES = [
  "deploys run with make deploy on fridays",
  "the staging database is db-stage-2",
  "rotate the deploy keys every ninety days",
  "lunch is at noon in the big room",
  "make deploy needs the vpn",
];

function built(): ProjectIndex {
  const index = new ProjectIndex();
  index.add(BODIES.map((b, i) => note(i + 1, b, i === 4 ? { source: "doc:vpn" } : {})));
  index.finish(5);
  return index;
}

const KEY = `${snapshotFormat(1)}:7:5`;

Deno.test("ProjectIndex: a snapshot round trip answers alike; other keys and damaged bytes load nothing", () => {
  const index = built();
  const bytes = index.exportSnapshot(KEY)!;
  const copy = ProjectIndex.importSnapshot(bytes, KEY)!;
  assert.ok(copy);
  assert.equal(copy.seq, 5);
  for (const query of ["deploy", "make deploy vpn", "database"]) {
    assert.deepEqual(
      copy.search(query, { limit: 5, explain: true }),
      index.search(query, {
        limit: 5,
        explain: true,
      }),
    );
  }
  assert.deepEqual(
    copy.list({ limit: 2, order: "newest" }),
    index.list({ limit: 2, order: "newest" }),
  );
  assert.deepEqual(copy.stats(), index.stats());
  assert.deepEqual(copy.search("deploy", { limit: 5, source: "doc:" }).map((h) => h.id), ["n5"]);
  assert.equal(ProjectIndex.importSnapshot(bytes, `${snapshotFormat(1)}:7:6`), undefined);
  assert.equal(ProjectIndex.importSnapshot(bytes, `${snapshotFormat(2)}:7:5`), undefined);
  const damaged = bytes.slice();
  damaged[Math.floor(damaged.length / 2)] ^= 0xff;
  assert.equal(ProjectIndex.importSnapshot(damaged, KEY), undefined);
  assert.equal(ProjectIndex.importSnapshot(bytes.subarray(0, bytes.length - 4), KEY), undefined);
  assert.equal(new ProjectIndex().exportSnapshot(KEY), undefined); // nothing to keep
});

Deno.test("ProjectIndex: apply() needs the indexed text of what changes, else changes nothing", () => {
  const index = built();
  const changed = note(2, "the staging database moved to db-stage-3", { revision: 6, ord: 2 });
  assert.deepEqual(index.needed([changed], ["n4"]).sort(), [2, 4]);
  assert.equal(index.apply([changed], ["n4"], new Map(), 7), false);
  assert.equal(index.seq, 5, "nothing applied");
  assert.equal(index.search("stage 2", { limit: 5 })[0].id, "n2");
  const texts = new Map(
    [2, 4].map((
      r,
    ) => [r, { title: `Title ${r}`, body: BODIES[r - 1], labels: r % 2 ? ["odd"] : [] }]),
  );
  assert.equal(index.apply([changed], ["n4"], texts, 7), true);
  assert.equal(index.seq, 7);
  assert.deepEqual(index.search("lunch", { limit: 5 }), []);
  assert.equal(index.search("stage 3", { limit: 5 })[0].revision, 6);
  // An update keeps the note's place in store order; a note made again at a new place moves.
  assert.deepEqual(index.list({ limit: 10 }).items.map((i) => i.id), ["n1", "n2", "n3", "n5"]);
  const remade = note(1, "deploys run on mondays now", { revision: 8, ord: 8 });
  const text1 = { title: "Title 1", body: BODIES[0], labels: ["odd"] };
  assert.equal(index.apply([remade], [], new Map([[1, text1]]), 8), true);
  assert.deepEqual(index.list({ limit: 10 }).items.map((i) => i.id), ["n2", "n3", "n5", "n1"]);
  assert.equal(index.stats().notes, 4);
  assert.throws(() => index.search(" ", { limit: 5 }), /Cannot recall: query is empty/);
  assert.throws(() => index.list({ limit: 1001 }), /limit must be an integer from 1 to 1000/);
});

Deno.test("ProjectIndex: the history filters and supersededBy, as a Memo answers them, kept by a snapshot", () => {
  const at = (day: number) => `2026-01-${String(day).padStart(2, "0")}T00:00:00.000Z`;
  const old = note(1, "deploys run on fridays", { created: at(1), validUntil: "2026-01-05" });
  const fix = note(2, "deploys run on mondays", {
    created: at(5),
    supersedes: ["n1"],
    validFrom: "2026-01-05",
  });
  const other = note(3, "deploys need the vpn", { created: at(9) });
  const index = new ProjectIndex();
  index.add([old, fix, other]);
  index.finish(3);
  const ids = (hits: { id: string }[]) => hits.map((h) => h.id).sort();
  for (const i of [index, ProjectIndex.importSnapshot(index.exportSnapshot(KEY)!, KEY)!]) {
    assert.deepEqual(ids(i.search("deploys", { limit: 10 })), ["n2", "n3"]);
    assert.deepEqual(
      ids(i.search("deploys", { limit: 10, includeSuperseded: true })),
      ["n1", "n2", "n3"],
    );
    // What held on January 3rd: the old fact, recorded by then.
    assert.deepEqual(ids(i.search("deploys", { limit: 10, asOf: "2026-01-03" })), ["n1"]);
    assert.deepEqual(ids(i.list({ since: "2026-01-05", includeSuperseded: true }).items), [
      "n2",
      "n3",
    ]);
    assert.deepEqual(ids(i.list({ until: "2026-01-05", includeSuperseded: true }).items), ["n1"]);
    assert.equal(i.list({}).total, 2);
    assert.deepEqual(i.supersededBy("n1"), ["n2"]);
    assert.deepEqual(i.withLinks({ ...old }).supersededBy, ["n2"]);
    assert.throws(() => i.list({ asOf: "last week" }), /Cannot list notes: asOf/);
  }
  // A change that drops the link brings the old note back.
  const unlinked = { ...fix, supersedes: undefined, revision: 4 };
  index.apply([unlinked], [], new Map([[2, { title: fix.title, body: fix.body, labels: [] }]]), 4);
  assert.equal(index.supersededBy("n1"), undefined);
  assert.deepEqual(ids(index.search("deploys", { limit: 10 })), ["n1", "n2", "n3"]);
});

Deno.test("ProjectIndex: similar reads only the candidates it compares", async () => {
  const stored = [
    note(1, "The audit log is kept for 12 months."),
    note(2, "Lunch is at noon in the big room."),
  ];
  const index = new ProjectIndex();
  index.add(stored);
  index.finish(2);
  const asked: number[][] = [];
  const fresh = note(3, "Audit logs are kept 12 months.");
  const similar = await index.similar(fresh, (items) => {
    asked.push(items.map((i) => i.revision));
    const byId = new Map(stored.map((n) => [n.id, n]));
    return Promise.resolve(new Map(items.map((i) => [i.id, byId.get(i.id)!])));
  });
  assert.deepEqual(similar.map((s) => s.id), ["n1"]);
  assert.deepEqual(asked, [[1]]);
});

Deno.test("ProjectIndex.list(): a cursor whose note and notes before it were removed neither skips nor repeats", () => {
  for (
    const [order, firstPage, nextPage] of [
      ["oldest", ["n1", "n2"], ["n3", "n4"]],
      ["newest", ["n5", "n4"], ["n3", "n2"]],
    ] as const
  ) {
    const index = built();
    const first = index.list({ limit: 2, order });
    assert.deepEqual(first.items.map((i) => i.id), firstPage);
    // Another client removes both notes of the page meanwhile.
    const texts = new Map(firstPage.map((id) => {
      const n = Number(id.slice(1));
      const { title, body, labels } = note(n, BODIES[n - 1]);
      return [n, { title, body, labels }] as const;
    }));
    assert.ok(index.apply([], firstPage, texts, 6));
    const next = index.list({ limit: 2, order, cursor: first.nextCursor });
    assert.deepEqual(next.items.map((i) => i.id), nextPage, order);
  }
});
