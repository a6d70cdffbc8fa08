/**
 * Internal: the words of the hooks' own index. A prompt and a note are cut into the same terms
 * (lower case, letters and digits, a light suffix stemmer), and the words that say nothing about
 * what memo holds (English function words, question words, everyday verbs and the words of any
 * coding request) are dropped from a prompt before memo judges whether it knows it.
 *
 * @module
 */

/** Letters and digits of any script; everything else separates words. */
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/**
 * A light suffix stemmer: `paintings` → `painting` → `paint`, `stories` → `story`. The same
 * function cuts prompts and notes, so only its consistency matters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stem } from "./_words.ts";
 * assert.equal(stem("paintings"), "paint");
 * assert.equal(stem("stories"), "story");
 * assert.equal(stem("melanie's"), "melanie");
 * ```
 */
export function stem(word: string): string {
  let w = word;
  if (w.includes("'") || w.includes("’")) w = w.replace(/['’]s$/, "").replace(/['’]/g, "");
  if (w.length <= 3 || hasDigit(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) {
    w = w.slice(0, -1);
  }
  if (w.endsWith("ing") && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length > 4) w = undouble(w.slice(0, -2));
  return w;
}

function hasDigit(w: string): boolean {
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/** `stopp` → `stop`: a doubled b, d, f, g, m, n, p, r or t at the end, once. */
function undouble(w: string): string {
  const n = w.length;
  return n > 1 && w[n - 1] === w[n - 2] && "bdfgmnprt".includes(w[n - 1]) ? w.slice(0, -1) : w;
}

/**
 * The distinct terms of a text, stemmed, in their first order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terms } from "./_words.ts";
 * assert.deepEqual(terms("Deploys run; deploy RUNS!"), ["deploy", "run"]);
 * ```
 */
export function terms(text: string): string[] {
  const seen = new Set<string>();
  for (const raw of text.toLowerCase().split(SEPARATORS)) {
    if (!raw) continue;
    let t = STEMS.get(raw);
    if (t === undefined) {
      t = stem(raw);
      if (STEMS.size < 100_000) STEMS.set(raw, t);
    }
    if (t.length > 1 || /\d/.test(t)) seen.add(t);
  }
  return [...seen];
}

/** What separates words (an apostrophe inside a word too: `melanie's` is `melanie`, `s`). */
const SEPARATORS = /[^\p{L}\p{N}]+/u;
/** Stems met so far (the vocabulary of a store is small beside its text). */
const STEMS = new Map<string, string>();

/**
 * The terms of a prompt that rank notes: all of them but the function words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rankTerms } from "./_words.ts";
 * assert.deepEqual(rankTerms("When did Melanie go camping?"), ["melanie", "go", "camp"]);
 * ```
 */
export function rankTerms(prompt: string): string[] {
  return terms(prompt).filter((t) => !FUNCTION_WORDS.has(t));
}

/** One word of a prompt: its term, and whether it was written as a name (a capital inside). */
export interface PromptWord {
  term: string;
  name: boolean;
}

/**
 * The words of a prompt that can tell what it is about: its terms without the
 * {@linkcode isPlainWord plain words}, each marked as a name when it starts with a capital
 * letter and is not the prompt's first word.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { promptWords } from "./_words.ts";
 * assert.deepEqual(promptWords("When did Caroline go to the LGBTQ support group?"), [
 *   { term: "caroline", name: true },
 *   { term: "lgbtq", name: true },
 *   { term: "support", name: false },
 *   { term: "group", name: false },
 * ]);
 * assert.deepEqual(promptWords("fix the failing test in the parser"), [
 *   { term: "parser", name: false },
 * ]);
 * ```
 */
export function promptWords(prompt: string): PromptWord[] {
  const out = new Map<string, PromptWord>();
  let first = true;
  for (const sentence of prompt.split(/(?<=[.!?])\s+|\n+/)) {
    first = true;
    for (const m of sentence.matchAll(WORD)) {
      const raw = m[0];
      const term = stem(raw.toLowerCase());
      const wasFirst = first;
      first = false;
      if ((term.length < 2 && !/\d/.test(term)) || isPlainWord(term)) continue;
      const name = !wasFirst && /^\p{Lu}/u.test(raw);
      const had = out.get(term);
      if (had) had.name ||= name;
      else out.set(term, { term, name });
    }
  }
  return [...out.values()];
}

/**
 * Whether a (stemmed) term is one of the words that say nothing about a topic.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isPlainWord } from "./_words.ts";
 * assert.equal(isPlainWord("the"), true);
 * assert.equal(isPlainWord("refactor"), true);
 * assert.equal(isPlainWord("pottery"), false);
 * ```
 */
export function isPlainWord(term: string): boolean {
  return PLAIN.has(term);
}

const FUNCTION_TEXT =
  "a an the and or but nor so yet if then than that this these those there here it its it's " +
  "i me my mine we us our ours you your yours he him his she her hers they them their theirs " +
  "one ones some any all each every both either neither no not none only own same such other " +
  "of in on at by for with about against between into through during before after above below " +
  "to from up down out off over under again further once also just too very can could will " +
  "would shall should may might must do doe did done be is are was were been being am have ha " +
  "has had having what when where which who whom whose why how whether while until because since";

const PLAIN_TEXT = FUNCTION_TEXT +
  " get got gotten let make made want need know think say said tell told see saw " +
  "go goe went gone come came take took give gave put keep kept use look find found show " +
  "what when where which who whom whose why how whether while until because since though " +
  "although unless however ever never always often sometimes usually really quite rather " +
  "much many more most less least few lot lots thing things something anything nothing " +
  "everything someone anyone everyone way ways time times day days year years new old good " +
  "bad big small first last next long little great right left well back now today yesterday " +
  "please thank thanks yes ok okay hi hello hey like likely kind sort type part " +
  // the calendar, and titles before a name
  "january february march april may june july august september october november december " +
  "monday tuesday wednesday thursday friday saturday sunday week weeks month months " +
  "mr mrs ms dr prof sir" +
  // coding requests
  " fix fixe fail test spec bug bugs error issue issues problem broken break work working " +
  "function method class variable var const name rename file files folder dir directory line " +
  "lines code codebase repo project module package import export add remove delete update " +
  "change changes refactor clean cleanup implement write rewrite read run build compile lint " +
  "format check debug log print return call pass failing passe passing type types interface " +
  "field value param parameter argument arg args option options config setting settings " +
  "comment comments doc docs readme todo step steps help explain create edit move copy split " +
  "merge commit push pull branch diff review pr feature handler case cases " +
  "string number list array object map set item items input output result results data " +
  "local global default current main src lib util utils helper helpers simple quick small " +
  "clear clearer cleaner smaller larger bigger faster slower better worse simpler shorter " +
  "longer readable unit integration endpoint api loop retry logging logger";

const FUNCTION_WORDS: ReadonlySet<string> = new Set(FUNCTION_TEXT.split(/\s+/).filter(Boolean));

const PLAIN: ReadonlySet<string> = new Set(
  PLAIN_TEXT.split(/\s+/).filter(Boolean).flatMap((w) => [w, stem(w)]),
);
