/**
 * Internal: the facts of a text that make two texts of the same words two different statements,
 * collected token by token while {@linkcode textProfile} reads the text: names (words written
 * with a capital where a sentence does not begin, or with a capital inside), dates (weekdays,
 * months, "today", "night" …, in English, German, French and Spanish), the kind of each number
 * (a date, a version, or a plain number), qualifiers (modal verbs, quantifiers, the grammatical
 * person), and the word after each relation word ("from X to Y", "X over Y").
 *
 * @module
 */

/** The facts of a text: `TextFacts` of `text_profile.ts`, which re-exports it (see there). */
export interface Facts {
  readonly names: readonly string[];
  readonly caps: readonly string[];
  readonly dates: readonly string[];
  readonly qualifiers: readonly string[];
  readonly roles: readonly string[];
  readonly kinds: ReadonlyMap<string, "date" | "version">;
  readonly listed: readonly string[];
  readonly label: readonly string[];
}

/** Most words of a label. */
const LABEL_WORDS = 3;

/** Words that join items of a list. */
const CONJUNCTIONS = new Set(["and", "or", "plus", "und", "oder", "et", "ou", "y", "o", "e"]);

const list = (words: string) => words.trim().split(/\s+/);

/** Date words, folded as the tokenizer folds them, with their normal form. */
const DATES = new Map<string, string>();
{
  const groups = [
    // English, German, French, Spanish weekdays; the first of each group is its normal form.
    "monday mon mondays montag montags lundi lunes",
    "tuesday tue tues tuesdays dienstag dienstags mardi martes",
    "wednesday wed wednesdays mittwoch mittwochs mercredi miercoles",
    "thursday thu thur thurs thursdays donnerstag donnerstags jeudi jueves",
    "friday fri fridays freitag freitags vendredi viernes",
    "saturday sat saturdays samstag samstags samedi sabado",
    "sunday sundays sonntag sonntags dimanche domingo",
    "january jan januar janvier enero",
    "february feb februar fevrier febrero",
    "march mar marz mars marzo",
    "april apr avril abril",
    "june jun juni juin junio",
    "july jul juli juillet julio",
    "august aug aout agosto",
    "september sep sept septembre septiembre",
    "october oct oktober octobre octubre",
    "november nov novembre noviembre",
    "december dec dezember decembre diciembre",
    "today heute aujourd'hui hoy",
    "tomorrow morgen demain manana",
    "yesterday gestern hier ayer",
    "tonight",
    "weekend weekends wochenende",
    "morning mornings morgens matin",
    "afternoon afternoons nachmittag",
    "evening evenings abend abends soir",
    "night nights nightly nacht nachts nuit noche",
    "midnight mitternacht minuit",
    "noon mittag midi",
  ];
  for (const g of groups) {
    const [normal, ...rest] = list(g);
    DATES.set(normal, normal);
    for (const w of rest) DATES.set(w, normal);
  }
  // "May" the month is told from "may" by its capital (see `token`); the others are months only.
  for (const w of list("mai mayo")) DATES.set(w, "may");
}
/** Month names: a number beside one is a date. */
const MONTHS = new Set(
  list(
    "january february march april may june july august september october november december",
  ),
);

/** Qualifiers: words that change what a sentence claims without changing its topic. */
const QUALIFIERS = new Map<string, string>();
{
  const groups: [string, string][] = [
    ["modal:must", "must shall mustn't"],
    ["modal:should", "should ought shouldn't"],
    ["modal:may", "may might can could"],
    ["quant:all", "all every each any everything everyone everybody"],
    ["quant:some", "some several many"],
    ["quant:few", "few"],
    ["quant:most", "most"],
    ["quant:only", "only"],
    ["state:off", "off"],
    // "QA and security" is not "QA or security".
    ["conj:or", "or either nor"],
    [
      "person:1",
      "i me my mine myself we us our ours ourselves i'm i've i'd i'll we're we've we'd we'll",
    ],
    ["person:2", "you your yours yourself yourselves you're you've you'd you'll"],
    [
      "person:3",
      "he him his himself she her hers herself they them their theirs themselves he's she's " +
      "they're they've they'd they'll he'd she'd he'll she'll",
    ],
  ];
  for (const [q, words] of groups) for (const w of list(words)) QUALIFIERS.set(w, q);
}

/**
 * Qualifiers that one text may hold and the other not and still say the same: "must" (a rule
 * stated plainly is a rule) and "all" (a plural stated plainly means all); see
 * {@linkcode factDifferences}.
 */
export const PLAIN_QUALIFIERS: ReadonlySet<string> = new Set(["modal:must", "quant:all"]);

/** Relation words: the word after each names a role ("from X to Y"). */
const RELATIONS = new Set(
  list("from to into onto over under before after than versus vs instead"),
);

