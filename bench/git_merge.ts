/**
 * The git merge of `notes.md` (issue 31), in one run:
 *
 * - **The driver**: `memo merge-file BASE OURS THEIRS` as git runs it (a fresh `deno run -A
 *   cli.ts` process), on a base of `--notes` notes (the corpus of `store_scale.ts`, about 1 KB
 *   each) and two sides with `--changes` changes each (60 % edits, 20 % forgets, 20 % new notes;
 *   a tenth of the edits touch a note that the other side edits too, which makes conflict
 *   copies). Against `git merge-file` on the same three files (a text merge, which conflicts), and
 *   against memo's own open of one side (`_open_child.ts`'s `open`, embeddings off, with its index
 *   snapshot warm), each a fresh process. Goal: the driver within 3 s on a 2-core machine.
 * - **Reads of a conflicted file**: `memo recall` (a fresh process, embeddings off) on a project
 *   of `--recall-notes` notes whose `notes.md` holds git's markers (both sides appended: the last
 *   tenth of the notes split between the two sides of one hunk), against the clean file of the
 *   same notes. Goal: at most 1.3×.
 *
 * Every figure is the median of `--rounds` rounds after one warm-up round, the variants
 * alternating within a round. No goal is asserted here; they are read in bench/README.md.
 * `--part driver` or `--part recall` runs one part only. `--before-cli PATH` (the `cli.ts` of
 * another checkout, such as the commit before a change) adds that memo's recall on the
 * conflicted file to the same rounds.
 *
 * Run: deno run -A bench/git_merge.ts [--part driver|recall] [--notes 100000] [--changes 1000] [--recall-notes 10000] [--rounds 5] [--before-cli PATH] [--json FILE]
 *
 * @module
 */

import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { contentHash, type Note } from "../memory/notes/note.ts";
import { serializeNote } from "../memory/store/codec.ts";
import { parseNotes } from "../memory/store/parse.ts";
import { memoPaths } from "../memory/store/paths.ts";
import { generateNotes } from "./_notes_corpus.ts";
import { median } from "./_report.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    notes: { type: "string", default: "100000" },
    changes: { type: "string", default: "1000" },
    "recall-notes": { type: "string", default: "10000" },
    rounds: { type: "string", default: "5" },
    part: { type: "string" },
    "before-cli": { type: "string" },
    json: { type: "string" },
  },
});
const NOTES = Number(flags.notes);
const CHANGES = Number(flags.changes);
const RECALL_NOTES = Number(flags["recall-notes"]);
const ROUNDS = Number(flags.rounds);
const PART = flags.part;
if (PART !== undefined && PART !== "driver" && PART !== "recall") {
  throw new Error(`--part is driver or recall, not ${PART}`);
}
const BEFORE_CLI = flags["before-cli"];
const REPO = new URL("..", import.meta.url).pathname;
const CLI = join(REPO, "cli.ts");
const CHILD = new URL("./_open_child.ts", import.meta.url).pathname;
const ENV = { MEMO_LOCAL_EMBEDDINGS: "false" };
const MARKER = /^(<{7}|={7}|>{7})/m;

function log(line: string) {
  console.error(`bench: ${line}`);
}

const TIME = "/usr/bin/time";
const HAS_TIME = await Deno.stat(TIME).then(() => true, () => false);
let timeFile = "";

/**
 * Runs a process; returns its wall time in ms, its CPU time (user + system, through
 * `/usr/bin/time` when the machine has it, NaN otherwise), exit code and stdout.
 */
async function timed(cmd: string, args: string[], cwd = REPO) {
  const [program, argv] = HAS_TIME
    ? [TIME, ["-f", "%U %S", "-o", timeFile, cmd, ...args]]
    : [cmd, args];
  const start = performance.now();
  const out = await new Deno.Command(program, { args: argv, cwd, env: ENV, stderr: "piped" })
    .output();
  const ms = performance.now() - start;
  let cpuMs = NaN;
  if (HAS_TIME) {
    const last = (await readFile(timeFile, "utf8")).trim().split("\n").at(-1) ?? "";
    const [user, sys] = last.split(" ").map(Number);
    cpuMs = (user + sys) * 1000;
  }
  const stdout = new TextDecoder().decode(out.stdout);
  return { ms, cpuMs, code: out.code, stdout, stderr: out.stderr };
}

