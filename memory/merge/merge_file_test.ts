/**
 * The merge of notes files: the matrix of issue 31, each case merged in both directions and
 * compared byte for byte, the header's text merge, the sides that cannot be read, and a seeded
 * property test of random edits on two branches from one base.
 */

import assert from "node:assert/strict";
import {
  conflictCopy,
  contentHash,
  mergeNotes,
  mergeNotesFiles,
  type Note,
  NOTES_PREAMBLE,
  parseNotes,
  serializeNote,
} from "@memo/memory";

const DAY = 86_400_000;
const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (day: number) => new Date(T0 + day * DAY).toISOString();

function note(id: string, body: string, day = 0, extra: Partial<Note> = {}): Note {
  const n: Note = {
    id,
    title: body.slice(0, 40),
    body,
    labels: [],
    hash: "",
    created: at(day),
    updated: at(day),
    ...extra,
  };
  n.hash = contentHash(n);
  return n;
}
/** A new version of `n`, changed at `day`. */
function edit(n: Note, day: number, change: Partial<Note>): Note {
  const next: Note = { ...n, ...change, updated: at(day) };
  next.hash = contentHash(next);
  return next;
}
const file = (notes: readonly Note[], header = NOTES_PREAMBLE) =>
  header + notes.map(serializeNote).join("");

/** Merges both ways, asserts byte-identical results, and returns the merged notes. */
function merge(base: string, ours: string, theirs: string): { text: string; notes: Note[] } {
  const a = mergeNotesFiles({ base, ours, theirs });
  const b = mergeNotesFiles({ base, ours: theirs, theirs: ours });
  assert.ok(a.ok && b.ok, "both sides parse");
  assert.equal(a.text, b.text, "merging either way gives the same bytes");
  const parsed = parseNotes(a.text);
  assert.deepEqual(parsed.issues, []);
  return { text: a.text, notes: parsed.sections.flatMap((s) => s.note ? [s.note] : []) };
}
const bodies = (notes: readonly Note[]) => notes.map((n) => `${n.id}:${n.body}`);