/** Words that only announce a note ("FYI"): no word, no name. */
export const FILLERS: ReadonlySet<string> = new Set(
  list("fyi btw psa nb tldr imo imho afaik iirc"),
);

/** Characters a currency sign: kept with the number after it (`$500` is not `€500`). */
const CURRENCY = "$€£¥₹";

/**
 * Collects the facts of one text, token by token (see {@linkcode TextFacts}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FactCollector } from "./_text_facts.ts";
 * const c = new FactCollector();
 * const src = "Ask Dan";
 * c.token(src, 0, 3, "ask", "ask");
 * c.token(src, 4, 7, "dan", "dan");
 * assert.deepEqual(c.finish().names, ["dan"]);
 * ```
 */
export class FactCollector {
  // Allocated at their first fact: most texts have few.
  #names: string[] | undefined;
  #caps: string[] | undefined;
  #dates: string[] | undefined;
  #qualifiers: string[] | undefined;
  #roles: string[] | undefined;
  #kinds: Map<string, "date" | "version"> | undefined;
  #relation: string | undefined;
  #listed: string[] | undefined;
  #label: string[] | undefined;
  #labelWords: string[] = [];
  #prevEnd = -1;
  /** Whether a conjunction came since the last word. */
  #joined = false;
  /** The previous token: its word, whether it was a month, a name, or a number (its end). */
  #prevWord = "";
  #prevMonth = false;
  #prevName = false;
  #prevNumber: string | undefined;
  #prevContent: string | undefined;
  /** The run of numbers joined by `.`, `:`, `/` or `-` ("2025-03-04", "3.11", "10:00"). */
  #runStart = -1;
  #runEnd = -1;
  #runParts = 0;
  #src = "";
  /** Numbers made of runs, for the profile's numbers. */
  literals: readonly string[] = NONE;

  #kind(n: string, kind: "date" | "version") {
    (this.#kinds ??= new Map()).set(n, kind);
  }