function fail(what: string, r: { code: number; stderr: Uint8Array }): never {
  throw new Error(`${what} exited ${r.code}: ${new TextDecoder().decode(r.stderr)}`);
}

/** The base's header and notes (with their bytes), parsed once. */
function sectionsOf(text: string): { header: string; notes: { note: Note; raw: string }[] } {
  const { sections } = parseNotes(text);
  const header = sections.length && !sections[0].note ? sections[0].raw : "";
  const notes = [];
  for (const s of sections) if (s.note) notes.push({ note: s.note, raw: s.raw });
  return { header, notes };
}

/** An edited version of a note, `minutes` after its last update. */
function edited(note: Note, side: string, minutes: number): string {
  const body = `${note.body}\nEdited on ${side}.`;
  const updated = new Date(Date.parse(note.updated) + minutes * 60_000).toISOString();
  return serializeNote({
    ...note,
    body,
    hash: contentHash({ title: note.title, body, labels: note.labels }),
    updated,
  });
}

/** A new note made on one side. */
function added(side: string, i: number): string {
  const created = new Date(Date.parse("2027-01-01T00:00:00Z") + i * 60_000).toISOString();
  const body = `A note ${side} added (${i}): the retry budget of worker ${i} is ${i % 7} tries.`;
  const title = `${side} note ${i}`;
  return serializeNote({
    id: `1${side}${i.toString(36).padStart(8, "0")}`,
    title,
    body,
    labels: ["ops"],
    hash: contentHash({ title, body, labels: ["ops"] }),
    created,
    updated: created,
  });
}

/**
 * One side: the base with `CHANGES` changes. Edits at `offset`…, forgets beside them, new notes
 * at the end (as memo appends them).
 */
function side(
  base: ReturnType<typeof sectionsOf>,
  name: string,
  editFrom: number,
  forgetShift: number,
): string {
  const edits = Math.round(CHANGES * 0.6);
  const forgets = Math.round(CHANGES * 0.2);
  const adds = CHANGES - edits - forgets;
  const step = Math.max(1, Math.floor(base.notes.length / (edits * 2)));
  const edit = new Set<number>();
  for (let k = editFrom; k < editFrom + edits; k++) edit.add((k * step) % base.notes.length);
  const forget = new Set<number>();
  for (let k = 0; k < forgets; k++) forget.add((k * step + forgetShift) % base.notes.length);
  const parts = [base.header];
  base.notes.forEach(({ note, raw }, i) => {
    if (forget.has(i) && !edit.has(i)) return;
    parts.push(edit.has(i) ? edited(note, name, name === "ours" ? 5 : 7) : raw);
  });
  for (let i = 0; i < adds; i++) parts.push(added(name, i));
  return parts.join("");
}

