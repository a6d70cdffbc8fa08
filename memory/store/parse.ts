/**
 * Parsing `notes.md` (format: docs/notes-format.md), in one substring search for `<!-- memo:`
 * over the file. Text before the first marker and every section are kept byte for byte (hand
 * edits, CRLF line ends; a CRLF marker line strips `\r\n\r\n` instead of `\n\n`). A damaged
 * section (marker not valid JSON, no valid id, no `## ` title line) and a second section with an
 * id already seen are reported as `StoreIssue`s with their line number and kept verbatim; the
 * notes around them load. A marker without `hash` gets one computed.
 *
 * @module
 */

import { contentHash, type Note, NOTE_ID_PATTERN } from "../notes/note.ts";
import type { StoreIssue } from "./store.ts";
import { hasHistoryKeys, readHistoryKeys } from "./_history_marker.ts";
import { ESCAPABLE, NOTE_MARKER_START, unescapeBody } from "./codec.ts";

const EPOCH = "1970-01-01T00:00:00.000Z";

/**
 * One section of a notes file: its exact text and, unless damaged, the note it holds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NOTES_PREAMBLE, type NotesSection, parseNotes, serializeNote } from "@memo/memory";
 * const note = {
 *   id: "a1", title: "Hello", body: "world", labels: [], hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z", updated: "2025-01-01T00:00:00.000Z",
 * };
 * const [preamble, section]: NotesSection[] = parseNotes(NOTES_PREAMBLE + serializeNote(note)).sections;
 * assert.equal(preamble.note, undefined); // text that holds no note
 * assert.equal(section.raw, serializeNote(note));
 * assert.equal(section.note?.title, "Hello");
 * ```
 */
export interface NotesSection {
  /** The section's text exactly as in the file (marker line through the blank line after it). */
  raw: string;
  /** The parsed note; absent for the preamble, damaged sections and duplicate ids. */
  note?: Note;
}

/**
 * What {@linkcode parseNotes} returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ParsedNotes, parseNotes, serializeNote } from "@memo/memory";
 * const note = {
 *   id: "a1", title: "Hello", body: "world", labels: [], hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z", updated: "2025-01-01T00:00:00.000Z",
 * };
 * const parsed: ParsedNotes = parseNotes(serializeNote(note) + "<!-- memo:note {broken -->\n");
 * assert.equal(parsed.sections.length, 2);
 * assert.equal(parsed.byId.get("a1")?.note?.body, "world");
 * assert.equal(parsed.issues[0].kind, "damaged-note");
 * ```
 */
export interface ParsedNotes {
  /** Every section in file order; joining their `raw` texts gives back the input. */
  sections: NotesSection[];
  /** Damaged sections and duplicate ids, with their line numbers. */
  issues: StoreIssue[];
  /** The sections holding a note, by note id. */
  byId: Map<string, NotesSection>;
}

/**
 * Options of {@linkcode parseNotes}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ParseNotesOptions, parseNotes, serializeNote } from "@memo/memory";
 * const note = {
 *   id: "a1", title: "Hello", body: "world", labels: [], hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z", updated: "2025-01-01T00:00:00.000Z",
 * };
 * // The tail of a file whose first 9 lines, already loaded, hold note a1.
 * const options: ParseNotesOptions = { firstLine: 10, knownIds: new Set(["a1"]) };
 * const { issues } = parseNotes(serializeNote(note), options);
 * assert.equal(issues[0].kind, "duplicate-id");
 * assert.equal(issues[0].line, 10);
 * ```
 */
export interface ParseNotesOptions {
  /**
   * Line number of the input's first line (when parsing the tail of a file).
   * @default 1
   */
  firstLine?: number | (() => number);
  /**
   * Ids held elsewhere (the part of the file already loaded); a section with one of these ids is
   * reported as a duplicate.
   * @default none
   */
  knownIds?: { has(id: string): boolean };
  /**
   * Called with each section that holds a note, in file order, while its text is still in the
   * processor's cache (the file store indexes identities here).
   * @default none
   */
  onNote?: (section: NotesSection & { note: Note }) => void;
  /**
   * Sections parsed already (another version of the same file), by note id: a section whose text
   * is byte-identical to one of these takes its note instead of being parsed again (parsing
   * depends on the section's text alone, so the note is the same). The merge of three versions of
   * a file parses each unchanged note once this way.
   * @default none
   */
  reuse?: ReadonlyMap<string, NotesSection>;
}

/**
 * Parses the text of a notes file (or consecutive pieces of one, each piece after the first
 * starting with a marker line). Never throws on bad content: damaged sections are reported in
 * `issues` and kept as sections without a note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseNotes } from "@memo/memory";
 * const text = "# Memory\n\n" +
 *   '<!-- memo:note {"id":"a1","hash":"0123abcd","labels":[],"created":"2025-01-01T00:00:00.000Z","updated":"2025-01-01T00:00:00.000Z"} -->\n' +
 *   "## Hello\nworld\n\n";
 * const { sections, issues } = parseNotes(text);
 * assert.equal(sections.length, 2); // the preamble, then the note
 * assert.equal(sections[1].note?.body, "world");
 * assert.equal(issues.length, 0);
 * assert.equal(sections.map((s) => s.raw).join(""), text);
 * ```
 */
