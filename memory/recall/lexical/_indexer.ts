/**
 * Reads a note's fields into term frequencies: the hot loop of indexing.
 *
 * Plain words (ASCII letters and digits, at most a leading capital, ended by a separator) are most
 * of any English text; they are cut, hashed, looked up in the dictionary and counted in one pass
 * over the char codes, with no call and no string per word. Everything else (identifiers,
 * apostrophes, other scripts, emoji) goes through the tokenizer's general path
 * ({@linkcode scanAt}), so both paths cut text exactly alike.
 *
 * @module
 */

import { FIELD_GAP, SequenceWriter } from "./_sequences.ts";
import { SLOT, SLOT_CHARS, type TermDictionary } from "./_terms.ts";
import {
  endsPlainWord,
  HASH_PRIME,
  HASH_SEED,
  MAX_TOKEN_LENGTH,
  scanAt,
  TOKEN_CJK_PAIR,
  TOKEN_JOINED,
  type TokenSink,
} from "../text/tokenizer.ts";
import { grown } from "./_grow.ts";

/**
 * Collects the distinct terms of one note and, per term, the packed
 * frequencies of its fields; when recording, also its term sequence with
 * positions (see `_sequences.ts`), as `scanTokens` would number them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ENGLISH_STOP_WORDS } from "../text/stopwords.ts";
 * import { TermDictionary } from "./_terms.ts";
 * import { NoteReader } from "./_indexer.ts";
 * const dict = new TermDictionary(ENGLISH_STOP_WORDS);
 * const reader = new NoteReader(dict);
 * dict.onNewTerm = (id) => reader.reserve(id + 1);
 * reader.begin(true);
 * assert.equal(reader.field("the cat and the cats", 0, 0xffff), 2); // indexed tokens
 * assert.equal(reader.uniqueCount, 1); // one distinct term: "cat"
 * assert.equal(dict.term(reader.unique[0]), "cat");
 * assert.equal(reader.tf[reader.unique[0]], 2);
 * ```
 */
export class NoteReader {
  /** Per term: generation of the note that last touched it. */
  mark: Int32Array = new Int32Array(1024);
  /** Per term: packed field frequencies in the current note. */
  tf: Int32Array = new Int32Array(1024);
  /** Distinct terms of the current note. */
  unique: Int32Array = new Int32Array(256);
  uniqueCount = 0;
  /** The term sequence of the current note, when recording. */
  readonly sequence: SequenceWriter = new SequenceWriter();
  /** Terms recorded before the first token at or after the `mark` of the last field read. */
  marked = 0;
  #dict: TermDictionary;
  #generation = 0;
  #counting = true;
  #recording = false;
  #shift = 0;
  #max = 0;
  #length = 0;
  #position = 0;
  /** Characters of the current field whose tokens are recorded. */
  #keep = 0;
  /** Where `marked` is taken in the current field (Infinity once taken). */
  #mark = Infinity;
  /** Position of the unit scanned by the general path, and the highest it used. */
  #unitBase = 0;
  #unitTop = -1;

  constructor(dict: TermDictionary) {
    this.#dict = dict;
  }

  /** Makes room for term ids below `terms`. */
  reserve(terms: number): void {
    if (terms <= this.mark.length) return;
    let n = this.mark.length;
    while (n < terms) n *= 2;
    this.mark = grown(this.mark, n);
    this.tf = grown(this.tf, n);
  }

  /**
   * Starts a note; with `counting` false only the distinct terms are
   * collected; with `recording`, the term sequence too.
   */
  begin(counting: boolean, recording = false): void {
    if (++this.#generation === 0x7fffffff) {
      this.mark.fill(0);
      this.#generation = 1;
    }
    this.uniqueCount = 0;
    this.#counting = counting;
    this.#recording = recording;
    this.#position = 0;
    this.sequence.reset();
  }

