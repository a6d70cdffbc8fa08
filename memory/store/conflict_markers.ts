/**
 * Git's conflict markers in `notes.md`: a file that a text merge left conflicted holds, for each
 * conflicting hunk, a full run of marker lines: `<<<<<<<`, optionally `|||||||` (the base, in the
 * `diff3` and `zdiff3` styles), `=======`, then `>>>>>>>` (seven characters, then a space or the
 * line's end). Only a full run counts: a lone `=======` is a markdown heading underline, and lines
 * inside a fenced code block that closes within its note (a hand-written note quoting a conflict)
 * are text; a block a note leaves open protects nothing past that note. memo escapes such
 * lines in the bodies it writes (`escapeBody`), so an unescaped run can only come from git. While
 * git lists the file as unmerged (`{ unmerged: true }`), a full run in a code block is git's too
 * (git puts a hunk there whenever both sides changed a line of it), unless one of the sides as
 * committed holds it word for word: then a note quotes it, and git left it alone.
 *
 * @module
 */

import { NOTE_MARKER_START } from "./codec.ts";
import { gitSides, gitUnmerged } from "../platform/git_base.ts";

/**
 * The three texts a conflicted file holds: every line outside the hunks goes to each, and each
 * hunk's parts to theirs. `base` is `undefined` unless every hunk carries a `|||||||` part.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConflictSides, splitConflict } from "@memo/memory";
 * const sides: ConflictSides | undefined = splitConflict("a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> x\n");
 * assert.deepEqual(sides, { ours: "a\nb\n", theirs: "a\nc\n", base: undefined, hunks: 1 });
 * ```
 */
export interface ConflictSides {
  /** The text with each hunk's first part (`HEAD`, ours). */
  ours: string;
  /** The text with each hunk's last part (theirs). */
  theirs: string;
  /** The text with each hunk's `|||||||` part, when every hunk has one. */
  base: string | undefined;
  /** How many hunks the file holds. */
  hunks: number;
}

/**
 * What a file that holds git's conflict markers reads as: the merge `memo resolve` would write
 * (see `merge/merge_conflicted.ts`), held in memory while the file is left as it is: what
 * `FileMemoryStore.unresolvedMerge` reports.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { UnresolvedMerge } from "@memo/memory";
 * const merge: UnresolvedMerge = { path: "notes.md", hunks: 1, base: "none", conflicts: 0, twins: 0 };
 * assert.equal(merge.text, undefined);
 * ```
 */
export interface UnresolvedMerge {
  /** The conflicted file. */
  path: string;
  /** Conflict hunks in the file. */
  hunks: number;
  /** Where the merge's base came from: the file's diff3 parts, git's index, or none. */
  base: "file" | "given" | "none";
  /** The merged text (what `memo resolve` writes); absent when a side cannot be read as notes. */
  text?: string;
  /** Conflict copies the merge makes. */
  conflicts: number;
  /** Notes added on both sides under two ids, kept once. */
  twins: number;
}

/** What a line is to the scanner. */
const enum Kind {
  Text,
  Start,
  Base,
  Separator,
  End,
}

/** The kind of the line `text[start, end)` (with its line break). */
function kindAt(text: string, start: number, end: number): Kind {
  if (end - start < 7) return Kind.Text;
  const c = text.charCodeAt(start);
  const kind = c === 60
    ? Kind.Start
    : c === 124
    ? Kind.Base
    : c === 61
    ? Kind.Separator
    : c === 62
    ? Kind.End
    : Kind.Text;
  if (kind === Kind.Text) return kind;
  for (let i = 1; i < 7; i++) if (text.charCodeAt(start + i) !== c) return Kind.Text;
  const next = text.charCodeAt(start + 7);
  return end - start === 7 || next === 32 || next === 13 || next === 10 ? kind : Kind.Text;
}

/** Whether the line at `start` may open or close a fence: up to three spaces, then ` or ~. */
function mayFence(text: string, start: number): boolean {
  let i = start;
  while (i < start + 3 && text.charCodeAt(i) === 32) i++;
  const c = text.charCodeAt(i);
  return c === 96 || c === 126;
}

/** A fence opener or closer: up to three spaces, then three or more backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The fence mark (its run of backticks or tildes) the line `text[start, end)` opens or closes with. */
function fenceMark(text: string, start: number, end: number): string | undefined {
  if (!mayFence(text, start)) return undefined;
  return FENCE.exec(text.slice(start, end))?.[1];
}