Deno.test("mergeNotesFiles() merges the matrix of issue 31 the same way in both directions", async (t) => {
  const n1 = note("n1", "Deploys run on Fridays", 0, { labels: ["ops"] });
  const n2 = note("n2", "The queue is kafka", 1);
  const base = file([n1, n2]);

  await t.step("add/add: both notes, base first, then by created", () => {
    const a = note("a1", "bob says the cache is redis", 3);
    const b = note("b1", "alice says the db is postgres", 2);
    const { text, notes } = merge(base, file([n1, n2, a]), file([n1, n2, b]));
    assert.deepEqual(bodies(notes), [n1, n2, b, a].map((n) => `${n.id}:${n.body}`));
    assert.equal(text, file([n1, n2, b, a]));
  });

  await t.step(
    "the same text remembered on both sides: one note, smaller id, later content",
    () => {
      const a = note("zz", "Staging lives in eu-west-1", 3);
      const b = note("aa", "staging lives in EU-west-1.", 4);
      const { notes } = merge(base, file([n1, n2, a]), file([n1, n2, b]));
      assert.equal(notes.length, 3);
      assert.deepEqual({ ...notes[2], hash: "" }, { ...b, created: a.created, hash: "" });
      assert.ok(!notes.some((n) => n.labels.includes("conflict")));
    },
  );

  await t.step("the same GitHub discussion synced on both sides: one note", () => {
    const source = "github:acme/app/discussions/7";
    const a = note("s1", "Release plan v1", 3, { source });
    const b = note("s2", "Release plan v2", 5, { source, created: at(4) });
    const { notes } = merge(base, file([n1, n2, a]), file([n1, n2, b]));
    assert.deepEqual(bodies(notes.slice(2)), ["s1:Release plan v2"]);
    assert.equal(notes[2].created, at(3));
  });

  await t.step("edit/edit: the later wins, the loser is the conflict copy", () => {
    const ours = edit(n1, 3, { body: "Deploys run on Mondays" });
    const theirs = edit(n1, 4, { body: "Deploys run on Tuesdays", labels: ["ops", "ci"] });
    const { notes } = merge(base, file([ours, n2]), file([theirs, n2]));
    const copy = conflictCopy(ours, "n1");
    assert.deepEqual(bodies(notes), [
      `n1:${theirs.body}`,
      `n2:${n2.body}`,
      `${copy.id}:${copy.body}`,
    ]);
    assert.deepEqual(notes[0].labels, ["ops", "ci"]); // labels go with the winner
    assert.deepEqual(notes[2].labels, ["conflict", "ops"]);
  });

  await t.step("the same edit on both sides at two times: one note, the later, no copy", () => {
    const ours = edit(n1, 3, { body: "Deploys run on Mondays" });
    const theirs = edit(n1, 4, { body: "Deploys run on Mondays" });
    const { notes } = merge(base, file([ours, n2]), file([theirs, n2]));
    assert.deepEqual(bodies(notes), [`n1:${theirs.body}`, `n2:${n2.body}`]);
    assert.equal(notes[0].updated, theirs.updated);
  });

  await t.step("edit/forget keeps the edit; forget/forget and forget/unchanged drop it", () => {
    const edited = edit(n1, 3, { body: "Deploys run on Mondays" });
    assert.deepEqual(bodies(merge(base, file([edited, n2]), file([n2])).notes), [
      `n1:${edited.body}`,
      `n2:${n2.body}`,
    ]);
    assert.deepEqual(bodies(merge(base, file([n2]), file([n2])).notes), [`n2:${n2.body}`]);
    assert.deepEqual(bodies(merge(base, file([n1, n2]), file([n2])).notes), [`n2:${n2.body}`]);
  });

  await t.step("correct/correct: both corrections stay, the earlier end, no conflict copy", () => {
    const x = note("x1", "Deploys run on Mondays", 3, { supersedes: ["n1"] });
    const y = note("y1", "Deploys run on Tuesdays", 4, { supersedes: ["n1"] });
    const endedX = edit(n1, 3, { validUntil: at(3) });
    const endedY = edit(n1, 4, { validUntil: at(4) });
    const { notes } = merge(base, file([endedX, n2, x]), file([endedY, n2, y]));
    assert.deepEqual(notes.map((n) => n.id), ["n1", "n2", "x1", "y1"]);
    assert.equal(notes[0].validUntil, at(3));
  });

  await t.step("a copy of a superseded fact is no live note", () => {
    const typo = edit(n1, 5, { body: "Deploys run on Fridays." });
    const ended = edit(n1, 3, { validUntil: at(3) });
    const x = note("x1", "Deploys run on Mondays", 3, { supersedes: ["n1"] });
    const { notes } = merge(base, file([typo, n2]), file([ended, n2, x]));
    const copy = notes.find((n) => n.labels.includes("conflict"))!;
    assert.equal(copy.validUntil, at(3));
    assert.equal(notes[0].body, typo.body);
  });

  await t.step("supersede on one side, forget of the superseded note on the other", () => {
    const keeper = note("k1", "Deploys run with make deploy", 3, { supersedes: ["n2"] });
    const { notes } = merge(base, file([n1, n2, keeper]), file([n1]));
    assert.deepEqual(notes.map((n) => n.id), ["n1", "k1"]); // the link dangles, nothing crashes
  });

  await t.step("labels and validity changed on both sides: the note is the unit", () => {
    const ours = edit(n1, 3, { labels: ["ops", "friday"] });
    const theirs = edit(n1, 4, { validFrom: "2026-01-02" });
    const { notes } = merge(base, file([ours, n2]), file([theirs, n2]));
    assert.deepEqual(notes[0].labels, ["ops"]);
    assert.equal(notes[0].validFrom, "2026-01-02");
    assert.deepEqual(notes[2].labels, ["conflict", "ops", "friday"]);
  });

  await t.step("no base: a two-way merge keeps both sides' notes", () => {
    const { notes } = merge("", file([n1]), file([n2]));
    assert.deepEqual(notes.map((n) => n.id), ["n1", "n2"]);
  });
});