export function parseNotes(
  input: string | readonly string[],
  options: ParseNotesOptions = {},
): ParsedNotes {
  const chunks = typeof input === "string" ? [input] : input;
  const sections: NotesSection[] = [];
  const issues: StoreIssue[] = [];
  const byId = new Map<string, NotesSection>();
  const known = options.knownIds;
  const onNote = options.onNote;
  const reuse = options.reuse;
  const lines = new LineCounter(chunks, options.firstLine ?? 1);
  for (let c = 0; c < chunks.length; c++) {
    const text = chunks[c];
    const scan = { escaped: false };
    let pos = nextMarker(text, 0, scan);
    if (pos !== 0 && text.length > 0) {
      // Text before the first marker: the preamble (or, mid-file, text kept as it is).
      sections.push({ raw: pos < 0 ? text : text.slice(0, pos) });
    }
    while (pos >= 0) {
      scan.escaped = false;
      const next = nextMarker(text, pos + 1, scan);
      const raw = text.slice(pos, next < 0 ? text.length : next);
      const parsed = (reuse && reused(reuse, raw)) || parseSection(raw, scan.escaped);
      if (typeof parsed === "string") {
        issues.push({ kind: "damaged-note", message: parsed, line: lines.at(c, pos) });
        sections.push({ raw });
      } else if (byId.has(parsed.id) || known?.has(parsed.id)) {
        issues.push({
          kind: "duplicate-id",
          message: `Cannot load note ${parsed.id}: its id is already used above; kept as text`,
          line: lines.at(c, pos),
        });
        sections.push({ raw });
      } else {
        const section = { raw, note: parsed };
        byId.set(parsed.id, section);
        sections.push(section);
        onNote?.(section);
      }
      pos = next;
    }
  }
  return { sections, issues, byId };
}

/**
 * One scan for "<!-- memo:" finds both the next marker (at a line start, followed by "note") and
 * whether the text before it may hold an escaped line (`scan.escaped`).
 */
function nextMarker(text: string, from: number, scan: { escaped: boolean }): number {
  let i = text.indexOf(ESCAPABLE, from);
  while (i >= 0) {
    // (A BOM an editor put before a first marker leaves it at the line's start.)
    const lineStart = i === 0 || text.charCodeAt(i - 1) === 10 ||
      (i === 1 && text.charCodeAt(0) === 0xfeff);
    if (lineStart && text.startsWith("note", i + 10)) return i;
    scan.escaped = true;
    i = text.indexOf(ESCAPABLE, i + 1);
  }
  return -1;
}

const ID_START = `${NOTE_MARKER_START} {"id":"`;

/** The note of a byte-identical section in `reuse`, found by the id its marker line starts with. */
function reused(reuse: ReadonlyMap<string, NotesSection>, raw: string): Note | undefined {
  if (!raw.startsWith(ID_START)) return undefined;
  const end = raw.indexOf('"', ID_START.length);
  if (end < 0) return undefined;
  const known = reuse.get(raw.slice(ID_START.length, end));
  return known !== undefined && known.raw === raw ? known.note : undefined;
}

/** Counts lines lazily, only up to the places where an issue is reported. */
class LineCounter {
  #chunks: readonly string[];
  #first: number | (() => number);
  #chunk = 0;
  #offset = 0;
  #line = 0;
  #started = false;

  constructor(chunks: readonly string[], first: number | (() => number)) {
    this.#chunks = chunks;
    this.#first = first;
  }

  /** 1-based line of `offset` in chunk `chunk`; calls must move forward. */
  at(chunk: number, offset: number): number {
    if (!this.#started) {
      this.#started = true;
      this.#line = typeof this.#first === "function" ? this.#first() : this.#first;
    }
    while (this.#chunk < chunk) {
      this.#line += countLineBreaks(this.#chunks[this.#chunk], this.#offset);
      this.#chunk++;
      this.#offset = 0;
    }
    this.#line += countLineBreaks(this.#chunks[chunk], this.#offset, offset);
    this.#offset = offset;
    return this.#line;
  }
}

/**
 * Counts `\n` in `text` between `from` and `to`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countLineBreaks } from "@memo/memory";
 * assert.equal(countLineBreaks("a\nb\nc"), 2);
 * assert.equal(countLineBreaks("a\nb\nc", 2), 1);
 * ```
 */
export function countLineBreaks(text: string, from = 0, to = text.length): number {
  let n = 0;
  let i = text.indexOf("\n", from);
  while (i >= 0 && i < to) {
    n++;
    i = text.indexOf("\n", i + 1);
  }
  return n;
}

