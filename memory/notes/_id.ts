/**
 * Note ids: {@linkcode newNoteId} makes them (time-sorted, Crockford base32) and
 * {@linkcode NOTE_ID_PATTERN} says what one may be. `note.ts` re-exports them.
 *
 * @module
 */

import { randomBytes } from "node:crypto";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * Creates a new note id: 10 characters of millisecond time and 10 random
 * characters, Crockford base32, lower case. Ids sort by creation time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newNoteId, NOTE_ID_PATTERN } from "@memo/memory";
 * const id = newNoteId(new Date());
 * assert.equal(id.length, 20);
 * assert.match(id, NOTE_ID_PATTERN);
 * assert.ok(newNoteId(new Date(0)) < id); // ids sort by creation time
 * ```
 */
export function newNoteId(now: Date = new Date()): string {
  const ms = Math.max(0, Math.floor(now.getTime()));
  if (ms !== idTime.ms || idTime.head === "") {
    let time = ms;
    let head = "";
    for (let i = 0; i < 10; i++) {
      head = CROCKFORD[time % 32] + head;
      time = Math.floor(time / 32);
    }
    idTime.ms = ms;
    idTime.head = head;
  }
  if (idRandom.at + 10 > idRandom.bytes.length) {
    idRandom.bytes = randomBytes(ID_RANDOM_POOL);
    idRandom.at = 0;
  }
  const b = idRandom.bytes;
  let tail = "";
  for (let i = idRandom.at, end = i + 10; i < end; i++) tail += CROCKFORD[b[i] % 32];
  idRandom.at += 10;
  return idTime.head + tail;
}

/** Random bytes are drawn for 400 ids at a time: one call instead of one per id. */
const ID_RANDOM_POOL = 4000;
const idRandom: { bytes: Uint8Array<ArrayBufferLike>; at: number } = {
  bytes: new Uint8Array(0),
  at: 0,
};
/** The time part of the last id made (ids made in one batch share it). */
const idTime = { ms: -1, head: "" };

/**
 * Pattern a note id must match.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newNoteId, NOTE_ID_PATTERN } from "@memo/memory";
 * assert.match(newNoteId(), NOTE_ID_PATTERN);
 * assert.doesNotMatch("Not An Id", NOTE_ID_PATTERN);
 * ```
 */
export const NOTE_ID_PATTERN: RegExp = /^[0-9a-z][0-9a-z_-]{0,63}$/;
