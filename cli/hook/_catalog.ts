/**
 * Internal: one scope's part of the hooks' own index, so that a hook (a fresh process on every
 * prompt) reads neither a whole notes file nor any body it will not print, nor parses more than
 * the few notes it shows. Each scope served has a part of its own, in that scope's cache
 * (`_catalog_types.ts`: `partPlace`), and `_memory.ts` reads the parts as one memory. A part is:
 *
 * - `catalog.json` (the head, written last): the key, the build's id, the note count, and each
 *   term's place in the build's `index-<id>.bin`;
 * - `labels-<id>.json`: each label's notes (read at session start only);
 * - `index-<id>.bin` (32-bit integers in the machine's order): each note's number of terms, the
 *   notes by most recent update, the byte offset of each note's line in `notes-<id>.jsonl`, the
 *   id table (each note's id hash and ordinal, by hash), then the ordinals of the notes holding
 *   each term;
 * - `notes-<id>.jsonl`: one line per live note (superseded ones are left out): id, title,
 *   labels, times, validity, the byte range of its section in the scope's notes file, and
 *   whether its text may hold a secret (the scanner's quick test, run when the part is built).
 *
 * The head is keyed on the size, modification time and inode of the scope's notes file. When
 * they differ the part is built again (`_catalog_build.ts`): by `memo hook --rebuild`, a process
 * of its own, while the old part serves the hooks, each note checked against its section before
 * it is printed. The build reads the notes through `@memo/memory`, which serves an unresolved git
 * merge the way reads do (such a part keeps the notes' text inline, as the file's bytes do not
 * hold them). A body is read from its byte range only when it is printed.
 *
 * @module
 */

import { join } from "./_paths.ts";
import type { CliFiles } from "../context.ts";
import { writeCatalog } from "./_catalog_build.ts";
import {
  type CatalogHead,
  type CatalogNote,
  hooksCacheDir,
  type PartPlace,
  VERSION,
} from "./_catalog_types.ts";

export { type CatalogNote, hooksCacheDir };

/** One scope's part of the catalog, open for reading. */
export class Catalog {
  /** The scope, its notes file and the part's folder. */
  readonly place: PartPlace;
  readonly count: number;
  readonly averageLength: number;
  /**
   * Set when notes.md changed since the catalog was built (a rebuild runs apart): each note
   * printed is checked against its section first (see {@linkcode Catalog.bodies}).
   */
  stale = false;
  readonly #terms: Record<string, [number, number]>;
  readonly #ints: Int32Array;
  readonly #dir: string;
  readonly #notesPath: string;
  readonly #files: CliFiles;
  readonly #id: string;
  #postings = new Map<string, Int32Array>();
  #notes = new Map<number, CatalogNote>();

  constructor(
    head: CatalogHead,
    ints: Int32Array,
    place: PartPlace,
    files: CliFiles,
  ) {
    this.place = place;
    this.#files = files;
    this.#id = head.id;
    this.count = head.count;
    this.averageLength = head.average;
    this.#terms = head.terms;
    this.#ints = ints;
    this.#dir = place.dir;
    this.#notesPath = place.notes;
  }

  /**
   * The id table: pairs of (id hash, ordinal), by hash (read from index.bin on first use; only
   * when another scope's part is not empty).
   */
  async idTable(): Promise<Int32Array> {
    if (this.count === 0) return new Int32Array(0);
    const from = (3 * this.count + 1) * 4;
    const [bytes] = await this.#files.readRanges(
      join(this.#dir, `index-${this.#id}.bin`),
      [[from, from + 2 * this.count * 4]],
    );
    return ints(bytes);
  }