Deno.test("mergeNotesFiles() keeps untouched bytes and merges the header as text", () => {
  const crlf = serializeNote(note("c1", "written on Windows")).replace(/\n/g, "\r\n");
  const base = "# Memory\n\nline a\nkept\nline b\n\n" + crlf;
  const ours = "# Memory\n\nline A\nkept\nline b\n\n" + crlf + serializeNote(note("o1", "ours", 2));
  const theirs = "# Memory\n\nline a\nkept\nline B\n\n" + crlf;
  const merged = merge(base, ours, theirs);
  assert.equal(
    merged.text,
    "# Memory\n\nline A\nkept\nline B\n\n" + crlf + serializeNote(note("o1", "ours", 2)),
  );
  // Both sides changed the same line (or adjacent ones, as for git): the side that sorts first
  // bytewise, both ways.
  const clash = merge(base, "# Mine\n" + crlf, "# Ours\n" + crlf);
  assert.equal(clash.text, "# Mine\n" + crlf);
});

Deno.test("mergeNotesFiles() names a side it cannot read", () => {
  const good = file([note("n1", "fine")]);
  const damaged = good + "<!-- memo:note {not json -->\n## x\nbody\n\n";
  const result = mergeNotesFiles({ base: good, ours: good, theirs: damaged });
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.equal(result.side, "theirs");
    assert.match(result.reason, /line \d+: Cannot read note/);
  }
});

/** A small seeded PRNG (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["deploys", "queue", "cache", "staging", "kafka", "redis", "friday", "monday"];

/** Random operations on one branch; days grow, so appended notes stay in created order. */
function branch(base: readonly Note[], rnd: () => number, prefix: string): Note[] {
  const notes = [...base];
  let day = 10 + Math.floor(rnd() * 3);
  const pick = () => Math.floor(rnd() * notes.length);
  for (let op = 0; op < 6; op++) {
    day += Math.floor(rnd() * 2); // ties happen
    const r = rnd();
    if (r < 0.3 || notes.length === 0) {
      const text = `${WORDS[Math.floor(rnd() * 4)]} ${WORDS[4 + Math.floor(rnd() * 4)]}`;
      const id = `${prefix}${op}`;
      if (!notes.some((n) => n.body.toLowerCase() === text)) notes.push(note(id, text, day));
    } else if (r < 0.55) {
      const i = pick();
      notes[i] = edit(notes[i], day, { body: `${notes[i].body} ${WORDS[Math.floor(rnd() * 8)]}` });
    } else if (r < 0.7) {
      const i = pick();
      notes[i] = edit(notes[i], day, { labels: [WORDS[Math.floor(rnd() * 8)]] });
    } else if (r < 0.85) {
      notes.splice(pick(), 1);
    } else {
      const i = pick();
      notes[i] = edit(notes[i], day, { validUntil: at(day) });
    }
  }
  return notes;
}

/** The rule replayed plainly, id by id: the ids (and winning bodies) the merge must hold. */
function expected(base: Note[], ours: Note[], theirs: Note[]): Map<string, string> {
  const get = (side: Note[], id: string) => side.find((n) => n.id === id);
  const out = new Map<string, string>();
  const changed = (a: Note, b: Note) => serializeNote(a) !== serializeNote(b);
  for (const b of base) {
    const o = get(ours, b.id), t = get(theirs, b.id);
    if (!o && !t) continue;
    if (!o || !t) {
      const x = (o ?? t)!;
      if (changed(x, b)) out.set(b.id, x.body);
      continue;
    }
    if (!changed(o, b)) out.set(b.id, t.body);
    else if (!changed(t, b)) out.set(b.id, o.body);
    else if (o.body === t.body) out.set(b.id, o.body);
    else {
      const ta = Date.parse(o.updated), tb = Date.parse(t.updated);
      const winner = ta !== tb ? (ta > tb ? o : t) : contentHash(o) > contentHash(t) ? o : t;
      out.set(b.id, winner.body);
    }
  }
  const added = [...ours, ...theirs].filter((n) => !get(base, n.id));
  for (const n of added) {
    const twin = added.find((m) => m !== n && m.body.toLowerCase() === n.body.toLowerCase());
    if (!twin || n.id < twin.id) out.set(n.id, twin ? "(twin)" : n.body);
  }
  return out;
}