  /**
   * Reads one field: each term's frequency is counted in the bits `max << shift` of its packed word
   * (saturating at `max`). Returns the field's length in indexed tokens (joined forms and CJK pairs
   * not counted). When recording, the tokens that start in the first `keep` characters are added to
   * the sequence (the field then ends `FIELD_GAP` positions on), and `marked` is set to the terms
   * recorded before the first token that starts at or after `mark`.
   */
  field(text: string, shift: number, max: number, keep = Infinity, mark = Infinity): number {
    this.#shift = shift;
    this.#max = max;
    this.#length = 0;
    this.#keep = this.#recording ? keep : -1;
    this.#mark = this.#recording ? mark : Infinity;
    const dict = this.#dict;
    let seen = this.mark; // (reloaded when a new term may have grown them)
    let tf = this.tf;
    const generation = this.#generation;
    const unit = this.#counting ? 1 << shift : 0;
    const n = text.length;
    let i = 0;
    while (i < n) {
      let c = text.charCodeAt(i);
      const upper = c >= 65 && c <= 90;
      if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || upper)) {
        if (c < 128 || endsPlainWord(c)) i++;
        else {
          i = this.#general(text, i);
          seen = this.mark;
          tf = this.tf;
        }
        continue;
      }
      const start = i;
      let h = Math.imul(HASH_SEED ^ (upper ? c + 32 : c), HASH_PRIME);
      i++;
      while (i < n) {
        c = text.charCodeAt(i);
        if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
          h = Math.imul(h ^ c, HASH_PRIME);
          i++;
        } else break;
      }
      if (
        i < n &&
        (c < 128 ? c === 45 || c === 95 || c === 39 || (c >= 65 && c <= 90) : !endsPlainWord(c))
      ) {
        i = this.#general(text, start); // not a plain word: the general path
        seen = this.mark;
        tf = this.tf;
        continue;
      }
      const length = i - start;
      if (length > MAX_TOKEN_LENGTH) continue;
      if (start >= this.#mark) this.#takeMark();
      // Inline probe of the dictionary (see TermDictionary.lookup): words of up to
      // SLOT_CHARS characters are checked against the slot itself.
      const slots = dict.slots;
      const mask = dict.mask;
      let slot = h & mask;
      let t: number;
      for (;;) {
        const at = slot * SLOT;
        if (slots[at + 1] === 0) {
          t = dict.insert(slot, h, text, start, i);
          seen = this.mark;
          tf = this.tf;
          break;
        }
        if (slots[at] === h && slots[at + 3] === length) {
          // A plain word: only its first character may be a capital.
          let k = 0;
          if (length <= SLOT_CHARS) {
            let first = text.charCodeAt(start);
            if (first <= 90 && first >= 65) first += 32;
            let pair = length > 1 ? first | (text.charCodeAt(start + 1) << 16) : first;
            while (pair === slots[at + 4 + (k >> 1)]) {
              k += 2;
              if (k >= length) break;
              pair = k + 1 < length
                ? text.charCodeAt(start + k) | (text.charCodeAt(start + k + 1) << 16)
                : text.charCodeAt(start + k);
            }
          } else {
            const chars = dict.chars;
            const base = dict.tokenStart[slots[at + 1] - 1];
            for (; k < length; k++) {
              let d = text.charCodeAt(start + k);
              if (d <= 90 && d >= 65) d += 32;
              if (chars[base + k] !== d) break;
            }
          }
          if (k >= length) {
            t = slots[at + 2];
            break;
          }
        }
        slot = (slot + 1) & mask;
      }
      if (t < 0) {
        if (start < this.#keep) this.#position++; // a stop word still takes its place
        continue;
      }
      // #count(t, true), inline.
      this.#length++;
      if (seen[t] !== generation) {
        seen[t] = generation;
        tf[t] = 0;
        if (this.uniqueCount === this.unique.length) this.#growUnique();
        this.unique[this.uniqueCount++] = t;
      }
      if (((tf[t] >>> shift) & max) !== max) tf[t] += unit;
      if (start < this.#keep) this.sequence.push(t, this.#position++);
    }
    if (this.#mark !== Infinity) this.#takeMark();
    if (this.#recording) this.#position += FIELD_GAP;
    return this.#length;
  }

  #takeMark(): void {
    this.marked = this.sequence.terms;
    this.#mark = Infinity;
  }

  /** The general path for the unit at `start`; returns where it ends. */
  #general(text: string, start: number): number {
    if (start >= this.#mark) this.#takeMark();
    if (start >= this.#keep) {
      this.#unitTop = -2; // not recorded
      return scanAt(text, start, this.#sink);
    }
    this.#unitBase = this.#position;
    this.#unitTop = -1;
    const end = scanAt(text, start, this.#sink);
    this.#position += this.#unitTop + 1;
    return end;
  }

  #sink: TokenSink = (src, start, end, position, kind, hash) => {
    const t = this.#dict.lookup(src, start, end, hash);
    if (t >= 0) this.#count(t, kind !== TOKEN_JOINED && kind !== TOKEN_CJK_PAIR);
    if (this.#unitTop === -2) return;
    if (t >= 0) this.sequence.push(t, this.#unitBase + position);
    if (position > this.#unitTop) this.#unitTop = position;
  };

  #growUnique(): void {
    const grown = new Int32Array(this.unique.length * 2);
    grown.set(this.unique);
    this.unique = grown;
  }

  #count(t: number, positional: boolean): void {
    if (positional) this.#length++;
    const tf = this.tf;
    if (this.mark[t] !== this.#generation) {
      this.mark[t] = this.#generation;
      tf[t] = 0;
      if (this.uniqueCount === this.unique.length) this.#growUnique();
      this.unique[this.uniqueCount++] = t;
    }
    if (this.#counting && ((tf[t] >>> this.#shift) & this.#max) !== this.#max) {
      tf[t] += 1 << this.#shift;
    }
  }
}
