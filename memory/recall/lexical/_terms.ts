/**
 * The term dictionary of the lexical index. Every distinct folded token seen is interned once in an
 * open-addressing hash table over a UTF-16 character pool, keyed straight from the scanned text (no
 * substring is built on a hit), and mapped to the id of its stem (or to -1 for a stop word).
 * Stemming thus runs once per distinct token, not once per occurrence.
 *
 * The table is public so that the indexer's fast path can probe it inline. A slot is
 * {@linkcode SLOT} ints, one cache line for two slots, so that a probe of a word of up to 8
 * characters touches one line: `[hash, token id + 1 (0: empty), term id (-1: stop word), length, 4
 * × two UTF-16 units]`. Longer tokens are checked against `chars` from `tokenStart`.
 *
 * A dictionary taken from a state without the table (each token's hash and term instead: the
 * cloud's snapshots) builds the table when it is first needed, not on import: an insert, an export
 * with it, or the {@linkcode SCANS_BEFORE_TABLE}th search lookup. The lookups before it scan the
 * tokens' hashes (tens of µs for 100,000 tokens, where building the table is tens of ms of random
 * writes), so that a cold load's first recall does not wait for the table.
 *
 * @module
 */

import { analyzeToken } from "../text/stemmer.ts";
import { HASH_PRIME, HASH_SEED, hashToken, tokenCode } from "../text/tokenizer.ts";
import { PrefixBuckets } from "./_prefixes.ts";
import { grown } from "./_grow.ts";

/** Ints per slot of {@linkcode TermDictionary.slots}. */
export const SLOT = 8;
/** Characters kept in a slot. */
export const SLOT_CHARS = 8;
/**
 * Search lookups ({@linkcode TermDictionary.find}) answered by a scan of the tokens' hashes before
 * the token table of an imported dictionary is built (see the module doc).
 */
export const SCANS_BEFORE_TABLE = 64;

/** Each token's hash and term, of a dictionary whose token table is not built yet. */
interface LeanTokens {
  tokenHash: Int32Array;
  tokenTerm: Int32Array;
}

/**
 * Interns tokens and terms.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ENGLISH_STOP_WORDS } from "../text/stopwords.ts";
 * import { TermDictionary } from "./_terms.ts";
 * const dict = new TermDictionary(ENGLISH_STOP_WORDS);
 * const a = dict.termOf("Deployments", 0, 11);
 * assert.equal(dict.term(a), "deploy"); // folded and stemmed
 * assert.equal(dict.termOf("deploying", 0, 9), a); // the same term
 * assert.equal(dict.termOf("the", 0, 3), -1); // a stop word
 * ```
 */
export class TermDictionary {
  #slots: Int32Array | undefined = new Int32Array(SLOT << 12);
  /** Without the table yet: each token's hash and term (see the module doc). */
  #lean: LeanTokens | undefined;
  /** Search lookups answered by a scan so far (see {@linkcode SCANS_BEFORE_TABLE}). */
  #scans = 0;
  /** Slot mask (number of slots − 1). */
  mask: number = (1 << 12) - 1;
  /** Where each token's characters start in `chars`. */
  tokenStart: Int32Array = new Int32Array(1024);
  chars: Uint16Array = new Uint16Array(1 << 14);
  /** Called with the id of each new term, before it is returned. */
  onNewTerm: ((id: number) => void) | undefined;
  #stopWords: ReadonlySet<string>;
  #tokens = 0;
  #charsUsed = 0;
  #terms: string[] = [];
  #termTable: Int32Array = new Int32Array(1 << 12);
  #termHash: Int32Array = new Int32Array(1024);
  #prefixes = new PrefixBuckets();

  constructor(stopWords: ReadonlySet<string>) {
    this.#stopWords = stopWords;
  }

  /** Hash table of {@linkcode SLOT} ints per slot (see the module doc); built here if need be. */
  get slots(): Int32Array {
    return this.#slots ?? this.#buildTable();
  }