Deno.test("mergeNotesFiles() equals the rule replayed, both ways, on random branches (seeded)", () => {
  let conflicts = 0, twins = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const rnd = random(seed);
    const base = Array.from({ length: 5 }, (_, i) => note(`b${i}`, `${WORDS[i]} note ${i}`, i));
    const ours = branch(base, rnd, "o");
    const theirs = branch(base, rnd, "t");
    const text = { base: file(base), ours: file(ours), theirs: file(theirs) };
    const { notes } = merge(text.base, text.ours, text.theirs);
    const want = expected(base, ours, theirs);
    const live = notes.filter((n) => !n.labels.includes("conflict"));
    assert.deepEqual(live.map((n) => n.id).sort(), [...want.keys()].sort(), `seed ${seed}`);
    for (const n of live) {
      const body = want.get(n.id)!;
      if (body !== "(twin)") assert.equal(n.body, body, `seed ${seed}: ${n.id}`);
    }
    // One side unchanged: the merge is the other side, byte for byte.
    assert.equal(merge(text.base, text.ours, text.base).text, text.ours, `seed ${seed}`);
    assert.equal(merge(text.base, text.ours, text.ours).text, text.ours, `seed ${seed}`);
    // The note-level merge agrees with the file merge.
    const plain = mergeNotes({ base, ours, theirs });
    assert.deepEqual(plain.notes.map((n) => n.id), notes.map((n) => n.id), `seed ${seed}`);
    conflicts += plain.conflicts;
    twins += plain.twins;
  }
  assert.ok(
    conflicts > 20 && twins > 20,
    `the cases were met: ${conflicts} conflicts, ${twins} twins`,
  );
});

Deno.test("mergeNotesFiles()'s parse once per unchanged note equals a full parse of each side (seeded)", () => {
  // The merge parses the base, then each side reusing the notes of byte-identical sections
  // (`parseNotes`'s `reuse`); here every side of the random cases, also hand-damaged, duplicated
  // and CRLF'd, parses to the same sections, notes and issues as a full parse.
  const variants = (text: string, rnd: () => number): string[] => {
    const marker = text.indexOf("<!-- memo:note");
    const out = [text, text.replaceAll("\n", "\r\n")];
    if (marker < 0) return out;
    const next = text.indexOf("<!-- memo:note", marker + 1);
    const first = text.slice(marker, next < 0 ? text.length : next);
    out.push(text + first); // an id used twice
    out.push(text.slice(0, marker) + first.replace('"id":"', '"id":"!') + text.slice(marker)); // damaged
    out.push(text.replace("\n## ", rnd() < 0.5 ? "\n\n## " : "\n##  ")); // hand edits
    out.push(text.replace('"labels":[', '"labels":["<!-- memo:x",'));
    return out;
  };
  const full = (text: string) => parseNotes(text);
  for (let seed = 1; seed <= 100; seed++) {
    const rnd = random(seed);
    const base = Array.from({ length: 5 }, (_, i) => note(`b${i}`, `${WORDS[i]} note ${i}`, i));
    const sides = [file(base), file(branch(base, rnd, "o")), file(branch(base, rnd, "t"))];
    for (const known of sides.flatMap((s) => variants(s, rnd))) {
      const reuse = full(known).byId;
      for (const text of sides.flatMap((s) => variants(s, rnd))) {
        assert.deepEqual(parseNotes(text, { reuse }), full(text), `seed ${seed}`);
      }
    }
    const [b, o, t] = sides;
    const v = (s: string) => variants(s, rnd)[Math.floor(rnd() * 6)] ?? s;
    const x = { base: v(b), ours: v(o), theirs: v(t) };
    const merged = mergeNotesFiles(x);
    const parsed = [x.base, x.ours, x.theirs].map(full);
    const bad = parsed.findIndex((p) => p.issues.length > 0);
    assert.equal(merged.ok, bad < 0, `seed ${seed}`);
    if (!merged.ok) {
      assert.equal(merged.side, ["base", "ours", "theirs"][bad]);
      const issue = parsed[bad].issues[0];
      assert.equal(merged.reason, `line ${issue.line}: ${issue.message}`);
    }
  }
});
