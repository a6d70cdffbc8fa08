/**
 * Internal: a unified diff of two texts (what `memo tidy` prints), readable by `git apply` and
 * `patch`. The texts differ in a few places of a large file (the marker lines of the notes a
 * plan changes), so the lines are compared in the regions between the common start and end of
 * each changed stretch, with a longest-common-subsequence table over those regions only.
 *
 * @module
 */

/** One line of a hunk: ` ` kept, `-` removed, `+` added. */
type Op = { kind: " " | "-" | "+"; line: string };

/** Lines of a text, each without its line break; `noEol` when the last line has none. */
function linesOf(text: string): { lines: string[]; noEol: boolean } {
  if (text === "") return { lines: [], noEol: false };
  const lines = text.split("\n");
  const noEol = lines[lines.length - 1] !== "";
  if (!noEol) lines.pop();
  return { lines, noEol };
}

/** The edit script of two short line lists (LCS table). */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i][j] = a[i] === b[j]
        ? table[i + 1][j + 1] + 1
        : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i++] });
      j++;
    } else if (i < n && (j === m || table[i + 1][j] >= table[i][j + 1])) {
      ops.push({ kind: "-", line: a[i++] });
    } else ops.push({ kind: "+", line: b[j++] });
  }
  return ops;
}

/** Lines compared at a time in one region; a longer changed stretch is compared as a block. */
const MAX_REGION = 2000;

/**
 * The unified diff of `before` and `after` (`---`/`+++` headers naming `path` as `a/path` and
 * `b/path`, hunks with `context` lines around each change), or "" when they are equal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unifiedDiff } from "./_unified_diff.ts";
 *
 * const before = "a\nb\nc\nd\ne\n";
 * assert.equal(
 *   unifiedDiff(before, "a\nb\nC\nd\ne\n", "notes.md", 1),
 *   "--- a/notes.md\n+++ b/notes.md\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n",
 * );
 * assert.equal(unifiedDiff(before, before, "notes.md"), "");
 * ```
 */
export function unifiedDiff(before: string, after: string, path: string, context = 3): string {
  if (before === after) return "";
  const A = linesOf(before);
  const B = linesOf(after);
  // The whole script: runs of equal lines, and the changed stretches compared line by line.
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  const a = A.lines;
  const b = B.lines;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i++] });
      j++;
      continue;
    }
    // A changed stretch: up to where the two texts meet again on a line both hold next.
    const [ti, tj] = meetAgain(a, b, i, j);
    ops.push(...editScript(a.slice(i, ti), b.slice(j, tj)));
    i = ti;
    j = tj;
  }
  return "--- a/" + path + "\n+++ b/" + path + "\n" + hunks(ops, context, A.noEol, B.noEol);
}

/**
 * Where the changed stretch that starts at `a[i]` and `b[j]` ends: both sides are read a line at a
 * time, in turn, until one reads a line the other has read already (or the search gives up after
 * `2 * MAX_REGION` lines).
 */
function meetAgain(a: string[], b: string[], i: number, j: number): [number, number] {
  const texts = [a, b];
  const at = [i, j];
  const seen = [new Map<string, number>(), new Map<string, number>()];
  while ((at[0] < a.length || at[1] < b.length) && at[0] - i + at[1] - j < 2 * MAX_REGION) {
    for (const side of [0, 1]) {
      if (at[side] >= texts[side].length) continue;
      const line = texts[side][at[side]];
      const other = seen[1 - side].get(line);
      if (other !== undefined) return side === 0 ? [at[0], other] : [other, at[1]];
      if (!seen[side].has(line)) seen[side].set(line, at[side]);
      at[side]++;
    }
  }
  return [at[0], at[1]];
}

/** The hunks of an edit script. */
function hunks(ops: readonly Op[], context: number, noEolA: boolean, noEolB: boolean): string {
  const out: string[] = [];
  const lastA = ops.reduce((n, o) => n + (o.kind !== "+" ? 1 : 0), 0);
  const lastB = ops.reduce((n, o) => n + (o.kind !== "-" ? 1 : 0), 0);
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && ops[k].kind === " ") k++;
    if (k >= ops.length) break;
    let start = Math.max(0, k - context);
    // Extend while the next change is within 2 × context kept lines.
    let end = k;
    for (;;) {
      while (end < ops.length && ops[end].kind !== " ") end++;
      let run = end;
      while (run < ops.length && ops[run].kind === " ") run++;
      if (run < ops.length && run - end <= 2 * context) end = run;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    let aLine = 1;
    let bLine = 1;
    for (let x = 0; x < start; x++) {
      if (ops[x].kind !== "+") aLine++;
      if (ops[x].kind !== "-") bLine++;
    }
    let aCount = 0;
    let bCount = 0;
    const body: string[] = [];
    for (let x = start; x < end; x++) {
      const op = ops[x];
      if (op.kind !== "+") aCount++;
      if (op.kind !== "-") bCount++;
      body.push(op.kind + op.line);
      const atEndA = op.kind !== "+" && aLine + aCount - 1 === lastA && noEolA;
      const atEndB = op.kind !== "-" && bLine + bCount - 1 === lastB && noEolB;
      if (atEndA || atEndB) body.push("\\ No newline at end of file");
    }
    const range = (line: number, count: number) =>
      count === 0 ? `${line - 1},0` : count === 1 ? `${line}` : `${line},${count}`;
    out.push(`@@ -${range(aLine, aCount)} +${range(bLine, bCount)} @@`, ...body);
    start = end;
    k = end;
  }
  return out.join("\n") + "\n";
}