  /** The token table if it is built (see the module doc), else undefined. */
  get builtSlots(): Int32Array | undefined {
    return this.#slots;
  }

  /** Bytes of the token table (built or not). */
  get slotBytes(): number {
    return (this.mask + 1) * SLOT * Int32Array.BYTES_PER_ELEMENT;
  }

  /** Number of distinct terms (stems). */
  get size(): number {
    return this.#terms.length;
  }

  /** Number of distinct folded tokens seen. */
  get tokenCount(): number {
    return this.#tokens;
  }

  term(id: number): string {
    return this.#terms[id];
  }

  /** Id of a term (a stem), or -1 when unknown. */
  termId(term: string): number {
    let h = HASH_SEED;
    for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), HASH_PRIME);
    const table = this.#termTable;
    const mask = table.length - 1;
    for (let slot = h & mask;; slot = (slot + 1) & mask) {
      const r = table[slot];
      if (r === 0) return -1;
      if (this.#terms[r - 1] === term) return r - 1;
    }
  }

  /**
   * Term id of the token spelled by `src[start, end)` (see `tokenText`), interning it when new; -1
   * for a stop word.
   */
  termOf(src: string, start: number, end: number): number {
    return this.lookup(src, start, end, hashToken(src, start, end));
  }

  get stopWords(): ReadonlySet<string> {
    return this.#stopWords;
  }

  /**
   * Term id of the token spelled by `src[start, end)` with hash `h`, if the token was seen before:
   * -1 for a stop word, -2 for a token never seen (which is not interned).
   */
  find(src: string, start: number, end: number, h: number): number {
    const lean = this.#lean;
    if (lean && this.#scans++ < SCANS_BEFORE_TABLE) {
      const hashes = lean.tokenHash;
      const starts = this.tokenStart;
      const tokens = this.#tokens;
      for (let id = 0; id < tokens; id++) {
        if (hashes[id] !== h) continue;
        const base = starts[id];
        const length = (id + 1 < tokens ? starts[id + 1] : this.#charsUsed) - base;
        if (this.#sameChars(base, length, src, start, end)) return lean.tokenTerm[id];
      }
      return -2;
    }
    const at = this.#slotOf(src, start, end, h) * SLOT;
    return this.slots[at + 1] === 0 ? -2 : this.slots[at + 2];
  }

  /** {@linkcode TermDictionary.termOf} with the token's hash already known (see `hashToken`). */
  lookup(src: string, start: number, end: number, h: number): number {
    const slot = this.#slotOf(src, start, end, h);
    const at = slot * SLOT;
    return this.slots[at + 1] === 0 ? this.insert(slot, h, src, start, end) : this.slots[at + 2];
  }

  /** The slot holding the token `src[start, end)` with hash `h`, else the empty slot it would take. */
  #slotOf(src: string, start: number, end: number, h: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let slot = h & mask;
    for (;;) {
      const at = slot * SLOT;
      if (slots[at + 1] === 0 || (slots[at] === h && this.#same(at, src, start, end))) return slot;
      slot = (slot + 1) & mask;
    }
  }

  /** Whether the token in the slot at `at` is spelled by `src[start, end)`. */
  #same(at: number, src: string, start: number, end: number): boolean {
    const slots = this.slots;
    const length = slots[at + 3];
    const chars = this.chars;
    const base = this.tokenStart[slots[at + 1] - 1];
    let p = 0;
    for (let i = start; i < end; i++) {
      const c = tokenCode(src.charCodeAt(i));
      if (c < 0) continue;
      if (p === length) return false;
      const have = p < SLOT_CHARS
        ? (slots[at + 4 + (p >> 1)] >>> ((p & 1) << 4)) & 0xffff
        : chars[base + p];
      if (have !== c) return false;
      p++;
    }
    return p === length;
  }

  /** Whether the token of `length` characters at `base` in `chars` is spelled by `src[start, end)`. */
  #sameChars(base: number, length: number, src: string, start: number, end: number): boolean {
    const chars = this.chars;
    let p = 0;
    for (let i = start; i < end; i++) {
      const c = tokenCode(src.charCodeAt(i));
      if (c < 0) continue;
      if (p === length || chars[base + p] !== c) return false;
      p++;
    }
    return p === length;
  }

  /**
   * Interns the token spelled by `src[start, end)`, with hash `h`, into the empty slot `slot` found
   * by a probe; returns its term id (-1: stop word).
   */
  insert(slot: number, h: number, src: string, start: number, end: number): number {
    const id = this.#tokens++;
    if (id === this.tokenStart.length) {
      const grown = new Int32Array(id * 2);
      grown.set(this.tokenStart);
      this.tokenStart = grown;
    }
    if (this.#charsUsed + (end - start) > this.chars.length) {
      const chars = new Uint16Array(Math.max(this.chars.length * 2, this.#charsUsed + end - start));
      chars.set(this.chars);
      this.chars = chars;
    }
    const chars = this.chars;
    const from = this.#charsUsed;
    let p = from;
    let changed = false;
    for (let i = start; i < end; i++) {
      const raw = src.charCodeAt(i);
      const c = tokenCode(raw);
      if (c !== raw) changed = true;
      if (c >= 0) chars[p++] = c;
    }
    this.#charsUsed = p;
    this.tokenStart[id] = from;
    const length = p - from;
    // A short slice is a copy; a long one would keep the whole note text alive.
    const text = !changed && length < 13
      ? src.slice(start, end)
      : String.fromCharCode.apply(null, chars.subarray(from, p) as unknown as number[]);
    const stem = analyzeToken(text, this.#stopWords);
    const term = stem === undefined ? -1 : this.#intern(stem);
    const slots = this.slots;
    const at = slot * SLOT;
    slots[at] = h;
    slots[at + 1] = id + 1;
    slots[at + 2] = term;
    slots[at + 3] = length;
    for (let k = 0; k < SLOT_CHARS && k < length; k++) {
      slots[at + 4 + (k >> 1)] |= chars[from + k] << ((k & 1) << 4);
    }
    if (this.#tokens * 2 > this.mask + 1) this.#rehash();
    return term;
  }

  #intern(term: string): number {
    let h = HASH_SEED;
    for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), HASH_PRIME);
    const table = this.#termTable;
    const mask = table.length - 1;
    let slot = h & mask;
    for (;;) {
      const r = table[slot];
      if (r === 0) break;
      if (this.#terms[r - 1] === term) return r - 1;
      slot = (slot + 1) & mask;
    }
    const id = this.#terms.length;
    this.#terms.push(term);
    if (id === this.#termHash.length) {
      this.#termHash = grown(this.#termHash, id * 2);
    }
    this.#termHash[id] = h;
    table[slot] = id + 1;
    if ((id + 1) * 2 > table.length) this.#rehashTerms();
    this.#prefixes.add(id, term);
    this.onNewTerm?.(id);
    return id;
  }

  #rehashTerms(): void {
    const table = new Int32Array(this.#termTable.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.#terms.length; id++) {
      let slot = this.#termHash[id] & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.#termTable = table;
  }

  #rehash(): void {
    const size = (this.mask + 1) * 2;
    const mask = size - 1;
    const old = this.slots;
    const slots = new Int32Array(SLOT * size);
    for (let at = 0; at < old.length; at += SLOT) {
      if (old[at + 1] === 0) continue;
      let slot = old[at] & mask;
      while (slots[slot * SLOT + 1] !== 0) slot = (slot + 1) & mask;
      const to = slot * SLOT;
      for (let k = 0; k < SLOT; k++) slots[to + k] = old[at + k];
    }
    this.#slots = slots;
    this.mask = mask;
  }

  /**
   * A copy of the dictionary's state (see {@linkcode TermDictionary.fromState}): with its token
   * hash table, or (`tokenTable` false) with each token's hash and term instead and the token
   * arrays cut to what is used.
   */
  exportState(tokenTable = true): TermDictionaryState {
    const terms = this.#terms;
    let total = 0;
    for (const t of terms) total += t.length;
    const termChars = new Uint16Array(total);
    const termEnds = new Int32Array(terms.length);
    let at = 0;
    for (let id = 0; id < terms.length; id++) {
      const t = terms[id];
      for (let i = 0; i < t.length; i++) termChars[at++] = t.charCodeAt(i);
      termEnds[id] = at;
    }
    const tokens = this.#tokens;
    const table: Pick<TermDictionaryState, "slots" | "tokenHash" | "tokenTerm"> = {};
    if (tokenTable) table.slots = this.slots.slice();
    else if (this.#lean) {
      table.tokenHash = this.#lean.tokenHash.slice(0, tokens);
      table.tokenTerm = this.#lean.tokenTerm.slice(0, tokens);
    } else {
      // Each token's hash and term instead of the table, built again on import.
      const tokenHash = new Int32Array(tokens);
      const tokenTerm = new Int32Array(tokens);
      const slots = this.slots;
      for (let at = 0; at < slots.length; at += SLOT) {
        const id = slots[at + 1] - 1;
        if (id < 0) continue;
        tokenHash[id] = slots[at];
        tokenTerm[id] = slots[at + 2];
      }
      table.tokenHash = tokenHash;
      table.tokenTerm = tokenTerm;
    }
    return {
      ...table,
      tokenStart: tokenTable
        ? this.tokenStart.slice()
        : this.tokenStart.slice(0, Math.max(1, tokens)),
      chars: tokenTable ? this.chars.slice() : this.chars.slice(0, this.#charsUsed),
      termTable: this.#termTable.slice(),
      termHash: this.#termHash.slice(),
      termChars,
      termEnds,
      tokens: this.#tokens,
      charsUsed: this.#charsUsed,
    };
  }

  /**
   * A dictionary holding `state` (its arrays are taken, not copied); undefined when the state is
   * not consistent.
   */
  static fromState(
    stopWords: ReadonlySet<string>,
    state: TermDictionaryState,
  ): TermDictionary | undefined {
    const { tokens, charsUsed } = state;
    const { tokenHash, tokenTerm, tokenStart, chars, termTable, termHash, termChars, termEnds } =
      state;
    const given = state.slots;
    const termCount = termEnds.length;
    const givenSlots = given ? given.length / SLOT : 0;
    if (
      tokens < 0 ||
      (given
        ? !Number.isInteger(givenSlots) || givenSlots < 2 ||
          (givenSlots & (givenSlots - 1)) !== 0 || tokens * 2 > givenSlots
        : tokenHash?.length !== tokens || tokenTerm?.length !== tokens) ||
      tokenStart.length < Math.max(1, tokens) || charsUsed < 0 || charsUsed > chars.length ||
      termTable.length < 2 || (termTable.length & (termTable.length - 1)) !== 0 ||
      termCount * 2 > termTable.length || termHash.length < Math.max(1, termCount) ||
      (termCount > 0 && termEnds[termCount - 1] !== termChars.length)
    ) return undefined;
    // Term strings: the characters decoded in pieces (lone surrogates kept), then cut.
    const parts: string[] = [];
    for (let i = 0; i < termChars.length; i += 8192) {
      parts.push(
        String.fromCharCode.apply(
          null,
          termChars.subarray(i, i + 8192) as unknown as number[],
        ),
      );
    }
    const all = parts.join("");
    const terms: string[] = new Array(termCount);
    let from = 0;
    for (let id = 0; id < termCount; id++) {
      const to = termEnds[id];
      if (to < from || to > all.length) return undefined;
      const term = all.slice(from, to);
      from = to;
      terms[id] = term;
    }
    if (!given && !TermDictionary.#tokensFit(state, termCount)) return undefined;
    const dict = new TermDictionary(stopWords);
    if (given) {
      dict.#slots = given;
      dict.mask = given.length / SLOT - 1;
    } else {
      dict.#slots = undefined;
      dict.#lean = { tokenHash: tokenHash!, tokenTerm: tokenTerm! };
      let slotCount = 1 << 12;
      while (tokens * 2 > slotCount) slotCount *= 2;
      dict.mask = slotCount - 1;
    }
    dict.tokenStart = tokenStart;
    dict.chars = chars;
    dict.#tokens = tokens;
    dict.#charsUsed = charsUsed;
    dict.#terms = terms;
    dict.#termTable = termTable;
    dict.#termHash = termHash;
    dict.#prefixes = PrefixBuckets.deferred(termCount);
    return dict;
  }

  /** Whether each token of a state without the table spells a range of `chars` and names a term. */
  static #tokensFit(state: TermDictionaryState, termCount: number): boolean {
    const { tokens, charsUsed, tokenStart } = state;
    const tokenTerm = state.tokenTerm!;
    for (let id = 0; id < tokens; id++) {
      const start = tokenStart[id];
      const end = id + 1 < tokens ? tokenStart[id + 1] : charsUsed;
      const term = tokenTerm[id];
      if (!(start >= 0 && end >= start && end <= charsUsed && term >= -1 && term < termCount)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Builds the token table of a dictionary imported without it (checked by `#tokensFit`), as the
   * inserts would leave it: `mask + 1` slots (the smallest power of two, 4096 at least, that is at
   * least twice the tokens), each token probed in from its hash, in id order.
   */
  #buildTable(): Int32Array {
    const { tokenHash, tokenTerm } = this.#lean!;
    const tokens = this.#tokens, charsUsed = this.#charsUsed;
    const tokenStart = this.tokenStart, chars = this.chars;
    const mask = this.mask;
    const slots = new Int32Array(SLOT * (mask + 1));
    for (let id = 0; id < tokens; id++) {
      const start = tokenStart[id];
      const end = id + 1 < tokens ? tokenStart[id + 1] : charsUsed;
      const term = tokenTerm[id];
      const h = tokenHash[id];
      let slot = h & mask;
      while (slots[slot * SLOT + 1] !== 0) slot = (slot + 1) & mask;
      const at = slot * SLOT;
      slots[at] = h;
      slots[at + 1] = id + 1;
      slots[at + 2] = term;
      slots[at + 3] = end - start;
      for (let k = 0; k < SLOT_CHARS && start + k < end; k++) {
        slots[at + 4 + (k >> 1)] |= chars[start + k] << ((k & 1) << 4);
      }
    }
    this.#slots = slots;
    this.#lean = undefined;
    return slots;
  }

  /**
   * Ids of the terms that start with `prefix` (itself included when it is a term), in no particular
   * order.
   */
  termsWithPrefix(prefix: string): number[] {
    return this.#prefixes.withPrefix(prefix, this.#terms);
  }
}

/** The state of a {@linkcode TermDictionary}, as a snapshot holds it (see `lexical.ts`). */
export interface TermDictionaryState {
  /** The token hash table (see the module doc), or else `tokenHash` and `tokenTerm`. */
  slots?: Int32Array;
  /** Each token's hash (`hashToken`), by token id (without `slots`). */
  tokenHash?: Int32Array;
  /** Each token's term id (-1: a stop word), by token id (without `slots`). */
  tokenTerm?: Int32Array;
  /** Start of each token in `chars`. */
  tokenStart: Int32Array;
  chars: Uint16Array;
  /** Hash table of terms (term id + 1 per slot, 0: empty). */
  termTable: Int32Array;
  termHash: Int32Array;
  /** The characters of every term, back to back. */
  termChars: Uint16Array;
  /** End (exclusive) of each term in `termChars`. */
  termEnds: Int32Array;
  tokens: number;
  /** Characters used in `chars`. */
  charsUsed: number;
}