/** The driver against `git merge-file` and memo's open of one side. */
async function driverPart(dir: string) {
  log(`generating ${NOTES} notes and two sides of ${CHANGES} changes each`);
  await generateNotes(join(dir, "gen"), NOTES);
  const baseText = await readFile(memoPaths(join(dir, "gen")).notes, "utf8");
  const base = sectionsOf(baseText);
  const overlap = Math.round(CHANGES * 0.6 * 0.1); // edits of one note on both sides
  const ours = side(base, "ours", 0, 1);
  const theirs = side(base, "theirs", Math.round(CHANGES * 0.6) - overlap, 2);
  const files = {
    base: join(dir, "base.md"),
    ours: join(dir, "ours.md"),
    theirs: join(dir, "theirs.md"),
  };
  await writeFile(files.base, baseText);
  await writeFile(files.ours, ours);
  await writeFile(files.theirs, theirs);
  // memo's open of one side: a project whose notes.md is OURS, its snapshot written once.
  const project = join(dir, "project");
  await mkdir(join(project, ".memo", "memory"), { recursive: true });
  await copyFile(files.ours, memoPaths(project).notes);
  const config = ["run", "-A", "--config", join(REPO, "deno.json"), CHILD, REPO, project];
  const write = await timed(Deno.execPath(), [...config, "write"]);
  if (write.code !== 0) fail("the snapshot write", write);

  const work = join(dir, "work.md");
  const figures = {
    driver: [] as number[],
    gitMergeFile: [] as number[],
    open: [] as number[],
    openMs: [] as number[],
    driverCpu: [] as number[],
    gitMergeFileCpu: [] as number[],
    openCpu: [] as number[],
  };
  let conflicts = 0;
  let merged = "";
  for (let round = 0; round <= ROUNDS; round++) {
    await copyFile(files.ours, work);
    const driver = await timed(Deno.execPath(), [
      "run",
      "-A",
      CLI,
      "merge-file",
      files.base,
      work,
      files.theirs,
    ]);
    if (driver.code !== 0) fail("memo merge-file", driver);
    if (round === 0) merged = await readFile(work, "utf8");
    await copyFile(files.ours, work);
    const text = await timed("git", ["merge-file", work, files.base, files.theirs]);
    if (text.code < 0 || text.code > 127) fail("git merge-file", text);
    conflicts = text.code;
    const open = await timed(Deno.execPath(), [...config, "open"]);
    if (open.code !== 0) fail("the open", open);
    if (round === 0) continue; // warm-up
    figures.driver.push(driver.ms);
    figures.gitMergeFile.push(text.ms);
    figures.open.push(open.ms);
    figures.openMs.push(JSON.parse(open.stdout).openMs);
    figures.driverCpu.push(driver.cpuMs);
    figures.gitMergeFileCpu.push(text.cpuMs);
    figures.openCpu.push(open.cpuMs);
    log(
      `round ${round}: driver ${Math.round(driver.ms)} ms, git merge-file ${
        Math.round(text.ms)
      } ms, open ${Math.round(open.ms)} ms`,
    );
  }
  if (MARKER.test(merged)) throw new Error("the driver's result holds conflict markers");
  const notes = parseNotes(merged).sections.filter((s) => s.note).length;
  const copies = (merged.match(/"conflict"/g) ?? []).length;
  return {
    notes: NOTES,
    changes: CHANGES,
    bytes: { base: baseText.length, ours: ours.length, theirs: theirs.length },
    mergedNotes: notes,
    conflictCopies: copies,
    gitMergeFileConflicts: conflicts,
    driverMs: median(figures.driver),
    gitMergeFileMs: median(figures.gitMergeFile),
    openProcessMs: median(figures.open),
    openMs: median(figures.openMs),
    driverCpuMs: median(figures.driverCpu),
    gitMergeFileCpuMs: median(figures.gitMergeFileCpu),
    openCpuMs: median(figures.openCpu),
  };
}

/** `memo recall` on a conflicted file against the clean file of the same notes. */
async function recallPart(dir: string) {
  log(`recall on ${RECALL_NOTES} notes, clean and conflicted`);
  const clean = join(dir, "clean");
  const conflicted = join(dir, "conflicted");
  await generateNotes(clean, RECALL_NOTES);
  const text = await readFile(memoPaths(clean).notes, "utf8");
  const { header, notes } = sectionsOf(text);
  const split = notes.length - Math.max(2, Math.round(notes.length / 10));
  const tail = notes.slice(split);
  const conflictedText = header + notes.slice(0, split).map((n) => n.raw).join("") +
    "<<<<<<< HEAD\n" + tail.filter((_, i) => i % 2 === 0).map((n) => n.raw).join("") +
    "=======\n" + tail.filter((_, i) => i % 2 === 1).map((n) => n.raw).join("") +
    ">>>>>>> theirs\n";
  await mkdir(join(conflicted, ".memo", "memory"), { recursive: true });
  await writeFile(memoPaths(conflicted).notes, conflictedText);
  const queries = ["retry backoff queue", "deploy staging database", "incident postmortem owner"];
  const variants = [
    { name: "clean", root: clean, cli: CLI },
    { name: "conflicted", root: conflicted, cli: CLI },
    ...(BEFORE_CLI ? [{ name: "conflicted, before", root: conflicted, cli: BEFORE_CLI }] : []),
  ];
  const wall = variants.map(() => [] as number[]);
  const cpu = variants.map(() => [] as number[]);
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [v, { name, root, cli }] of variants.entries()) {
      const query = queries[round % queries.length];
      const r = await timed(Deno.execPath(), [
        "run",
        "-A",
        cli,
        "recall",
        query,
        "--dir",
        root,
        "--json",
      ]);
      if (r.code !== 0) fail(`memo recall (${name})`, r);
      if (round > 0) {
        wall[v].push(r.ms);
        cpu[v].push(r.cpuMs);
      }
    }
    if (round > 0) {
      log(
        `round ${round}: ${
          variants.map((v, i) => `${v.name} ${Math.round(wall[i].at(-1)!)} ms`).join(", ")
        }`,
      );
    }
  }
  const after = await readFile(memoPaths(conflicted).notes, "utf8");
  if (after !== conflictedText) throw new Error("a read wrote the conflicted notes.md");
  return {
    notes: RECALL_NOTES,
    variants: variants.map((v, i) => ({
      name: v.name,
      ms: median(wall[i]),
      cpuMs: median(cpu[i]),
    })),
  };
}

