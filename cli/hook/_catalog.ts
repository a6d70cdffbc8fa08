/**
 * Internal: the hooks' own index of the notes, kept in `.memo/cache/hooks/`, so that a hook (a
 * fresh process on every prompt) reads neither the whole `notes.md` nor any body it will not
 * print, nor parses more than the few notes it shows:
 *
 * - `catalog.json` (the head, written last): the key, the build's id, the note count, and each
 *   term's place in the build's `index-<id>.bin`;
 * - `labels-<id>.json`: each label's notes (read at session start only);
 * - `index-<id>.bin` (32-bit integers in the machine's order): each note's number of terms, the
 *   notes by most recent update, the byte offset of each note's line in `notes-<id>.jsonl`, then
 *   the ordinals of the notes holding each term;
 * - `notes-<id>.jsonl`: one line per live note (superseded ones are left out): id, title,
 *   labels, times, validity, the byte range of its section in `notes.md`, and whether its text
 *   may hold a secret (the scanner's quick test, run when the index is built).
 *
 * The head is keyed on the size, modification time and inode of `notes.md`. When they differ the
 * index is built again (`_catalog_build.ts`): by `memo hook --rebuild`, a process of its own,
 * while the old index serves the hooks, each note checked against its section before it is
 * printed. The build reads the notes through `@memo/memory`, which serves an unresolved git merge
 * the way reads do (such an index keeps the notes' text inline, as the file's bytes do not hold
 * them). A body is read from its byte range only when it is printed.
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
  notesPathOf,
  VERSION,
} from "./_catalog_types.ts";

export { type CatalogNote, hooksCacheDir };

/** The catalog of a project, open for reading. */
export class Catalog {
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
    dir: string,
    notesPath: string,
    files: CliFiles,
  ) {
    this.#files = files;
    this.#id = head.id;
    this.count = head.count;
    this.averageLength = head.average;
    this.#terms = head.terms;
    this.#ints = ints;
    this.#dir = dir;
    this.#notesPath = notesPath;
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
      todo.forEach((o, i) => this.#notes.set(o, JSON.parse(decoder.decode(parts[i]))));
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
    const parts = await this.#files.readRanges(
      this.#notesPath,
      fromFile.map((o) => [this.note(o).start, this.note(o).end]),
    );
    const decoder = new TextDecoder();
    fromFile.forEach((o, i) => {
      const body = sectionBody(decoder.decode(parts[i]), this.note(o).id, now);
      if (body !== undefined) out.set(o, body);
    });
    return out;
  }
}

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

async function fileKey(files: CliFiles, path: string): Promise<string | undefined> {
  const s = await files.stat(path);
  return s && `${s.size}:${s.mtimeMs}:${s.ino}`;
}

/** Thrown when the catalog must be built while another process holds the notes' lock. */
export class StoreLockedError extends Error {
  constructor() {
    super("the notes are locked by another process (a write in progress)");
    this.name = "StoreLockedError";
  }
}

/** How {@linkcode openCatalog} gets a catalog built. */
export interface CatalogBuilds {
  /** Told before a build in this process starts. */
  onBuild?: () => void;
  /**
   * Starts a build in another process (`memo hook --rebuild`); then a changed notes.md is read
   * through the catalog as it was (checked note by note), and a missing one adds nothing.
   */
  background?: () => Promise<void>;
}

/** Since when a build is taken to be running (`building` holds its start). */
const BUILD_MARK_MS = 10 * 60_000;

/**
 * Opens the project's catalog. When `notes.md` changed since it was built, it is built again: in
 * another process when `builds.background` is given (the old catalog serves meanwhile, marked
 * stale), else here. Undefined when the project has no notes file, or no catalog yet while one
 * is built apart.
 */
export async function openCatalog(
  root: string,
  files: CliFiles,
  builds: CatalogBuilds = {},
): Promise<Catalog | undefined> {
  const notesPath = notesPathOf(root);
  const key = await fileKey(files, notesPath);
  if (key === undefined) return undefined;
  const dir = hooksCacheDir(root);
  const headPath = join(dir, "catalog.json");
  let catalog: Catalog | undefined;
  try {
    const head = JSON.parse(await files.readText(headPath)) as CatalogHead;
    if (head.v === VERSION) {
      const size = (3 * head.count + 1) * 4;
      const [bytes] = await files.readRanges(join(dir, `index-${head.id}.bin`), [[0, size]]);
      if (bytes.byteLength === size) {
        catalog = new Catalog(head, ints(bytes), dir, notesPath, files);
      }
      if (catalog && head.key === key) return catalog;
    }
  } catch {
    // none yet, or damaged: built below
  }
  if (builds.background) {
    const mark = join(dir, "building");
    const since = (await files.stat(mark))?.mtimeMs;
    if (since === undefined || Date.now() - since > BUILD_MARK_MS) {
      await files.mkdir(dir);
      await files.writeAtomically(mark, new Date().toISOString());
      await builds.background();
    }
    if (catalog) catalog.stale = true;
    return catalog;
  }
  return await buildCatalogHere(root, files, builds.onBuild);
}

/**
 * Builds the project's catalog in this process and writes it (what `memo hook --rebuild`
 * runs); undefined when the project has no notes file.
 */
export async function buildCatalogHere(
  root: string,
  files: CliFiles,
  onBuild: () => void = () => {},
): Promise<Catalog | undefined> {
  const notesPath = notesPathOf(root);
  const key = await fileKey(files, notesPath);
  if (key === undefined) return undefined;
  const dir = hooksCacheDir(root);
  try {
    if (await fileKey(files, `${notesPath}.lock`) !== undefined) throw new StoreLockedError();
    onBuild();
    const { head, ints } = await writeCatalog(root, key, dir, files);
    return new Catalog(head, ints.subarray(0, 3 * head.count + 1), dir, notesPath, files);
  } finally {
    await files.remove(join(dir, "building"));
  }
}