/** Whether `String.prototype.trim` would remove this UTF-16 code unit. */
function isTrimmable(c: number): boolean {
  return c <= 32 || c === 160 || c === 0xfeff || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 ||
    c === 0x2029 || c === 0x3000 || c === 0x1680 || c === 0x202f || c === 0x205f;
}
function timeOf(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}
/** Label strings seen, so that 100,000 notes share a few label strings instead of one each. */
const LABELS = new Map<string, string>();
const START_LEN = NOTE_MARKER_START.length;
/** Parses one section (starting at its marker); returns the note or the reason it is damaged. */
function parseSection(s: string, mayBeEscaped: boolean): Note | string {
  const nl = s.indexOf("\n");
  if (nl < 0) return "Cannot read note: its marker line is not followed by a `## title` line";
  const crlf = s.charCodeAt(nl - 1) === 13;
  const markerEnd = crlf ? nl - 1 : nl;
  if (markerEnd < START_LEN + 3 || !s.startsWith("-->", markerEnd - 3)) {
    return "Cannot read note: its marker line does not end with -->";
  }
  let meta: Record<string, unknown>;
  try {
    meta = JSON.parse(s.slice(START_LEN, markerEnd - 3));
  } catch {
    return "Cannot read note: its marker is not valid JSON";
  }
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) {
    return "Cannot read note: its marker is not a JSON object";
  }
  const id = meta.id, source = meta.source, hash = meta.hash;
  let labels = meta.labels;
  if (typeof id !== "string" || !NOTE_ID_PATTERN.test(id)) {
    return "Cannot read note: its marker has no valid id";
  }
  if (labels === undefined) labels = [];
  else if (!Array.isArray(labels)) {
    return `Cannot read note ${id}: its labels are not a list of strings`;
  } else {
    for (let i = 0; i < labels.length; i++) {
      const l = labels[i];
      if (typeof l !== "string") {
        return `Cannot read note ${id}: its labels are not a list of strings`;
      }
      const known = LABELS.get(l);
      if (known !== undefined) labels[i] = known;
      else if (LABELS.size < 10000) LABELS.set(l, l);
    }
  }
  if (source !== undefined && (typeof source !== "string" || source === "")) {
    return `Cannot read note ${id}: its source is not a string`;
  }
  // Blank lines a person left between the marker and the title are skipped.
  let titleStart = nl + 1;
  while (
    s.charCodeAt(titleStart) === 10 ||
    (s.charCodeAt(titleStart) === 13 && s.charCodeAt(titleStart + 1) === 10)
  ) {
    titleStart += s.charCodeAt(titleStart) === 10 ? 1 : 2;
  }
  let titleEnd = s.indexOf("\n", titleStart);
  const bodyStart = titleEnd < 0 ? s.length : titleEnd + 1;
  if (titleEnd < 0) titleEnd = s.length;
  if (titleEnd > titleStart && s.charCodeAt(titleEnd - 1) === 13) titleEnd--;
  const hashes = titleEnd - titleStart >= 2 && s.charCodeAt(titleStart) === 35 &&
    s.charCodeAt(titleStart + 1) === 35;
  if (!hashes || (titleEnd - titleStart > 2 && s.charCodeAt(titleStart + 2) !== 32)) {
    return `Cannot read note ${id}: its marker is not followed by a \`## title\` line`;
  }
  let title = titleEnd - titleStart > 3 ? s.slice(titleStart + 3, titleEnd) : "";
  if (
    title !== "" &&
    (isTrimmable(title.charCodeAt(0)) || isTrimmable(title.charCodeAt(title.length - 1)))
  ) title = title.trim();
  let end = s.length;
  for (let k = 0; k < 2; k++) {
    if (s.charCodeAt(end - 1) !== 10) break;
    end -= crlf && s.charCodeAt(end - 2) === 13 ? 2 : 1;
  }
  let body = end > bodyStart ? s.slice(bodyStart, end) : "";
  // Conflict-marker lines are escaped too (their check is one search for a backslash).
  if (mayBeEscaped || body.includes("\\")) body = unescapeBody(body);
  const createdAt = timeOf(meta.created) ?? timeOf(meta.updated) ?? EPOCH;
  const u = timeOf(meta.updated);
  const updatedAt = u === undefined || u === createdAt ? createdAt : u;
  const note: Note = source === undefined
    ? {
      id,
      title,
      body,
      labels: labels as string[],
      hash: "",
      created: createdAt,
      updated: updatedAt,
    }
    : {
      id,
      title,
      body,
      labels: labels as string[],
      source: source as string,
      hash: "",
      created: createdAt,
      updated: updatedAt,
    };
  if (hasHistoryKeys(meta)) {
    const damaged = readHistoryKeys(meta, id, note);
    if (damaged !== undefined) return damaged;
  }
  // The hash is an opaque identity: any non-empty string up to 128 characters is kept.
  note.hash = typeof hash === "string" && hash !== "" && hash.length <= 128
    ? hash
    : contentHash(note);
  return note;
}