type DriverFigures = Awaited<ReturnType<typeof driverPart>>;
type RecallFigures = Awaited<ReturnType<typeof recallPart>>;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const ms = (x: number) => `${Math.round(x)} ms`;
const row = (cells: (string | number)[]) => console.log(`| ${cells.join(" | ")} |`);

function reportDriver(d: DriverFigures) {
  console.log(`\n## git merge of notes.md (${d.notes} notes, ${d.changes} changes a side)\n`);
  row([`process (median of ${ROUNDS})`, "wall", "CPU"]);
  row(["---", "---", "---"]);
  row(["memo merge-file", ms(d.driverMs), ms(d.driverCpuMs)]);
  row([
    `git merge-file (${d.gitMergeFileConflicts} conflicts)`,
    ms(d.gitMergeFileMs),
    ms(d.gitMergeFileCpuMs),
  ]);
  row([
    `memo's open of one side (open itself ${ms(d.openMs)})`,
    ms(d.openProcessMs),
    ms(d.openCpuMs),
  ]);
  row([
    "driver ÷ git merge-file",
    `${ratio(d.driverMs, d.gitMergeFileMs)}×`,
    `${ratio(d.driverCpuMs, d.gitMergeFileCpuMs)}×`,
  ]);
  row([
    "driver ÷ open",
    `${ratio(d.driverMs, d.openProcessMs)}×`,
    `${ratio(d.driverCpuMs, d.openCpuMs)}×`,
  ]);
  console.log(`\nmerged: ${d.mergedNotes} notes, ${d.conflictCopies} conflict copies`);
}

function reportRecall(recall: RecallFigures) {
  const [clean, ...others] = recall.variants;
  console.log(`\n## memo recall, ${recall.notes} notes\n`);
  row([
    `process (median of ${ROUNDS})`,
    "wall",
    "CPU",
    "÷ clean, wall (goal ≤ 1.3×)",
    "÷ clean, CPU",
  ]);
  row(["---", "---", "---", "---", "---"]);
  row([clean.name, ms(clean.ms), ms(clean.cpuMs), "", ""]);
  for (const v of others) {
    row([
      v.name,
      ms(v.ms),
      ms(v.cpuMs),
      `${ratio(v.ms, clean.ms)}×`,
      `${ratio(v.cpuMs, clean.cpuMs)}×`,
    ]);
  }
}

const dir = await mkdtemp(join(tmpdir(), "memo-git-merge-"));
timeFile = join(dir, "time.txt");
try {
  const driver = PART === "recall" ? undefined : await driverPart(dir);
  const recall = PART === "driver" ? undefined : await recallPart(dir);
  if (driver) reportDriver(driver);
  if (recall) reportRecall(recall);
  if (flags.json) {
    await writeFile(flags.json, JSON.stringify({ driver, recall, rounds: ROUNDS }, null, 2));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