  /** The notes with any of `labels`, by ordinal (read from the build's `labels-<id>.json`). */
  async labelled(labels: readonly string[]): Promise<Set<number>> {
    const out = new Set<number>();
    if (!labels.length) return out;
    let map: Record<string, number[]>;
    try {
      map = JSON.parse(await this.#files.readText(join(this.#dir, `labels-${this.#id}.json`)));
    } catch {
      return out;
    }
    for (const label of labels) {
      if (Object.hasOwn(map, label)) { for (const o of map[label]) out.add(o); }
    }
    return out;
  }

  /** The notes' numbers of terms, by ordinal. */
  get lengths(): Int32Array {
    return this.#ints.subarray(0, this.count);
  }

  /** Number of terms of a note. */
  length(ordinal: number): number {
    return this.#ints[ordinal] ?? 0;
  }

  /** The ordinals by most recent update first. */
  get recent(): Int32Array {
    return this.#ints.subarray(this.count, 2 * this.count);
  }

  /** Reads the postings of the given terms (one open of index.bin). */
  async load(wanted: readonly string[]): Promise<void> {
    const todo = wanted.filter((t) => !this.#postings.has(t) && Object.hasOwn(this.#terms, t));
    if (!todo.length) return;
    const parts = await this.#files.readRanges(
      join(this.#dir, `index-${this.#id}.bin`),
      todo.map((t) => [this.#terms[t][0] * 4, (this.#terms[t][0] + this.#terms[t][1]) * 4]),
    );
    todo.forEach((t, i) => this.#postings.set(t, ints(parts[i])));
  }

  /** The postings of a term {@linkcode load}ed before (empty otherwise). */
  postings(term: string): Int32Array {
    return this.#postings.get(term) ?? new Int32Array(0);
  }

  /** Reads the given notes' lines (one open of notes.jsonl). */
  async notes(ordinals: ArrayLike<number>): Promise<CatalogNote[]> {
    const todo: number[] = [];
    for (let i = 0; i < ordinals.length; i++) {
      if (!this.#notes.has(ordinals[i])) todo.push(ordinals[i]);
    }
    if (todo.length) {
      const offsets = this.#ints.subarray(2 * this.count);
      const parts = await this.#files.readRanges(
        join(this.#dir, `notes-${this.#id}.jsonl`),
        todo.map((o) => [offsets[o], offsets[o + 1]]),
      );
      const decoder = new TextDecoder();
      const scope = this.place.scope;
      todo.forEach((o, i) => {
        const note: CatalogNote = JSON.parse(decoder.decode(parts[i]));
        if (scope !== "project") note.scope = scope;
        this.#notes.set(o, note);
      });
    }
    return Array.from(ordinals, (o) => this.#notes.get(o)!);
  }

  /** A note read by {@linkcode notes} before. */
  note(ordinal: number): CatalogNote {
    return this.#notes.get(ordinal)!;
  }

  /**
   * The bodies of the given notes (read before with {@linkcode notes}), read from their byte
   * ranges at `now`; a note whose section no longer holds it (the file changed since), or whose
   * marker says it is superseded, expired or not yet valid, is left out.
   */
  async bodies(
    ordinals: readonly number[],
    now: number = Date.now(),
  ): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    const fromFile = ordinals.filter((o) => this.note(o).text === undefined);
    for (const o of ordinals) {
      const text = this.note(o).text;
      if (text !== undefined) out.set(o, text);
    }
    if (!fromFile.length) return out;
    // A stale catalog's ranges may no longer fit their sections: each is read with the bytes
    // after it, which must open the next note (or be the file's end), else the note is left out
    // rather than printed cut short. Its text may be anything now: it is scanned for secrets.
    const past = this.stale ? NEXT_SECTION.length : 0;
    const parts = await this.#files.readRanges(
      this.#notesPath,
      fromFile.map((o) => [this.note(o).start, this.note(o).end + past]),
    );
    const decoder = new TextDecoder();
    fromFile.forEach((o, i) => {
      const note = this.note(o);
      let bytes = parts[i];
      if (this.stale) {
        const span = note.end - note.start;
        const after = decoder.decode(bytes.subarray(span));
        if (after !== "" && after !== NEXT_SECTION) return;
        bytes = bytes.subarray(0, span);
        note.secret = true;
      }
      const body = sectionBody(decoder.decode(bytes), note.id, now);
      if (body !== undefined) out.set(o, body);
    });
    return out;
  }
}

/** What the next section of notes.md opens with: its marker line. */
const NEXT_SECTION = "<!-- memo:";

/** 32-bit integers over bytes (copied when not aligned). */
function ints(bytes: Uint8Array): Int32Array {
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Int32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength >> 2);
}

/**
 * The body of one section of notes.md (marker, `## title`, body), when its marker names `id` and
 * the note holds at `now` (not superseded, not expired, already valid).
 */
function sectionBody(section: string, id: string, now: number): string | undefined {
  const firstBreak = section.indexOf("\n");
  if (firstBreak < 0) return undefined;
  const marker = section.slice(0, firstBreak);
  const json = /^<!-- memo:note (\{.*\}) -->\s*$/.exec(marker)?.[1];
  let meta: { id?: unknown; supersededBy?: unknown; validUntil?: unknown; validFrom?: unknown };
  try {
    meta = JSON.parse(json ?? "null") ?? {};
  } catch {
    return undefined;
  }
  if (meta.id !== id) return undefined;
  if (Array.isArray(meta.supersededBy) && meta.supersededBy.length) return undefined;
  if (typeof meta.validUntil === "string" && Date.parse(meta.validUntil) <= now) return undefined;
  if (typeof meta.validFrom === "string" && Date.parse(meta.validFrom) > now) return undefined;
  const titleBreak = section.indexOf("\n", firstBreak + 1);
  const body = titleBreak < 0 ? "" : section.slice(titleBreak + 1);
  return unescapeBody(body.replace(/\s+$/, ""));
}

/** The codec's unescaping of a body (`memory/store/codec.ts`), for the lines a hook prints. */
function unescapeBody(text: string): string {
  if (!text.includes("\\")) return text;
  return text.replace(/^\\(\\*<!-- memo:)/gm, "$1")
    .replace(/^\\(\\*(?:<{7}|\|{7}|={7}|>{7})(?![^ \r\n]))/gm, "$1");
}

/** The key of a notes file (size, modification time, inode); undefined when there is none. */
export async function fileKey(files: CliFiles, path: string): Promise<string | undefined> {
  const s = await files.stat(path);
  return s && `${s.size}:${s.mtimeMs}:${s.ino}`;
}

/** Thrown when a part must be built while another process holds its notes' lock. */
export class StoreLockedError extends Error {
  constructor() {
    super("the notes are locked by another process (a write in progress)");
    this.name = "StoreLockedError";
  }
}

/** One scope's part as it was found: its file's key, and the part (fresh or not) if any. */
export interface FoundPart {
  place: PartPlace;
  /** The notes file's key now. */
  key: string;
  /** The part last built, if one is readable. */
  catalog?: Catalog;
  /** Whether that part was built from the file as it is now. */
  fresh: boolean;
}

/** Reads one scope's part; undefined when the scope has no notes file. */
export async function findPart(place: PartPlace, files: CliFiles): Promise<FoundPart | undefined> {
  const key = await fileKey(files, place.notes);
  if (key === undefined) return undefined;
  try {
    const head = JSON.parse(await files.readText(join(place.dir, "catalog.json"))) as CatalogHead;
    if (head.v === VERSION) {
      const size = (3 * head.count + 1) * 4;
      const [bytes] = await files.readRanges(join(place.dir, `index-${head.id}.bin`), [[0, size]]);
      if (bytes.byteLength === size) {
        const catalog = new Catalog(head, ints(bytes), place, files);
        return { place, key, catalog, fresh: head.key === key };
      }
    }
  } catch {
    // none yet, or damaged: to be built
  }
  return { place, key, fresh: false };
}

/** Since when a build is taken to be running (`building` holds its start). */
const BUILD_MARK_MS = 10 * 60_000;

/**
 * Marks the given parts as being built (each part's `building` file), and tells whether a build
 * should start: false when every one of them is marked by a build started less than 10 minutes
 * ago.
 */
export async function markBuilding(
  places: readonly PartPlace[],
  files: CliFiles,
): Promise<boolean> {
  let start = false;
  for (const place of places) {
    const mark = join(place.dir, "building");
    const since = (await files.stat(mark))?.mtimeMs;
    if (since === undefined || Date.now() - since > BUILD_MARK_MS) {
      await files.mkdir(place.dir);
      await files.writeAtomically(mark, new Date().toISOString());
      start = true;
    }
  }
  return start;
}

/**
 * Builds one scope's part in this process and writes it (what `memo hook --rebuild` runs);
 * undefined when the scope has no notes file.
 */
export async function buildPartHere(
  place: PartPlace,
  files: CliFiles,
  onBuild: () => void = () => {},
): Promise<Catalog | undefined> {
  const key = await fileKey(files, place.notes);
  if (key === undefined) return undefined;
  try {
    if (await fileKey(files, `${place.notes}.lock`) !== undefined) throw new StoreLockedError();
    onBuild();
    const { head, ints } = await writeCatalog(place, key, files);
    return new Catalog(head, ints.subarray(0, 3 * head.count + 1), place, files);
  } finally {
    await files.remove(join(place.dir, "building"));
  }
}
