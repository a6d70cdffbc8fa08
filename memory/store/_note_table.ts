/**
 * Internal: the file store's in-memory view of `notes.md`: sections in file order, indexes by id
 * and by identity, store-order paging, and a change log from which `changesSince` answers.
 *
 * Change tokens read `<instance>.<generation>.<version>`. Every full reload starts a new
 * generation (a token of an older one gets `reset`); every change within a generation gets a
 * version number and a log entry, so a token answers with a delta. The log is bounded: a token
 * older than the oldest entry kept also gets `reset`.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { normalizeNoteText, type Note, noteIdentity } from "../notes/note.ts";
import { textKey } from "../notes/text_key.ts";
import { countLineBreaks, type NotesSection } from "./parse.ts";
import type { StoreChanges } from "./store.ts";

const MAX_LOG = 50_000;

/** Sections of notes.md and what is derived from them. */
export class NoteTable {
  #sections: NotesSection[] = [];
  #byId = new Map<string, NotesSection>();
  /** Built on first use (a commit), not on load: readers never need it. */
  #identity: IdentityIndex | undefined;
  #order: Note[] | undefined;
  #positions: Map<string, number> | undefined;
  #lines: number | undefined = 0;
  readonly #instance = randomBytes(4).toString("hex");
  #generation = 0;
  #version = 0;
  #log: { v: number; id: string }[] = [];
  #logBase = 0;
  /** The current token (`instance.generation.version`), built when first asked after a change. */
  #token: string | undefined;
  #revision = 0;

  /** A number that changes whenever anything in the table changes. */
  get revision(): number {
    return this.#revision;
  }

  /** Every section in file order. */
  get sections(): readonly NotesSection[] {
    return this.#sections;
  }

