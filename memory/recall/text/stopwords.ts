/**
 * English stop words: the Snowball English list, plus the modal verbs `will`, `shall`, `can`,
 * `may`, `might`, `must` and `us` (as in Orama's list), in the tokenizer's spelling (apostrophes
 * kept, possessive `'s` forms already cut to their base word by the tokenizer).
 *
 * @module
 */

const WORDS = (
  "i me my myself we us our ours ourselves you your yours yourself yourselves he him his himself " +
  "she her hers herself it its itself they them their theirs themselves what which who whom this " +
  "that these those am is are was were be been being have has had having do does did doing will " +
  "would shall should can could may might must ought i'm you're we're they're i've you've we've " +
  "they've i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't aren't " +
  "wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't " +
  "can't cannot couldn't mustn't a an the and but if or because as until while of at by for with " +
  "about against between into through during before after above below to from up down in out on " +
  "off over under again further then once here there when where why how all any both each few " +
  "more most other some such no nor not only own same so than too very"
).split(" ");

/**
 * The English stop words, folded as the tokenizer folds them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ENGLISH_STOP_WORDS } from "@memo/memory";
 * assert.ok(ENGLISH_STOP_WORDS.has("the"));
 * assert.ok(!ENGLISH_STOP_WORDS.has("deploy"));
 * ```
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(WORDS);

/**
 * Whether a folded token is an English stop word.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isStopWord } from "@memo/memory";
 * assert.equal(isStopWord("don't"), true);
 * assert.equal(isStopWord("deploy"), false);
 * ```
 */
export function isStopWord(token: string): boolean {
  return ENGLISH_STOP_WORDS.has(token);
}