  /**
   * One token: its place in `src`, its folded spelling and the profile's word for it (undefined
   * for a stop word or a negation). Answers the number the profile should record for a word with
   * a digit (with its currency sign; "twice" is `2x`), else undefined.
   */
  token(
    src: string,
    start: number,
    end: number,
    raw: string,
    word: string | undefined,
  ): string | undefined {
    this.#src = src;
    if (this.#label === undefined && this.#prevEnd >= 0) {
      const gap = src.slice(this.#prevEnd, start);
      if (/[:—–]|\s-\s/.test(gap)) this.#label = this.#labelWords;
      else if (/[,.!?;\n]/.test(gap) || this.#labelWords.length > LABEL_WORDS) this.#label = [];
    }
    if (this.#label === undefined && word !== undefined) this.#labelWords.push(word);
    this.#prevEnd = end;
    const info = infoOf(raw, word);
    const digit = info.digit;
    const capital = !digit && isUpper(src, start);
    const inner = !digit && hasInnerUpper(src, start, end);
    const initial = capital && !inner && startsSentence(src, start);
    let date = info.date;
    if (raw === "may") date = capital && !initial ? "may" : undefined;
    if ((raw === "am" || raw === "pm") && this.#prevNumber !== undefined) date = raw;
    let number: string | undefined;
    if (date !== undefined) {
      this.#dates = once(this.#dates, date);
      if (MONTHS.has(date) && this.#prevNumber !== undefined) this.#kind(this.#prevNumber, "date");
    } else if (info.qualifier !== undefined) {
      this.#qualifiers = once(this.#qualifiers, info.qualifier);
    }
    if (digit) {
      const sign = start > 0 && CURRENCY.includes(src[start - 1]) ? src[start - 1] : "";
      number = sign + word;
      if (this.#prevMonth) this.#kind(number, "date");
      else if (info.versioned || this.#prevName || this.#prevWord === "version") {
        this.#kind(number, "version");
      }
      if (info.digitRaw) this.#joinRun(src, start, end);
      else this.#endRun();
    } else if (this.#runParts) this.#endRun();
    if (info.conjunction) {
      this.#joined = true;
      if (this.#prevContent !== undefined) (this.#listed ??= []).push(this.#prevContent);
    } else if (word !== undefined) {
      if (this.#joined) (this.#listed ??= []).push(word);
      this.#joined = false;
      this.#prevContent = word;
    }
    if (word !== undefined && date === undefined) {
      if ((capital || inner) && !digit) {
        this.#caps = once(this.#caps, word);
        if (!initial) this.#names = once(this.#names, word);
      }
      if (info.relation) this.#relation = raw;
      else if (this.#relation !== undefined) {
        (this.#roles ??= []).push(`${this.#relation}>${word}`);
        this.#relation = undefined;
      }
    } else if (info.relation) this.#relation = raw;
    this.#prevWord = raw;
    this.#prevMonth = date !== undefined && MONTHS.has(date);
    this.#prevName = (capital && !initial) || inner;
    this.#prevNumber = number;
    return number;
  }

  #joinRun(src: string, start: number, end: number) {
    if (this.#runEnd >= 0 && start === this.#runEnd + 1 && ".:/-".includes(src[this.#runEnd])) {
      this.#runEnd = end;
      this.#runParts++;
      return;
    }
    this.#endRun();
    this.#runStart = start;
    this.#runEnd = end;
    this.#runParts = 1;
  }

  #endRun() {
    if (this.#runParts > 1) {
      const text = this.#src.slice(this.#runStart, this.#runEnd).toLowerCase();
      this.literals = this.literals === NONE ? [text] : [...this.literals, text];
      if (
        /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}$|^[0-9]{1,2}[./][0-9]{1,2}[./][0-9]{2,4}$|^[0-9]{1,2}:[0-9]{2}$/
          .test(text)
      ) this.#kind(text, "date");
      else if (/^v?[0-9]+(\.[0-9x]+)+$/.test(text)) this.#kind(text, "version");
    }
    this.#runStart = this.#runEnd = -1;
    this.#runParts = 0;
  }

  /** The facts collected. */
  finish(): Facts {
    this.#endRun();
    // Most notes have few facts: empty ones are shared, not allocated per note.
    const label = this.#label?.length ? this.#label : undefined;
    if (
      !this.#names && !this.#caps && !this.#dates && !this.#qualifiers && !this.#roles &&
      !this.#kinds && !this.#listed && !label
    ) return NO_FACTS;
    return {
      names: this.#names ?? NONE,
      caps: this.#caps ?? NONE,
      dates: this.#dates?.sort() ?? NONE,
      qualifiers: this.#qualifiers?.sort() ?? NONE,
      roles: this.#roles ?? NONE,
      kinds: this.#kinds ?? NO_KINDS,
      listed: this.#listed ?? NONE,
      label: label ?? NONE,
    };
  }
}

const NONE: readonly string[] = Object.freeze([]);

/** `list` with `x` added unless it holds it already (a new list for the first). */
function once(list: string[] | undefined, x: string): string[] {
  if (!list) return [x];
  if (!list.includes(x)) list.push(x);
  return list;
}
const NO_KINDS: ReadonlyMap<string, "date" | "version"> = new Map();
const NO_FACTS: Facts = Object.freeze({
  names: NONE,
  caps: NONE,
  dates: NONE,
  qualifiers: NONE,
  roles: NONE,
  kinds: NO_KINDS,
  listed: NONE,
  label: NONE,
});

/** What a folded token is, once per spelling (a profile reads each token of every note). */
interface Info {
  date?: string;
  qualifier?: string;
  relation: boolean;
  conjunction: boolean;
  /** The profile's word has a digit ("twice" is `2x`); the token itself has one. */
  digit: boolean;
  digitRaw: boolean;
  /** "v2": a version. */
  versioned: boolean;
}

const INFOS = new Map<string, Info>();

function infoOf(raw: string, word: string | undefined): Info {
  let info = INFOS.get(raw);
  if (info === undefined) {
    info = {
      date: DATES.get(raw),
      qualifier: QUALIFIERS.get(raw),
      relation: RELATIONS.has(raw),
      conjunction: CONJUNCTIONS.has(raw) || raw === "&",
      digit: word !== undefined && /[0-9]/.test(word),
      digitRaw: /[0-9]/.test(raw),
      versioned: /^v[0-9]/.test(raw),
    };
    if (INFOS.size >= 100_000) INFOS.clear();
    INFOS.set(raw, info);
  }
  return info;
}

function isUpper(src: string, i: number): boolean {
  const c = src.charCodeAt(i);
  if (c >= 65 && c <= 90) return true;
  if (c < 128) return false;
  const ch = src[i];
  return ch !== ch.toLowerCase() && ch === ch.toUpperCase();
}

/** Whether a capital follows a small letter inside the token ("iOS", "OneSignal", "API"). */
function hasInnerUpper(src: string, start: number, end: number): boolean {
  for (let i = start + 1; i < end; i++) if (isUpper(src, i)) return true;
  return false;
}

/**
 * Whether the word at `start` begins a sentence, a line or a label: only spaces, quotes,
 * brackets and list or heading marks stand between it and the text's start, a line break, or
 * one of `. ! ? : ;`.
 */
function startsSentence(src: string, start: number): boolean {
  for (let i = start - 1; i >= 0; i--) {
    const ch = src[i];
    if (ch === "\n" || ".!?:;".includes(ch)) return true;
    if (!" \t\r\"'`([{*_>#-–—“‘«".includes(ch)) return false;
  }
  return true;
}