  get size(): number {
    return this.#byId.size;
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  get(id: string): Note | undefined {
    return this.#byId.get(id)?.note;
  }

  section(id: string): NotesSection | undefined {
    return this.#byId.get(id);
  }

  /** The note holding the identity of `draft` (its source key, else its normalised text). */
  findIdentity(draft: { source?: string; body: string }): Note | undefined {
    if (!this.#identity) {
      this.#identity = new IdentityIndex();
      for (const s of this.#sections) if (s.note) this.#identity.add(s);
    }
    return this.#identity.find(draft)?.note;
  }

  /**
   * Replaces everything (a full reload): a new generation, so tokens get `reset`. `identity`,
   * when given, must hold every note of `sections` (see {@linkcode IdentityIndex}).
   */
  replaceAll(
    sections: NotesSection[],
    byId: Map<string, NotesSection>,
    identity?: IdentityIndex,
  ): void {
    this.#revision++;
    this.#sections = sections;
    this.#byId = byId;
    this.#identity = identity;
    this.#order = undefined;
    this.#positions = undefined;
    this.#lines = undefined;
    this.#generation++;
    this.#token = undefined;
    this.#log = [];
    this.#logBase = this.#version;
  }

  /** Adds sections at the end (an append, or the new tail of the file). */
  append(sections: readonly NotesSection[]): void {
    this.#revision++;
    for (const s of sections) {
      this.#sections.push(s);
      if (this.#lines !== undefined) this.#lines += countLineBreaks(s.raw);
      if (!s.note) continue;
      this.#byId.set(s.note.id, s);
      this.#identity?.add(s);
      this.#logChange(s.note.id);
      if (this.#order) {
        this.#positions?.set(s.note.id, this.#order.length);
        this.#order.push(s.note);
      }
    }
  }

  /** Adds text to the last section (a line break before appended notes). */
  extendLast(text: string): void {
    this.#revision++;
    const last = this.#sections[this.#sections.length - 1];
    if (last) last.raw += text;
    else this.#sections.push({ raw: text });
    if (this.#lines !== undefined) this.#lines += countLineBreaks(text);
  }

  /** Replaces one note's section in place (its id stays). */
  replace(section: NotesSection, note: Note, raw: string): void {
    this.#revision++;
    const old = section.note!;
    const moved = noteIdentity(old) !== noteIdentity(note);
    if (moved) this.#identity?.remove(section, this.#sections);
    if (this.#lines !== undefined) {
      this.#lines += countLineBreaks(raw) - countLineBreaks(section.raw);
    }
    section.note = note;
    section.raw = raw;
    if (moved) this.#identity?.add(section);
    if (this.#order) {
      const at = this.#positions?.get(old.id);
      if (at !== undefined) this.#order[at] = note;
      else this.#order = undefined;
    }
    this.#logChange(note.id);
  }

  /** Removes sections (one or many) in one pass over the table. */
  removeMany(dropped: ReadonlySet<NotesSection>): void {
    if (dropped.size === 0) return;
    this.#revision++;
    this.#sections = this.#sections.filter((s) => !dropped.has(s));
    for (const section of dropped) {
      const id = section.note!.id;
      this.#byId.delete(id);
      if (this.#lines !== undefined) this.#lines -= countLineBreaks(section.raw);
      this.#logChange(id);
    }
    this.#identity?.removeMany(dropped, this.#sections);
    this.#order = undefined;
    this.#positions = undefined;
  }

  /** Number of line breaks in the whole file (computed once, then kept up to date). */
  lineCount(): number {
    if (this.#lines === undefined) {
      let n = 0;
      for (const s of this.#sections) n += countLineBreaks(s.raw);
      this.#lines = n;
    }
    return this.#lines;
  }

  /** Notes in file order. */
  order(): readonly Note[] {
    if (!this.#order) {
      const order: Note[] = [];
      for (const s of this.#sections) if (s.note) order.push(s.note);
      this.#order = order;
      this.#positions = undefined;
    }
    return this.#order;
  }

  /** Position of a note in file order. */
  position(id: string): number | undefined {
    const order = this.order();
    if (!this.#positions) {
      this.#positions = new Map();
      for (let i = 0; i < order.length; i++) this.#positions.set(order[i].id, i);
    }
    return this.#positions.get(id);
  }

  /** What changed since `token` (everything, with `reset`, for a missing or stale token). */
  changes(token?: string): StoreChanges {
    const now = this.#token ??= `${this.#instance}.${this.#generation}.${this.#version}`;
    // Nothing since: what the walk below would find, without parsing the token (every recall asks).
    if (token === now) return { token: now, reset: false, upserted: [], removed: [] };
    const parts = typeof token === "string" ? token.split(".") : [];
    const version = Number(parts[2]);
    if (
      parts.length !== 3 || parts[0] !== this.#instance || parts[1] !== String(this.#generation) ||
      !Number.isInteger(version) || version < this.#logBase || version > this.#version
    ) {
      return { token: now, reset: true, upserted: [...this.order()], removed: [] };
    }
    const ids = new Set<string>();
    for (let i = this.#log.length - 1; i >= 0 && this.#log[i].v > version; i--) {
      ids.add(this.#log[i].id);
    }
    const upserted: Note[] = [];
    const removed: string[] = [];
    for (const id of [...ids].reverse()) {
      const note = this.get(id);
      if (note) upserted.push(note);
      else removed.push(id);
    }
    return { token: now, reset: false, upserted, removed };
  }

  #logChange(id: string): void {
    this.#version++;
    this.#token = undefined;
    this.#log.push({ v: this.#version, id });
    if (this.#log.length > MAX_LOG) {
      const drop = this.#log.length - MAX_LOG / 2;
      this.#logBase = this.#log[drop - 1].v;
      this.#log = this.#log.slice(drop);
    }
  }
}

/**
 * Sections by identity: by source key for notes with one, by normalised body text
 * (`normalizeNoteText`) for the others. The first note of an identity holds it (later ones exist
 * only after hand edits). A file store builds it at the first write that looks a note up (about
 * 25 ms for the source keys of 100,000 notes, beside the texts' keys), not while parsing: readers
 * never pay for it. The texts are keyed only at the first lookup of a text (a write of a note
 * without a source key).
 */
export class IdentityIndex {
  #bySource = new Map<string, NotesSection>();
  /** Text keys (`notes/text_key.ts`) to the first section with that key, or to all when they collide. */
  #byText: Map<number, NotesSection | NotesSection[]> | undefined;
  /** Sections without a source key, not keyed yet (in file order). */
  #unkeyed: NotesSection[] = [];

  find(d: { source?: string; body: string }): NotesSection | undefined {
    if (d.source !== undefined) return this.#bySource.get(d.source);
    const slot = this.#texts().get(textKey(d.body));
    if (slot === undefined) return undefined;
    const list = Array.isArray(slot) ? slot : [slot];
    const text = normalizeNoteText(d.body);
    return list.find((s) => normalizeNoteText(s.note!.body) === text);
  }

  add(s: NotesSection): void {
    const note = s.note!;
    if (note.source !== undefined) {
      if (!this.#bySource.has(note.source)) this.#bySource.set(note.source, s);
    } else if (this.#byText) this.#addText(this.#byText, s);
    else this.#unkeyed.push(s);
  }

  /**
   * Removes every section of `dropped` (`sections` no longer holds them); for an
   * identity left without a holder, the first remaining note with it takes over.
   */
  removeMany(dropped: ReadonlySet<NotesSection>, sections: readonly NotesSection[]): void {
    let orphaned = false;
    for (const s of dropped) {
      const note = s.note!;
      if (note.source !== undefined) {
        if (this.#bySource.get(note.source) === s) {
          this.#bySource.delete(note.source);
          orphaned = true;
        }
      } else if (this.#byText) this.#dropText(this.#byText, s);
    }
    if (this.#unkeyed.length) this.#unkeyed = this.#unkeyed.filter((s) => !dropped.has(s));
    if (!orphaned) return;
    // A text key holds every note with its key, so only source keys need a new holder.
    for (const other of sections) {
      const source = other.note?.source;
      if (source !== undefined && !this.#bySource.has(source)) this.#bySource.set(source, other);
    }
  }

  /** Removes `s`; another note with the same identity (left by hand edits) takes over. */
  remove(s: NotesSection, sections: readonly NotesSection[]): void {
    const note = s.note!;
    if (note.source === undefined) {
      this.removeMany(new Set([s]), sections);
      return;
    }
    if (this.#bySource.get(note.source) !== s) return;
    this.#bySource.delete(note.source);
    for (const other of sections) {
      if (other !== s && other.note?.source === note.source) {
        this.#bySource.set(note.source, other);
        break;
      }
    }
  }

  #texts(): Map<number, NotesSection | NotesSection[]> {
    if (!this.#byText) {
      const map = new Map<number, NotesSection | NotesSection[]>();
      for (const s of this.#unkeyed) this.#addText(map, s);
      this.#unkeyed = [];
      this.#byText = map;
    }
    return this.#byText;
  }

  #addText(map: Map<number, NotesSection | NotesSection[]>, s: NotesSection): void {
    const key = textKey(s.note!.body);
    const slot = map.get(key);
    if (slot === undefined) map.set(key, s);
    else if (Array.isArray(slot)) slot.push(s);
    else map.set(key, [slot, s]);
  }

  /** Drops `s` from its key (the next note with the same text, if any, holds it then). */
  #dropText(map: Map<number, NotesSection | NotesSection[]>, s: NotesSection): void {
    const key = textKey(s.note!.body);
    const slot = map.get(key);
    if (slot === s) map.delete(key);
    else if (Array.isArray(slot)) {
      const at = slot.indexOf(s);
      if (at >= 0) slot.splice(at, 1);
      if (slot.length === 1) map.set(key, slot[0]);
    }
  }
}
