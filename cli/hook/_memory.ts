/**
 * Internal: the memory a hook reads, every scope served as one: the parts of the hooks' index
 * (`_catalog.ts`, one per scope: `project`, `local`, `user`) read side by side, their ordinals
 * laid end to end (the project's first, then local's, then user's), so that the recall ranks
 * them as one memory (one note count, one average length, each term's notes across scopes), as
 * the rest of memo does.
 *
 * A note whose id a scope earlier in that order also holds (a move out of the project that git
 * brought back) is left out, as reads leave it out: only the first copy is shown. The parts'
 * id tables find such notes without reading their lines, and only when a scope other than the
 * project holds notes.
 *
 * @module
 */

import { join } from "node:path";
import type { CliFiles } from "../context.ts";
import { buildPartHere, type Catalog, findPart, type FoundPart, markBuilding } from "./_catalog.ts";
import {
  type CatalogNote,
  HOOK_SCOPES,
  type HookScope,
  type PartPlace,
  partPlace,
} from "./_catalog_types.ts";

/** How {@linkcode openMemory} gets parts built. */
export interface CatalogBuilds {
  /** Told before a build in this process starts. */
  onBuild?: () => void;
  /**
   * Starts a build in another process (`memo hook --rebuild`); then a changed notes file is read
   * through its part as it was (checked note by note), and a missing part adds nothing. `false`:
   * nothing started.
   */
  background?: () => Promise<boolean | void>;
}

/** The scopes a hook serves, and where the user scope lives. */
export interface HookScopes {
  /** The scopes served, in read order. */
  serve: readonly HookScope[];
  /** `MEMO_HOME`: the user scope's folder (the user scope is served only with one). */
  memoHome?: string;
}

/** The places of the parts of the scopes served. */
export function partPlaces(root: string, scopes: HookScopes): PartPlace[] {
  return HOOK_SCOPES.filter((s) =>
    scopes.serve.includes(s) && (s !== "user" || scopes.memoHome !== undefined)
  ).map((s) => partPlace(s, root, scopes.memoHome));
}

/** The parts of every scope served, read as one memory (see the module's text). */
export class HookMemory {
  /** The number of notes shown (copies left out aside): the `n` of the ranking. */
  readonly count: number;
  /** The size of the ordinal space (every part's notes, copies included). */
  readonly ordinals: number;
  readonly averageLength: number;
  /** The notes shown, per scope. */
  readonly counts: Partial<Record<HookScope, number>>;
  readonly #parts: Catalog[];
  readonly #bases: number[];
  readonly #stale: boolean[];
  readonly #hidden: Set<number>;
  readonly #lengths: Int32Array;

