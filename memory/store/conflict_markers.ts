/**
 * Git's conflict markers in `notes.md`: a file that a text merge left conflicted holds, for each
 * conflicting hunk, a full run of marker lines: `<<<<<<<`, optionally `|||||||` (the base, in the
 * `diff3` and `zdiff3` styles), `=======`, then `>>>>>>>` (seven characters, then a space or the
 * line's end). Only a full run counts: a lone `=======` is a markdown heading underline, and lines
 * inside a fenced code block (a hand-written note quoting a conflict) are text. memo escapes such
 * lines in the bodies it writes (`escapeBody`), so an unescaped run can only come from git.
 *
 * @module
 */

import { NOTE_MARKER_START } from "./codec.ts";

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

function kindOf(line: string): Kind {
  if (line.length < 7) return Kind.Text;
  const c = line.charCodeAt(0);
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
  for (let i = 1; i < 7; i++) if (line.charCodeAt(i) !== c) return Kind.Text;
  const next = line.charCodeAt(7);
  return line.length === 7 || next === 32 || next === 13 || next === 10 ? kind : Kind.Text;
}

/** A fence opener or closer: up to three spaces, then three or more backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

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
export function splitConflict(text: string): ConflictSides | undefined {
  if (!hasConflictStart(text)) return undefined;
  const ours: string[] = [];
  const theirs: string[] = [];
  const base: string[] = [];
  let hunks = 0;
  let allBases = true;
  // 0: outside; 1: ours; 2: base; 3: theirs.
  let state = 0;
  let hunk: { ours: string[]; base: string[] | undefined; theirs: string[]; all: string[] } | null =
    null;
  let fence = "";
  let pos = 0;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    const end = nl < 0 ? text.length : nl + 1;
    const line = text.slice(pos, end);
    pos = end;
    const kind = fence === "" || state !== 0 ? kindOf(line) : Kind.Text;
    if (state === 0) {
      if (kind === Kind.Start) {
        state = 1;
        hunk = { ours: [], base: undefined, theirs: [], all: [line] };
        continue;
      }
      if (line.startsWith(NOTE_MARKER_START)) fence = "";
      else {
        const f = FENCE.exec(line);
        if (f) {
          const mark = f[1];
          if (fence === "") fence = mark;
          else if (mark[0] === fence[0] && mark.length >= fence.length) fence = "";
        }
      }
      ours.push(line);
      theirs.push(line);
      base.push(line);
      continue;
    }
    const h = hunk!;
    h.all.push(line);
    if (kind === Kind.Base && state === 1) {
      state = 2;
      h.base = [];
    } else if (kind === Kind.Separator && (state === 1 || state === 2)) state = 3;
    else if (kind === Kind.End && state === 3) {
      ours.push(...h.ours);
      theirs.push(...h.theirs);
      if (h.base) base.push(...h.base);
      else allBases = false;
      hunks++;
      state = 0;
      hunk = null;
    } else (state === 1 ? h.ours : state === 2 ? h.base! : h.theirs).push(line);
  }
  if (hunk) {
    // An unfinished run is text.
    ours.push(...hunk.all);
    theirs.push(...hunk.all);
    base.push(...hunk.all);
  }
  if (hunks === 0) return undefined;
  return {
    ours: ours.join(""),
    theirs: theirs.join(""),
    base: allBases ? base.join("") : undefined,
    hunks,
  };
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
