/**
 * Internal: a three-way merge of short texts by lines, as `git merge-file` does it (a change on
 * one side is taken, the same change on both sides once), for the free text above a notes file's
 * first note. Where both sides changed the same lines differently, the whole side that sorts first
 * bytewise is kept, so that both directions of a merge agree.
 *
 * @module
 */

/** Beyond this many line pairs, a difference is not looked for line by line. */
const MAX_CELLS = 4_000_000;

/** The text's lines, each with its line break. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * For each line of `a`, the index of the line of `b` it is matched with in a longest common
 * subsequence, or -1; undefined when the texts are too long to compare.
 */
function matches(a: readonly string[], b: readonly string[]): number[] | undefined {
  const n = a.length, m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) return undefined;
  const w = m + 1;
  const len = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[i * w + j] = a[i] === b[j]
        ? len[(i + 1) * w + j + 1] + 1
        : Math.max(len[(i + 1) * w + j], len[i * w + j + 1]);
    }
  }
  const out = new Array<number>(n).fill(-1);
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) out[i++] = j++;
    else if (len[(i + 1) * w + j] >= len[i * w + j + 1]) i++;
    else j++;
  }
  return out;
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Merges `ours` and `theirs`, two versions of `base`, line by line; `undefined` when both changed
 * the same place differently.
 */
function diff3(base: string, ours: string, theirs: string): string | undefined {
  const b = linesOf(base), o = linesOf(ours), t = linesOf(theirs);
  const mo = matches(b, o), mt = matches(b, t);
  if (!mo || !mt) return undefined;
  const out: string[] = [];
  let i = 0, j = 0, k = 0;
  for (;;) {
    // The next base line that both sides kept (the end of the texts otherwise).
    let s = i;
    while (s < b.length && (mo[s] < 0 || mt[s] < 0)) s++;
    const jEnd = s < b.length ? mo[s] : o.length;
    const kEnd = s < b.length ? mt[s] : t.length;
    const bc = b.slice(i, s), oc = o.slice(j, jEnd), tc = t.slice(k, kEnd);
    if (same(oc, bc)) out.push(...tc);
    else if (same(tc, bc) || same(oc, tc)) out.push(...oc);
    else return undefined;
    if (s >= b.length) break;
    out.push(b[s]);
    i = s + 1;
    j = jEnd + 1;
    k = kEnd + 1;
  }
  return out.join("");
}

/**
 * The three-way merge of a short text: both sides' changes where they do not overlap, else the
 * side that sorts first bytewise (by UTF-8 bytes).
 */
export function mergeText(base: string, ours: string, theirs: string): string {
  if (ours === theirs || theirs === base) return ours;
  if (ours === base) return theirs;
  const merged = diff3(base, ours, theirs);
  if (merged !== undefined) return merged;
  return compareBytes(ours, theirs) <= 0 ? ours : theirs;
}

/** Compares two strings by their UTF-8 bytes. */
function compareBytes(a: string, b: string): number {
  const x = new TextEncoder().encode(a), y = new TextEncoder().encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}