  constructor(parts: Catalog[], stale: boolean[], hidden: Set<number>) {
    this.#parts = parts;
    this.#stale = stale;
    this.#hidden = hidden;
    this.#bases = [];
    let base = 0;
    let total = 0;
    const counts: Partial<Record<HookScope, number>> = {};
    for (const part of parts) {
      this.#bases.push(base);
      base += part.count;
      total += part.averageLength * part.count;
      counts[part.place.scope] = part.count;
    }
    this.ordinals = base;
    if (parts.length === 1) this.#lengths = parts[0].lengths;
    else {
      this.#lengths = new Int32Array(base);
      parts.forEach((part, i) => this.#lengths.set(part.lengths, this.#bases[i]));
    }
    for (const o of hidden) {
      total -= this.#lengths[o];
      const scope = parts[this.#partOf(o)].place.scope;
      counts[scope] = (counts[scope] ?? 1) - 1;
    }
    this.count = base - hidden.size;
    this.averageLength = this.count ? total / this.count : 0;
    this.counts = counts;
  }

  /** The index of the part holding a global ordinal. */
  #partOf(ordinal: number): number {
    let i = this.#parts.length - 1;
    while (i > 0 && this.#bases[i] > ordinal) i--;
    return i;
  }

  /** Whether a global ordinal's part was built before its notes file last changed. */
  staleAt(ordinal: number): boolean {
    return this.#stale[this.#partOf(ordinal)];
  }

  /** The notes' numbers of terms, by ordinal. */
  get lengths(): Int32Array {
    return this.#lengths;
  }

  /** Number of terms of a note. */
  length(ordinal: number): number {
    return this.#lengths[ordinal] ?? 0;
  }

  /** Reads the postings of the given terms (one open of each part's index.bin). */
  async load(wanted: readonly string[]): Promise<void> {
    await Promise.all(this.#parts.map((p) => p.load(wanted)));
  }

  /** The notes holding a term {@linkcode load}ed before, ascending (copies left out). */
  postings(term: string): Int32Array {
    if (this.#parts.length === 1 && !this.#hidden.size) return this.#parts[0].postings(term);
    const lists = this.#parts.map((p) => p.postings(term));
    const out = new Int32Array(lists.reduce((n, l) => n + l.length, 0));
    let at = 0;
    const hidden = this.#hidden.size ? this.#hidden : undefined;
    lists.forEach((list, i) => {
      const base = this.#bases[i];
      if (base === 0) {
        // The first part (the project's, usually the largest): copied as it is (no copy of
        // another's is ever left out of the first part).
        out.set(list, at);
        at += list.length;
        return;
      }
      for (let j = 0; j < list.length; j++) {
        const o = list[j] + base;
        if (!hidden?.has(o)) out[at++] = o;
      }
    });
    return at === out.length ? out : out.subarray(0, at);
  }

  /** The notes with any of `labels`, by ordinal. */
  async labelled(labels: readonly string[]): Promise<Set<number>> {
    const out = new Set<number>();
    const sets = await Promise.all(this.#parts.map((p) => p.labelled(labels)));
    sets.forEach((set, i) => {
      for (const o of set) if (!this.#hidden.has(o + this.#bases[i])) out.add(o + this.#bases[i]);
    });
    return out;
  }

  /**
   * The `limit` most recently updated notes (among `among` when given), most recent first: each
   * part's own, merged by update time (their lines read).
   */
  async recent(limit: number, among?: ReadonlySet<number>): Promise<number[]> {
    const picked: number[] = [];
    for (let i = 0; i < this.#parts.length; i++) {
      const part = this.#parts[i];
      const base = this.#bases[i];
      let taken = 0;
      for (const o of part.recent) {
        if (taken >= limit) break;
        const global = o + base;
        if (this.#hidden.has(global) || (among && !among.has(global))) continue;
        picked.push(global);
        taken++;
      }
    }
    await this.notes(picked);
    if (this.#parts.length === 1) return picked;
    const rank = new Map(picked.map((o, i) => [o, i]));
    return picked.sort((a, b) => {
      const ua = this.note(a).updated, ub = this.note(b).updated;
      return ua < ub ? 1 : ua > ub ? -1 : rank.get(a)! - rank.get(b)!;
    }).slice(0, limit);
  }

  /** Reads the given notes' lines (one open of each part's notes.jsonl). */
  async notes(ordinals: ArrayLike<number>): Promise<CatalogNote[]> {
    const byPart = this.#parts.map(() => [] as number[]);
    for (let i = 0; i < ordinals.length; i++) {
      const p = this.#partOf(ordinals[i]);
      byPart[p].push(ordinals[i] - this.#bases[p]);
    }
    await Promise.all(byPart.map((list, p) => list.length && this.#parts[p].notes(list)));
    return Array.from(ordinals, (o) => this.note(o));
  }

  /** A note read by {@linkcode notes} before. */
  note(ordinal: number): CatalogNote {
    const p = this.#partOf(ordinal);
    return this.#parts[p].note(ordinal - this.#bases[p]);
  }

  /**
   * The bodies of the given notes (read before with {@linkcode notes}), read from their byte
   * ranges at `now`; a note whose section no longer holds it, or whose marker says it is
   * superseded, expired or not yet valid, is left out (see `Catalog.bodies`).
   */
  async bodies(
    ordinals: readonly number[],
    now: number = Date.now(),
  ): Promise<Map<number, string>> {
    const byPart = this.#parts.map(() => [] as number[]);
    for (const o of ordinals) {
      const p = this.#partOf(o);
      byPart[p].push(o - this.#bases[p]);
    }
    const out = new Map<number, string>();
    const found = await Promise.all(
      byPart.map((list, p) => list.length ? this.#parts[p].bodies(list, now) : new Map()),
    );
    found.forEach((map, p) => {
      for (const [o, body] of map) out.set(o + this.#bases[p], body);
    });
    return out;
  }
}

/**
 * Opens the memory of the scopes served. A part whose notes file changed since it was built is
 * built again: in another process when `builds.background` is given (the old part serves
 * meanwhile, marked stale, and a scope with no part yet adds nothing), else here. Undefined when
 * no scope served has a part.
 */
export async function openMemory(
  root: string,
  scopes: HookScopes,
  files: CliFiles,
  builds: CatalogBuilds = {},
): Promise<HookMemory | undefined> {
  const found = (await Promise.all(partPlaces(root, scopes).map((p) => findPart(p, files))))
    .filter((f): f is FoundPart => f !== undefined);
  const parts: Catalog[] = [];
  const stale: boolean[] = [];
  const todo = found.filter((f) => !f.fresh);
  if (todo.length && builds.background) {
    const places = todo.map((f) => f.place);
    if (await markBuilding(places, files) && await builds.background() === false) {
      // Nothing started: the marks go, so that the next hook tries again (not 10 minutes later).
      await Promise.all(places.map((p) => files.remove(join(p.dir, "building")).catch(() => {})));
    }
  }
  for (const f of found) {
    if (f.fresh) parts.push(f.catalog!), stale.push(false);
    else if (builds.background) {
      if (f.catalog) {
        f.catalog.stale = true; // its notes file changed since: every note printed is checked
        parts.push(f.catalog), stale.push(true);
      }
    } else {
      const built = await buildPartHere(f.place, files, builds.onBuild);
      if (built) parts.push(built), stale.push(false);
    }
  }
  if (!parts.length) return undefined;
  return new HookMemory(parts, stale, await copies(parts));
}

/**
 * The global ordinals of the notes a part earlier in read order also holds (by id): the id
 * tables' hashes meet, then the lines say whether the ids do.
 */
async function copies(parts: Catalog[]): Promise<Set<number>> {
  const hidden = new Set<number>();
  const filled = parts.map((p, i) => ({ p, i })).filter(({ p }) => p.count > 0);
  if (filled.length < 2) return hidden;
  const bases: number[] = [];
  parts.reduce((base, p) => (bases.push(base), base + p.count), 0);
  const tables = await Promise.all(filled.map(({ p }) => p.idTable()));
  for (let later = 1; later < filled.length; later++) {
    for (let earlier = 0; earlier < later; earlier++) {
      // Each hash of the smaller table looked up in the larger one (the project's is often
      // 100,000 notes, the others' a few).
      const a = tables[earlier], b = tables[later];
      const small = a.length <= b.length ? a : b, large = small === a ? b : a;
      const pairs: [number, number][] = [];
      for (let k = 0; k < small.length; k += 2) {
        for (
          let at = firstOf(large, small[k]);
          at < large.length && large[at] === small[k];
          at += 2
        ) {
          pairs.push(small === a ? [small[k + 1], large[at + 1]] : [large[at + 1], small[k + 1]]);
        }
      }
      if (!pairs.length) continue;
      const first = filled[earlier].p, second = filled[later].p;
      await first.notes(pairs.map(([x]) => x));
      await second.notes(pairs.map(([, y]) => y));
      for (const [x, y] of pairs) {
        if (first.note(x).id === second.note(y).id) hidden.add(bases[filled[later].i] + y);
      }
    }
  }
  return hidden;
}

/** The first place of `hash` in an id table (pairs of hash and ordinal, by hash), or past it. */
function firstOf(table: Int32Array, hash: number): number {
  let lo = 0, hi = table.length >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (table[2 * mid] < hash) lo = mid + 1;
    else hi = mid;
  }
  return 2 * lo;
}

/**
 * Builds the parts of the scopes served whose notes file changed since they were built (what
 * `memo hook --rebuild` runs). Each part's failure is handed to `onError`, and the others are
 * built still.
 */
export async function rebuildMemory(
  root: string,
  scopes: HookScopes,
  files: CliFiles,
  onError: (place: PartPlace, error: unknown) => Promise<void>,
): Promise<void> {
  for (const place of partPlaces(root, scopes)) {
    try {
      const f = await findPart(place, files);
      if (f && !f.fresh) await buildPartHere(place, files);
    } catch (e) {
      await onError(place, e);
    }
  }
}
