/**
 * The 100k open, with its parts (issue 22): a `Memo` opened on 100,000 notes (about 103 MB of
 * notes.md, the corpus of `store_scale.ts`) with its index snapshot, memo now against memo at an
 * older commit (by default `5081ee0`, the baseline of issue 22), in the same run, on the same
 * notes.md.
 *
 * - The older commit is checked out into a temporary git worktree (removed at the end); each tree
 *   opens its own copy of the project (the same bytes), with the snapshot it wrote itself.
 * - Every open is a fresh process (`_open_child.ts`, run with the tree's own `deno.json`), after
 *   one warm-up round that is not counted; the rounds alternate the trees, rotating their order.
 * - memo now opens twice a round: with embeddings off (`localEmbeddings: false`, what this part
 *   of the issue changes) and as configured by default (embeddings on, which the older commit
 *   does not have).
 * - Parts of each open: the store's load (read and parse), the snapshot (waiting for its bytes,
 *   keying it to the notes, importing it), the catch-up (the notes into the client, the index's
 *   last merge); the read alone is measured in a process of its own, and the parse is the load
 *   less the read.
 *
 * Prints medians and p95 of every figure, and the ratio of memo now to the baseline (of the
 * medians, and the median of the rounds' own ratios; and of the CPU time, which a loaded machine
 * blurs less). No goal is asserted here; the goal (at most 0.8x) is read in bench/README.md.
 *
 * Run: deno run -A bench/open_scale.ts [--notes 100000] [--rounds 9] [--against 5081ee0[,COMMIT]] [--json FILE]
 *
 * @module
 */

import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { generateNotes } from "./_notes_corpus.ts";
import { median, percentile } from "./_report.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    notes: { type: "string", default: "100000" },
    rounds: { type: "string", default: "9" },
    against: { type: "string", default: "5081ee0" },
    json: { type: "string" },
  },
});
const NOTES = Number(flags.notes);
const ROUNDS = Number(flags.rounds);
const AGAINST = flags.against.split(",").filter(Boolean);
const REPO = new URL("..", import.meta.url).pathname;
const CHILD = new URL("./_open_child.ts", import.meta.url).pathname;

function log(line: string) {
  console.error(`bench: ${line}`);
}

/** One way of opening: a tree, its project, and the child's mode. */
interface Variant {
  name: string;
  tree: string;
  rootDir: string;
  mode: "open" | "open-embeddings" | "read";
}

