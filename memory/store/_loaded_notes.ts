/**
 * Internal: what a {@linkcode FileMemoryStore} holds of `notes.md`, and the ways it changes: the
 * sections as last read (a {@linkcode NoteTable}), the file's stamp and last bytes, the issues the
 * parse found, the catch-up with the file (nothing, its new tail, or a full reload), and the
 * writes that change the file and the table together (an append, an atomic rewrite).
 *
 * On request, a full reload also hashes the bytes it reads (see `load_digest.ts`): the digests
 * last while the table only grows by appends, and a rewrite or another full reload drops them.
 * With a digest cache (see `_digest_cache.ts`), the digest of a file whose status is the one
 * recorded is taken from there instead of hashing, and a digest taken by hashing is recorded.
 *
 * A conflicted file reads as its merge: computed once, then kept in the merge cache (see
 * `_merge_cache.ts`) for the next process, keyed by the digest of the conflicted text (and of the
 * base git's index gave). The merge's digests key the index snapshot as a clean file holding the
 * merged bytes would.
 *
 * The store takes the lock and serialises calls; this class assumes both.
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import type { Note } from "../notes/note.ts";
import type { StoreChanges, StoreIssue } from "./store.ts";
import { NOTES_PREAMBLE, serializeNote } from "./codec.ts";
import { type NotesSection, parseNotes } from "./parse.ts";
import { NoteTable } from "./_note_table.ts";
import type { HeldLock } from "./_lock.ts";
import type { ContentDigest, LoadDigests } from "./load_digest.ts";
import {
  type FileStamp,
  type NotesRead,
  readNotes,
  sameFile,
  sameStamp,
  statStamp,
} from "./_notes_file.ts";
import { appendText, joinTail, rewriteFile } from "./_notes_write.ts";
import { gitMergeBase } from "../platform/git_base.ts";
import {
  conflictScanFor,
  hasConflictStart,
  splitConflict,
  type UnresolvedMerge,
} from "./conflict_markers.ts";
import {
  type CachedMerge,
  dropMergeCache,
  encodeMerge,
  readMergeCache,
  sha256Hex,
  writeMergeCache,
} from "./_merge_cache.ts";
import { readDigestCache, writeDigestCache } from "./_digest_cache.ts";

/**
 * The loaded state of one notes file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { LoadedNotes } from "./_loaded_notes.ts";
 * const dir = await Deno.makeTempDir();
 * const notes = join(dir, "notes.md");
 * const loaded = new LoadedNotes(notes, `${notes}.lock`);
 * await loaded.refresh(false); // no file yet: nothing loaded, nothing created
 * assert.equal(loaded.table.size, 0);
 * const note = {
 *   id: "a1", title: "Hello", body: "world", labels: [], hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z", updated: "2025-01-01T00:00:00.000Z",
 * };
 * await loaded.append([note], { abandon() {} });
 * assert.equal(loaded.table.get("a1")?.body, "world");
 * const again = new LoadedNotes(notes, `${notes}.lock`);
 * await again.refresh(false);
 * assert.deepEqual(again.table.get("a1"), note);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class LoadedNotes {
  readonly #notesPath: string;
  readonly #lockPath: string;
  #table = new NoteTable();
  #loaded = false;
  #stamp: FileStamp | undefined;
  #tail: Uint8Array = new Uint8Array(0);
  /** Whether growth read since the last full read or rewrite is still unchecked above its start. */
  #unverified = false;
  #issues: StoreIssue[] = [];
  #wanted: { mark?: number } | undefined;
  #digests: LoadDigests | undefined;
  #merge: UnresolvedMerge | undefined;
  readonly #conflictBase: () => Promise<string | undefined>;
  readonly #mergeCache: string | undefined;
  readonly #digestCache: string | undefined;
  readonly #now: () => number;

  /**
   * Nothing is read until the first {@linkcode LoadedNotes.refresh}. `mergeCache` is the path of
   * the merge cache, `digestCache` the path of the digest cache (none without them); `now` is
   * the clock a file's change time is compared with (milliseconds).
   */
  constructor(
    notesPath: string,
    lockPath: string,
    conflictBase?: () => Promise<string | undefined>,
    mergeCache?: string,
    digestCache?: string,
    now: () => number = Date.now,
  ) {
    this.#notesPath = notesPath;
    this.#lockPath = lockPath;
    this.#conflictBase = conflictBase ?? (() => gitMergeBase(notesPath));
    this.#mergeCache = mergeCache;
    this.#digestCache = digestCache;
    this.#now = now;
  }

  /** Set while the file holds git's conflict markers: the table then holds the merge. */
  get unresolvedMerge(): UnresolvedMerge | undefined {
    return this.#merge;
  }

  /** The sections as last read or written. */
  get table(): NoteTable {
    return this.#table;
  }

  /** Damaged sections and duplicate ids found by the last parse (and tails since). */
  get issues(): readonly StoreIssue[] {
    return this.#issues;
  }

  /** What the last full reload hashed, while its notes are still the table's first notes. */
  get digests(): LoadDigests | undefined {
    return this.#digests;
  }

  /**
   * Asks the next full reload to hash what it reads, and the first `mark` bytes when a section
   * starts there.
   */
  requestDigests(mark?: number): void {
    this.#wanted = { mark };
  }

  /** Forgets everything: the next refresh reads the whole file. */
  reset(): void {
    this.#digests = undefined;
    this.#table = new NoteTable();
    this.#loaded = false;
    this.#stamp = undefined;
    this.#tail = new Uint8Array(0);
  }

  /**
   * The table's changes since `token` when the file is loaded and a stat finds it as it was (what
   * {@linkcode LoadedNotes.refresh} would leave as it is), without awaiting; undefined when the
   * file must be read first.
   */
  changesIfCurrent(token: string | undefined): StoreChanges | undefined {
    if (!this.#loaded || !this.#isCurrent(statStamp(this.#notesPath))) return undefined;
    return this.#table.changes(token);
  }

  /**
   * Whether the file as a stat finds it (`now`) is the one loaded: no file then and now, or the
   * same stamp. What {@linkcode LoadedNotes.refresh} leaves as it is.
   */
  #isCurrent(now: FileStamp | undefined): boolean {
    const was = this.#stamp;
    return now === undefined ? was === undefined : was !== undefined && sameStamp(now, was);
  }

  /** Catches up with the file: nothing, its new tail, or everything. */
  async refresh(locked: boolean): Promise<void> {
    if (!this.#loaded) return this.fullReload(locked);
    const now = statStamp(this.#notesPath);
    if (this.#isCurrent(now)) return;
    const was = this.#stamp;
    if (!now) return this.fullReload(locked); // the file loaded is gone
    // The table of a conflicted file is a merge, not the file's prefix.
    if (this.#merge) return this.fullReload(locked);
    // A rename (another process's rewrite, an editor's save), or a change that is not growth.
    if (was && (!sameFile(now, was) || now.size <= was.size)) return this.fullReload(locked);
    // The file grew (or appeared): read only what follows what is loaded.
    const read = await readNotes({
      notesPath: this.#notesPath,
      lockPath: this.#lockPath,
      locked,
      from: was?.size ?? 0,
      expectTail: this.#tail,
    });
    if (typeof read === "string") return this.fullReload(locked);
    if (read.chunks.some(hasConflictStart)) return this.fullReload(locked);
    const parsed = parseNotes(read.chunks, {
      knownIds: this.#table,
      firstLine: () => this.#table.lineCount() + 1,
    });
    this.#table.append(parsed.sections);
    this.#issues.push(...parsed.issues);
    this.#stamp = read.stamp;
    this.#tail = read.tail;
    // Only the bytes before the old end were checked: an edit in place further up, followed by
    // another process's append, still looks like growth.
    this.#unverified = true;
  }

  /**
   * Makes sure the table holds the file's bytes, all of them, before a rewrite writes the file
   * from it: after a read of another process's growth, only the bytes just before the old end were
   * checked, and a rewrite from a table that missed an edit in place further up would undo that
   * edit. Reads the file once and compares; reads it all again (a full reload) when they differ.
   * True when it reloaded: what was planned on the table must be planned again.
   */
  async exact(locked: boolean): Promise<boolean> {
    if (!this.#unverified || this.#merge) return false;
    const text = await readTextOrUndefined(this.#notesPath);
    let pos = 0;
    let same = text !== undefined;
    for (const section of this.#table.sections) {
      if (!same) break;
      same = text!.startsWith(section.raw, pos);
      pos += section.raw.length;
    }
    if (same && pos === text!.length) {
      this.#unverified = false;
      return false;
    }
    await this.fullReload(locked);
    return true;
  }

  /** Reads and parses the whole file. */
  async fullReload(locked: boolean): Promise<void> {
    const wanted = this.#wanted;
    this.#wanted = undefined;
    this.#digests = undefined;
    const cache = wanted && this.#digestCache;
    const readStart = this.#now();
    const read = await readNotes({
      notesPath: this.#notesPath,
      lockPath: this.#lockPath,
      locked,
      hash: wanted !== undefined,
      mark: wanted?.mark,
      known: cache ? readDigestCache(cache) : undefined,
    });
    if (read === "moved") throw new Error("unreachable: a full read cannot move");
    this.#merge = undefined;
    const merged = read !== "missing" && read.chunks.some(hasConflictStart)
      ? await this.#mergeConflict(read.chunks.join(""), read.sha256)
      : undefined;
    const parsed = read === "missing"
      ? { sections: [], issues: [], byId: new Map() }
      : parseNotes(merged?.text ?? read.chunks);
    if (read !== "missing" && read.sha256 !== undefined && merged === undefined) {
      this.#digests = digestsOf(read, parsed.sections, read.sha256);
    } else if (wanted && merged?.digest) {
      // As a clean file holding the merged bytes would be keyed.
      const { bytes, sha256 } = merged.digest;
      const whole =
        digestsOf({ chunks: [], stamp: { size: bytes } as FileStamp }, parsed.sections, sha256)
          .whole;
      this.#digests = { whole, prefix: wanted.mark === bytes ? whole : undefined };
    }
    // The index by identity is built by the first write that looks a note up: readers never pay.
    this.#table.replaceAll(parsed.sections, parsed.byId);
    this.#issues = parsed.issues;
    this.#stamp = read === "missing" ? undefined : read.stamp;
    this.#tail = read === "missing" ? new Uint8Array(0) : read.tail;
    this.#unverified = false;
    this.#loaded = true;
    if (cache && read !== "missing" && read.status && !read.trusted) {
      await writeDigestCache(
        cache,
        { status: read.status, sha256: read.sha256! },
        readStart,
        this.#now,
      );
    }
  }

  /**
   * The text a conflicted file reads as (the merge `memo resolve` writes; the "ours" side when a
   * side cannot be read as notes), with the digest of the merged bytes, setting
   * {@linkcode LoadedNotes.unresolvedMerge}; `undefined` when the file holds no full run of
   * conflict markers. `sha256` is the digest of the file's bytes when the read took it.
   */
  async #mergeConflict(
    text: string,
    sha256?: string,
  ): Promise<{ text: string; digest?: { bytes: number; sha256: string } } | undefined> {
    const cachePath = this.#mergeCache;
    const conflicted = cachePath === undefined ? "" : sha256 ?? sha256Hex(text);
    // The base git's index gives, asked at most once (null: not asked yet).
    let base: string | undefined | null = null;
    const cached = cachePath === undefined
      ? undefined
      : await readMergeCache(cachePath, conflicted);
    if (cached) {
      if (cached.from !== "file") base = await this.#conflictBase();
      if (cached.from === "file" || digestOf(base) === cached.base) return this.#useCached(cached);
    }
    // A run of markers in a code block is git's while git lists the file as unmerged.
    const scan = await conflictScanFor(text, this.#notesPath);
    const sides = splitConflict(text, scan);
    if (!sides) return undefined;
    const { mergeConflictedNotes } = await import("../merge/merge_conflicted.ts");
    // Without diff3 parts in the file, the merge is three-way on git's index stage 1 if any.
    if (sides.base === undefined && base === null) base = await this.#conflictBase();
    let merged = mergeConflictedNotes(
      text,
      sides.base === undefined ? base ?? undefined : undefined,
      scan,
    )!;
    // A base from git's index that cannot be read as notes cannot be mended in the file (only the
    // sides can): the merge goes two-way, as without a base.
    if (!merged.ok && merged.side === "base" && merged.base === "given") {
      merged = mergeConflictedNotes(text, undefined, scan)!;
    }
    const ok = merged.ok ? merged : undefined;
    this.#merge = {
      path: this.#notesPath,
      hunks: merged.hunks,
      base: merged.base,
      text: ok?.text,
      conflicts: ok?.conflicts ?? 0,
      twins: ok?.twins ?? 0,
    };
    if (!ok) return { text: sides.ours };
    const encoded = cachePath === undefined ? undefined : encodeMerge(ok.text);
    if (!encoded) return { text: ok.text };
    const { hunks, conflicts, twins } = this.#merge;
    const from = merged.base;
    const baseDigest = from === "given" ? digestOf(base) : null;
    await writeMergeCache(
      cachePath!,
      { conflicted, from, base: baseDigest, hunks, conflicts, twins },
      encoded.bytes,
      encoded.sha256,
    );
    return { text: ok.text, digest: { bytes: encoded.bytes.length, sha256: encoded.sha256 } };
  }

  /** Reads a cached merge as {@linkcode LoadedNotes.#mergeConflict} would have computed it. */
  #useCached(cached: CachedMerge): { text: string; digest: { bytes: number; sha256: string } } {
    const { hunks, from, text, conflicts, twins, bytes, sha256 } = cached;
    this.#merge = { path: this.#notesPath, hunks, base: from, text, conflicts, twins };
    return { text, digest: { bytes, sha256 } };
  }

  /**
   * Appends new notes (one write, one fsync); returns the bytes written. `whileDurable` runs
   * while the fsync does.
   */
  async append(
    notes: Note[],
    lock: Pick<HeldLock, "abandon">,
    whileDurable?: () => void,
  ): Promise<number> {
    const sizeBefore = this.#stamp?.size ?? 0;
    const preamble = sizeBefore === 0 ? NOTES_PREAMBLE : "";
    const newline = this.#tail.length > 0 && this.#tail[this.#tail.length - 1] !== 10 ? "\n" : "";
    const raws = notes.map(serializeNote);
    let done;
    try {
      const lead = preamble + newline;
      const pieces = lead ? [lead, ...raws] : raws;
      done = await appendText(this.#notesPath, pieces, sizeBefore, whileDurable);
    } catch (e) {
      // Bytes may be left past the lock's size: leave the lock for recovery, reload next time.
      if ((e as { details?: { cutBack?: boolean } }).details?.cutBack === false) lock.abandon();
      this.#loaded = false;
      throw e;
    }
    if (preamble) this.#table.append([{ raw: preamble }]);
    if (newline) this.#table.extendLast(newline);
    this.#table.append(raws.map((raw, i) => ({ raw, note: notes[i] })));
    if (done.stamp.size !== sizeBefore + done.bytes.length) this.#loaded = false;
    this.#stamp = done.stamp;
    this.#tail = joinTail(this.#tail, done.bytes);
    return done.bytes.length;
  }

  /**
   * Rewrites the file atomically with `replace`d notes, without `drop`, and with `added` notes at
   * the end; then applies the same changes in memory. Returns the bytes written.
   */
  async rewrite(
    replace: Map<NotesSection, Note>,
    drop?: NotesSection | ReadonlySet<NotesSection>,
    added: Note[] = [],
  ): Promise<number> {
    const dropped = drop instanceof Set ? drop : new Set(drop ? [drop as NotesSection] : []);
    const raws = new Map<NotesSection, string>();
    for (const [section, note] of replace) raws.set(section, serializeNote(note));
    const addedRaws = added.map(serializeNote);
    const sections = this.#table.sections;
    let last = sections.length - 1;
    while (last >= 0 && dropped.has(sections[last])) last--;
    const lastRaw = last >= 0 ? raws.get(sections[last]) ?? sections[last].raw : "";
    const preamble = sections.length === 0 && added.length ? NOTES_PREAMBLE : "";
    const newline = added.length && lastRaw !== "" && !lastRaw.endsWith("\n") ? "\n" : "";
    function* pieces() {
      for (const s of sections) if (!dropped.has(s)) yield raws.get(s) ?? s.raw;
      yield preamble + newline;
      yield* addedRaws;
    }
    const done = await rewriteFile(this.#notesPath, pieces());
    // A resolved merge: nothing reads its cache any more.
    if (this.#merge && this.#mergeCache !== undefined) await dropMergeCache(this.#mergeCache);
    this.#digests = undefined;
    this.#merge = undefined; // the file now holds the table (a resolved merge)
    for (const [section, note] of replace) this.#table.replace(section, note, raws.get(section)!);
    this.#table.removeMany(dropped);
    if (preamble) this.#table.append([{ raw: preamble }]);
    if (newline) this.#table.extendLast(newline);
    this.#table.append(addedRaws.map((raw, i) => ({ raw, note: added[i] })));
    this.#stamp = done.stamp;
    this.#tail = done.tail;
    this.#unverified = false;
    return done.size;
  }
}

/** The digest a cached merge records of a base: null for none. */
function digestOf(base: string | undefined | null): string | null {
  return typeof base === "string" ? sha256Hex(base) : null;
}

/**
 * The digests of a hashed full read: of every byte, and of the bytes before the mark, each with the
 * notes they hold (sections never span pieces, so the pieces before the mark hold whole sections).
 */
function digestsOf(
  read: Pick<NotesRead, "chunks" | "stamp" | "marked">,
  sections: readonly NotesSection[],
  sha256: string,
): LoadDigests {
  const { chunks, marked } = read;
  let notes = 0;
  let last: Note | undefined;
  for (const s of sections) {
    if (s.note) {
      notes++;
      last = s.note;
    }
  }
  const whole: ContentDigest = { bytes: read.stamp.size, sha256, notes, last };
  if (!marked) return { whole };
  if (marked.chunks === chunks.length) return { whole, prefix: whole };
  let chars = 0;
  for (let i = 0; i < marked.chunks; i++) chars += chunks[i].length;
  let seen = 0;
  let count = 0;
  let end: Note | undefined;
  for (let i = 0; i < sections.length && seen < chars; i++) {
    seen += sections[i].raw.length;
    const note = sections[i].note;
    if (note) {
      count++;
      end = note;
    }
  }
  if (seen !== chars) return { whole };
  return { whole, prefix: { bytes: marked.bytes, sha256: marked.sha256, notes: count, last: end } };
}

/** A file's text as the reads decode it (a BOM kept), or undefined when it is gone. */
async function readTextOrUndefined(path: string): Promise<string | undefined> {
  try {
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await readFile(path));
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
}
