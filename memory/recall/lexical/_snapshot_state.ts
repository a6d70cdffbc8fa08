/**
 * Internal: a lexical index's state as a {@linkcode LexicalSnapshot} (plain numbers and typed
 * arrays), and back, checking the snapshot's shape before anything of it is used.
 *
 * @module
 */

import type { Note } from "../../notes/note.ts";
import { PostingStore } from "./_postings.ts";
import { TermDictionary, type TermDictionaryState } from "./_terms.ts";
import { SequenceStore, type SequenceStoreState } from "./_sequences.ts";
import {
  LEXICAL_SNAPSHOT_VERSION,
  lexicalOptionsKey,
  type LexicalSnapshot,
  type ResolvedLexicalOptions,
} from "./lexical_types.ts";

/** The parts of an index a snapshot holds. */
export interface IndexState {
  dict: TermDictionary;
  postings: PostingStore;
  sequences: SequenceStore;
  df: Int32Array;
  lengths: { title: Int32Array; body: Int32Array; labels: Int32Array };
  totals: { title: number; body: number; labels: number };
}

/** The snapshot of a flushed index of `docs` dense doc numbers. */
export function snapshotOf(
  index: IndexState & { options: ResolvedLexicalOptions },
  docs: number,
  tokenTable = true,
): LexicalSnapshot {
  const dict = index.dict.exportState(tokenTable);
  const table: Record<string, Int32Array> = dict.slots
    ? { slots: dict.slots }
    : { tokenHash: dict.tokenHash!, tokenTerm: dict.tokenTerm! };
  const seq = index.sequences.exportState(docs);
  return {
    version: LEXICAL_SNAPSHOT_VERSION,
    options: lexicalOptionsKey(index.options),
    numbers: {
      docs,
      totalTitle: index.totals.title,
      totalBody: index.totals.body,
      totalLabels: index.totals.labels,
      frozenTerms: index.postings.frozenTerms,
      tokens: dict.tokens,
      charsUsed: dict.charsUsed,
    },
    arrays: {
      ...table,
      tokenStart: dict.tokenStart,
      chars: dict.chars,
      termTable: dict.termTable,
      termHash: dict.termHash,
      termChars: dict.termChars,
      termEnds: dict.termEnds,
      offsets: index.postings.offsets, // replaced, never changed, by a flush
      entries: index.postings.entries,
      df: index.df.slice(),
      lengthTitle: index.lengths.title.slice(),
      lengthBody: index.lengths.body.slice(),
      lengthLabels: index.lengths.labels.slice(),
      seqData: seq.data,
      seqChunk: seq.chunk,
      seqStart: seq.start,
      seqEnd: seq.end,
      seqHead: seq.feedbackHead,
      seqTail: seq.feedbackTail,
    },
  };
}

/**
 * The state held by `snapshot`, taken of exactly `notes` by an index with `options`; undefined
 * when its version, options or shape do not fit.
 */
export function stateOf(
  snapshot: LexicalSnapshot,
  notes: readonly Note[],
  options: ResolvedLexicalOptions,
): (IndexState & { ids: Map<string, number>; docs: number }) | undefined {
  if (
    snapshot.version !== LEXICAL_SNAPSHOT_VERSION ||
    snapshot.options !== lexicalOptionsKey(options)
  ) return undefined;
  const n = snapshot.numbers;
  const a = snapshot.arrays;
  const i32 = (name: string): Int32Array | undefined => {
    const v = a[name];
    return v instanceof Int32Array ? v : undefined;
  };
  const u16 = (name: string): Uint16Array | undefined => {
    const v = a[name];
    return v instanceof Uint16Array ? v : undefined;
  };
  const int = (name: string): number => {
    const v = n[name];
    return Number.isSafeInteger(v) && v >= 0 ? v : -1;
  };
  const docs = int("docs");
  const frozenTerms = int("frozenTerms");
  const slots = i32("slots"), tokenHash = i32("tokenHash"), tokenTerm = i32("tokenTerm");
  const tokenStart = i32("tokenStart"), chars = u16("chars");
  const termTable = i32("termTable"), termHash = i32("termHash");
  const termChars = u16("termChars"), termEnds = i32("termEnds");
  const offsets = i32("offsets"), entries = i32("entries"), df = i32("df");
  const lt = i32("lengthTitle"), lb = i32("lengthBody"), ll = i32("lengthLabels");
  const seqData = i32("seqData"), seqChunk = i32("seqChunk"), seqStart = i32("seqStart");
  const seqEnd = i32("seqEnd"), seqHead = i32("seqHead"), seqTail = i32("seqTail");
  if (
    docs !== notes.length || docs === 0 || frozenTerms < 0 || int("tokens") < 0 ||
    int("charsUsed") < 0 || int("totalTitle") < 0 || int("totalBody") < 0 ||
    int("totalLabels") < 0 || !(slots || (tokenHash && tokenTerm)) || !tokenStart || !chars ||
    !termTable ||
    !termHash || !termChars || !termEnds || !offsets || !entries || !df || !lt || !lb ||
    !ll || !seqData || !seqChunk || !seqStart || !seqEnd || !seqHead || !seqTail
  ) return undefined;
  const dict = TermDictionary.fromState(
    options.stopWords,
    {
      ...(slots ? { slots } : { tokenHash, tokenTerm }),
      tokenStart,
      chars,
      termTable,
      termHash,
      termChars,
      termEnds,
      tokens: int("tokens"),
      charsUsed: int("charsUsed"),
    } satisfies TermDictionaryState,
  );
  const sequences = SequenceStore.fromState(
    {
      data: seqData,
      chunk: seqChunk,
      start: seqStart,
      end: seqEnd,
      feedbackHead: seqHead,
      feedbackTail: seqTail,
    } satisfies SequenceStoreState,
  );
  if (
    !dict || !sequences || frozenTerms !== dict.size || df.length < Math.max(1, dict.size) ||
    offsets.length !== frozenTerms + 1 || offsets[0] !== 0 ||
    entries.length !== 2 * offsets[frozenTerms] || lt.length < docs || lt.length !== lb.length ||
    lt.length !== ll.length || seqChunk.length < docs
  ) return undefined;
  for (let t = 0; t < frozenTerms; t++) if (offsets[t + 1] < offsets[t]) return undefined;
  for (let p = 0; p < entries.length; p += 2) if (entries[p] >>> 0 >= docs) return undefined;
  const ids = new Map<string, number>();
  for (let doc = 0; doc < docs; doc++) ids.set(notes[doc].id, doc);
  if (ids.size !== docs) return undefined;
  const postings = new PostingStore();
  postings.offsets = offsets;
  postings.entries = entries;
  postings.frozenTerms = frozenTerms;
  return {
    dict,
    postings,
    sequences,
    df,
    lengths: { title: lt, body: lb, labels: ll },
    totals: { title: int("totalTitle"), body: int("totalBody"), labels: int("totalLabels") },
    ids,
    docs,
  };
}