async function git(...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: REPO, stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

async function child(tree: string, rootDir: string, mode: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", join(tree, "deno.json"), CHILD, tree, rootDir, mode],
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`the ${mode} of ${tree} failed (see above)`);
  return JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, number>;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const hundredths = (x: number) => Math.round(x * 100) / 100;

function summary(rows: Record<string, number>[]) {
  const out: Record<string, { p50: number; p95: number }> = {};
  for (const key of Object.keys(rows[0] ?? {})) {
    const xs = rows.map((r) => r[key]).sort((a, b) => a - b);
    out[key] = { p50: round1(median(xs)), p95: round1(percentile(xs, 0.95)) };
  }
  return out;
}

if (import.meta.main) await main();

async function main() {
  const work = await mkdtemp(join(tmpdir(), "memo_open_scale_"));
  const trees: { name: string; commit: string; dir: string }[] = [];
  const cleanUp = async () => {
    for (const tree of trees) {
      if (tree.dir !== REPO) await git("worktree", "remove", "--force", tree.dir).catch(() => {});
    }
    await rm(work, { recursive: true, force: true });
  };
  // Stopped with Ctrl-C or a kill: the worktrees are removed all the same.
  const stop = () => void cleanUp().finally(() => Deno.exit(130));
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  try {
    const now = await git("rev-parse", "--short", "HEAD");
    const dirty = (await git("status", "--porcelain", "--untracked-files=no")) !== "";
    trees.push({ name: "now", commit: now + (dirty ? "+changes" : ""), dir: REPO });
    for (const commit of AGAINST) {
      const dir = join(work, `tree-${commit}`);
      await git("worktree", "add", "--detach", dir, commit);
      trees.push({ name: commit, commit: await git("rev-parse", "--short", commit), dir });
    }
    // One project per tree, each with the same notes.md.
    const first = join(work, "project-now");
    log(`writing ${NOTES} notes`);
    const bytes = await generateNotes(first, NOTES);
    const variants: Variant[] = [];
    for (const tree of trees) {
      const rootDir = join(work, `project-${tree.name}`);
      if (rootDir !== first) {
        const notes = join(rootDir, ".memo", "memory", "notes.md");
        await mkdir(dirname(notes), { recursive: true });
        await copyFile(join(first, ".memo", "memory", "notes.md"), notes);
      }
      log(`${tree.name} (${tree.commit}): writing its index snapshot`);
      await child(tree.dir, rootDir, "write");
      variants.push({ name: tree.name, tree: tree.dir, rootDir, mode: "open" });
      if (tree.name === "now") {
        variants.push({
          name: "now, embeddings on",
          tree: tree.dir,
          rootDir,
          mode: "open-embeddings",
        });
      }
    }
    const reads: Variant[] = trees.map((t) => ({
      name: t.name,
      tree: t.dir,
      rootDir: join(work, `project-${t.name}`),
      mode: "read",
    }));
    const all = [...variants, ...reads];
    const runs = new Map<Variant, Record<string, number>[]>(all.map((v) => [v, []]));
    for (let round = 0; round <= ROUNDS; round++) {
      const order = all.map((_, i) => all[(i + round) % all.length]);
      for (const v of order) {
        const figures = await child(v.tree, v.rootDir, v.mode);
        if (round > 0) runs.get(v)!.push(figures); // round 0 warms up
      }
      if (round > 0) {
        const open = (v: Variant) => runs.get(v)!.at(-1)!.openMs;
        log(
          `round ${round}/${ROUNDS}: ` +
            variants.map((v) => `${v.name} ${Math.round(open(v))} ms`).join(", "),
        );
      }
    }
    const base = variants.find((v) => v.name === AGAINST[0])!;
    const baseline = summary(runs.get(base)!);
    const report = {
      notes: NOTES,
      fileMB: round1(bytes / 1e6),
      rounds: ROUNDS,
      trees: Object.fromEntries(trees.map((t) => [t.name, t.commit])),
      opens: Object.fromEntries(variants.map((v) => {
        const rows = runs.get(v)!;
        const read = runs.get(reads.find((r) => r.tree === v.tree)!)!;
        const s = summary(rows);
        const readMs = summary(read).readMs;
        const ratios = rows.map((r, i) => r.openMs / runs.get(base)![i].openMs);
        return [v.name, {
          ...s,
          readMs,
          // A difference of medians: no p95 of its own.
          parseMs: { p50: round1(s.storeLoadMs.p50 - readMs.p50), p95: NaN },
          ratio: hundredths(s.openMs.p50 / baseline.openMs.p50),
          pairedRatio: hundredths(median(ratios)),
          cpuRatio: hundredths(s.cpuMs.p50 / baseline.cpuMs.p50),
        }];
      })),
    };
    print(report);
    if (flags.json) await writeFile(flags.json, JSON.stringify(report, null, 2));
  } finally {
    Deno.removeSignalListener("SIGINT", stop);
    Deno.removeSignalListener("SIGTERM", stop);
    await cleanUp();
  }
}

function print(report: {
  notes: number;
  fileMB: number;
  rounds: number;
  trees: Record<string, string>;
  opens: Record<string, Record<string, { p50: number; p95: number } | number>>;
}) {
  console.log(
    `${report.notes} notes (${report.fileMB} MB), ${report.rounds} rounds, trees: ` +
      Object.entries(report.trees).map(([k, v]) => `${k} = ${v}`).join(", "),
  );
  const rows = [
    ["open", "openMs"],
    ["  store load (read + parse)", "storeLoadMs"],
    ["    read alone", "readMs"],
    ["    parse (load - read)", "parseMs"],
    ["  snapshot (wait, key, import)", "snapshotMs"],
    ["  catch-up", "catchUpMs"],
    ["CPU during the open", "cpuMs"],
    ["peak RSS, MB", "peakRssMB"],
  ];
  const names = Object.keys(report.opens);
  const cell = (v: unknown) => {
    const x = v as { p50: number; p95: number };
    return (Number.isNaN(x.p95) ? `${x.p50}` : `${x.p50} / ${x.p95}`).padStart(22);
  };
  console.log(`${"ms, p50 / p95".padEnd(32)}${names.map((n) => n.padStart(22)).join("")}`);
  for (const [label, key] of rows) {
    console.log(`${label.padEnd(32)}${names.map((n) => cell(report.opens[n][key])).join("")}`);
  }
  const ratio = (n: string, key: string) => (report.opens[n][key] as number).toFixed(2);
  console.log(
    `${"open / baseline (medians; paired)".padEnd(32)}${
      names.map((n) => `${ratio(n, "ratio")}; ${ratio(n, "pairedRatio")}`.padStart(22)).join("")
    }`,
  );
  console.log(
    `${"CPU / baseline (medians)".padEnd(32)}${
      names.map((n) => ratio(n, "cpuRatio").padStart(22)).join("")
    }`,
  );
}