/** Whether `mark` closes a block opened by `fence`: the same character, at least as many. */
function closes(mark: string, fence: string): boolean {
  return mark[0] === fence[0] && mark.length >= fence.length;
}

/**
 * Whether the code block `fence` opened closes, from `pos` on, before the next note begins (or the
 * text ends). Only such a block makes the marker lines in it a note's text: a fence a note leaves
 * open ends with the note, and git's markers after it, around the next note's lines, are git's.
 */
function fenceClosesFirst(text: string, pos: number, fence: string): boolean {
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    const end = nl < 0 ? text.length : nl + 1;
    if (text.startsWith(NOTE_MARKER_START, pos)) return false;
    const mark = fenceMark(text, pos, end);
    if (mark !== undefined && closes(mark, fence)) return true;
    pos = end;
  }
  return false;
}

/**
 * Splits a conflicted text into its sides; `undefined` when it holds no full run of markers.
 * Cheap on a clean file: one substring search for `<<<<<<<`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitConflict } from "@memo/memory";
 * const diff3 = "<<<<<<< ours\nb\n||||||| base\na\n=======\nc\n>>>>>>> theirs\n";
 * assert.deepEqual(splitConflict(diff3), { ours: "b\n", theirs: "c\n", base: "a\n", hunks: 1 });
 * assert.equal(splitConflict("Title\n=======\n"), undefined); // a heading underline
 * assert.equal(splitConflict("~~~\n<<<<<<< a\n=======\n>>>>>>> b\n~~~\n"), undefined); // quoted
 * ```
 */
export function splitConflict(
  text: string,
  options?: ConflictScanOptions,
): ConflictSides | undefined {
  return scanConflict(text, true, options);
}

/**
 * How {@linkcode splitConflict} and {@linkcode conflictHunks} read marker lines in a code block.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { conflictHunks, type ConflictScanOptions } from "@memo/memory";
 * const quoted = "~~~\n<<<<<<< a\nb\n=======\nc\n>>>>>>> d\n~~~\n";
 * const unmerged: ConflictScanOptions = { unmerged: true };
 * assert.equal(conflictHunks(quoted), 0); // a note quoting a conflict
 * assert.equal(conflictHunks(quoted, unmerged), 1); // git's hunk inside a code block
 * ```
 */
export interface ConflictScanOptions {
  /**
   * Git lists the file as unmerged: a full run in a code block is git's hunk too, not a quote
   * (unless `committed` holds it).
   *
   * @default {false}
   */
  unmerged?: boolean;
  /**
   * The texts the merge joins, as committed (git's index stages 2 and 3): a run in a code block
   * that one of them holds word for word is a note's quote, even while the file is unmerged.
   *
   * @default {[]}
   */
  committed?: readonly string[];
}

/**
 * How many full runs of conflict markers (hunks) a text holds, as {@linkcode splitConflict}
 * finds them; 0 when it returns `undefined`. Cheaper: the sides are not put together.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { conflictHunks } from "@memo/memory";
 * assert.equal(conflictHunks("<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n"), 1);
 * assert.equal(conflictHunks("<<<<<<< ours\nb\n"), 0); // an unfinished run is text
 * ```
 */
export function conflictHunks(text: string, options?: ConflictScanOptions): number {
  return scanConflict(text, false, options)?.hunks ?? 0;
}

/**
 * {@linkcode splitConflict}, putting the sides together only when `keep` is set; code blocks
 * quote only what `committed` holds when `unmerged` is set.
 */
function scanConflict(
  text: string,
  keep: boolean,
  options: ConflictScanOptions | undefined,
): ConflictSides | undefined {
  if (!hasConflictStart(text)) return undefined;
  const unmerged = options?.unmerged === true;
  const committed = options?.committed ?? [];
  // The sides, as slices of `text`: runs of text outside hunks go to all three.
  const ours: string[] = [];
  const theirs: string[] = [];
  const base: string[] = [];
  let hunks = 0;
  let allBases = true;
  // 0: outside; 1: ours; 2: base; 3: theirs.
  let state = 0;
  let fence = "";
  let outside = 0; // where the current run of outside text starts
  let hunkStart = 0; // where the open hunk's start marker is
  let part = 0; // where the open hunk's current part starts
  let oursPart = "";
  let basePart: string | undefined;
  let pos = 0;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    const start = pos;
    const end = nl < 0 ? text.length : nl + 1;
    pos = end;
    if (state === 0) {
      if (
        kindAt(text, start, end) === Kind.Start &&
        (fence === "" || !fenceClosesFirst(text, end, fence) ||
          (unmerged && !committedRun(text, start, committed)))
      ) {
        fence = "";
        if (keep) {
          const run = text.slice(outside, start);
          ours.push(run);
          theirs.push(run);
          base.push(run);
        }
        state = 1;
        hunkStart = start;
        part = end;
        basePart = undefined;
        continue;
      }
      if (text.startsWith(NOTE_MARKER_START, start)) fence = "";
      else {
        const mark = fenceMark(text, start, end);
        if (mark !== undefined) {
          if (fence === "") fence = mark;
          else if (closes(mark, fence)) fence = "";
        }
      }
      continue;
    }
    const kind = kindAt(text, start, end);
    if (kind === Kind.Base && state === 1) {
      oursPart = text.slice(part, start);
      part = end;
      state = 2;
    } else if (kind === Kind.Separator && (state === 1 || state === 2)) {
      if (state === 1) oursPart = text.slice(part, start);
      else basePart = text.slice(part, start);
      part = end;
      state = 3;
    } else if (kind === Kind.End && state === 3) {
      if (keep) {
        ours.push(oursPart);
        theirs.push(text.slice(part, start));
      }
      if (basePart === undefined) allBases = false;
      else if (keep) base.push(basePart);
      hunks++;
      state = 0;
      outside = end;
    }
  }
  // An unfinished run is text.
  const rest = text.slice(state === 0 ? outside : hunkStart);
  ours.push(rest);
  theirs.push(rest);
  base.push(rest);
  if (hunks === 0) return undefined;
  if (!keep) return { ours: "", theirs: "", base: undefined, hunks };
  return {
    ours: ours.join(""),
    theirs: theirs.join(""),
    base: allBases ? base.join("") : undefined,
    hunks,
  };
}

/**
 * Whether one of the `committed` texts holds, word for word, the full run of markers that starts
 * at `start` (the lines from it to the run's `>>>>>>>` line): then it is a note's, not git's.
 */
function committedRun(text: string, start: number, committed: readonly string[]): boolean {
  if (committed.length === 0) return false;
  let state = 1;
  let pos = text.indexOf("\n", start) + 1;
  while (pos > 0 && pos < text.length) {
    const nl = text.indexOf("\n", pos);
    const end = nl < 0 ? text.length : nl + 1;
    const kind = kindAt(text, pos, end);
    if (kind === Kind.Separator && state === 1) state = 3;
    else if (kind === Kind.End && state === 3) {
      const run = text.slice(start, end);
      return committed.some((side) => side.includes(run));
    }
    pos = end;
  }
  return false;
}

/**
 * Whether a text may hold a conflict: a line that starts with `<<<<<<<`. The quick test before
 * {@linkcode splitConflict}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasConflictStart } from "@memo/memory";
 * assert.equal(hasConflictStart("a\n<<<<<<< HEAD\n"), true);
 * assert.equal(hasConflictStart("a <<<<<<< b\n"), false);
 * ```
 */
export function hasConflictStart(text: string): boolean {
  let i = text.indexOf("<<<<<<<");
  while (i >= 0) {
    if (i === 0 || text.charCodeAt(i - 1) === 10) return true;
    i = text.indexOf("<<<<<<<", i + 7);
  }
  return false;
}

const UNMERGED: ConflictScanOptions = Object.freeze({ unmerged: true });

/**
 * How to scan the file at `path` for conflicts: `{ unmerged: true, committed }` when a full run of
 * markers sits in a code block and git lists the file as unmerged (then that run is git's hunk,
 * unless one of the two sides as committed holds it), else `undefined` (code blocks quote). Git is
 * asked only in that case, never for a clean file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { conflictScanFor } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const quoted = "~~~\n<<<<<<< a\nb\n=======\nc\n>>>>>>> d\n~~~\n";
 * assert.equal(await conflictScanFor(quoted, `${dir}/notes.md`), undefined); // not in git
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function conflictScanFor(
  text: string,
  path: string,
): Promise<ConflictScanOptions | undefined> {
  if (!hasConflictStart(text) || conflictHunks(text, UNMERGED) <= conflictHunks(text)) {
    return undefined;
  }
  if (!await gitUnmerged(path)) return undefined;
  return { unmerged: true, committed: await gitSides(path) };
}
