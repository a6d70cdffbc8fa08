/**
 * English irregular verb forms mapped to their base form (`went` → `go`, `bought` → `buy`), applied
 * before stemming. Porter2 handles regular inflection only, so without this a question ("When did
 * she go …?") misses the note that tells it ("I went …"). Forms that are more often another word
 * (`rose`, `ground`, `bound`, `wound`, `lay`, `bore`, `fell`, `spoke`, `lead`) are left out.
 *
 * @module
 */

// base past [participle]; "|" separates entries.
const TABLE = (
  "arise arose arisen|awake awoke awoken|be was been|be were|bear bore borne|beat beat beaten|" +
  "become became become|begin began begun|bend bent|bet bet|bite bit bitten|bleed bled|" +
  "blow blew blown|break broke broken|breed bred|bring brought|build built|burn burnt|" +
  "buy bought|catch caught|choose chose chosen|cling clung|come came come|cost cost|" +
  "creep crept|dig dug|do did done|draw drew drawn|dream dreamt|drink drank drunk|" +
  "drive drove driven|eat ate eaten|feed fed|feel felt|fight fought|find found|flee fled|" +
  "fly flew flown|forbid forbade forbidden|forget forgot forgotten|forgive forgave forgiven|" +
  "freeze froze frozen|get got gotten|give gave given|go went gone|grind ground|" +
  "grow grew grown|hang hung|have had|hear heard|hide hid hidden|hold held|keep kept|" +
  "kneel knelt|know knew known|lean leant|leap leapt|learn learnt|leave left|lend lent|" +
  "lose lost|make made|mean meant|meet met|mistake mistook mistaken|overcome overcame|" +
  "pay paid|prove proven|ride rode ridden|ring rang rung|rise rose risen|run ran|say said|" +
  "see saw seen|seek sought|sell sold|send sent|sew sewn|shake shook shaken|shine shone|" +
  "shoot shot|show shown|shrink shrank shrunk|sing sang sung|sink sank sunk|sit sat|" +
  "sleep slept|slide slid|speak spoke spoken|speed sped|spend spent|spin spun|spit spat|" +
  "spread spread|spring sprang sprung|stand stood|steal stole stolen|stick stuck|" +
  "sting stung|stink stank stunk|strike struck|strive strove striven|swear swore sworn|" +
  "sweep swept|swim swam swum|swing swung|take took taken|teach taught|tear tore torn|" +
  "tell told|think thought|throw threw thrown|understand understood|undertake undertook " +
  "undertaken|upset upset|wake woke woken|wear wore worn|weave wove woven|weep wept|" +
  "win won|withdraw withdrew withdrawn|write wrote written|child children|man men|" +
  "woman women|mouse mice|foot feet|tooth teeth|goose geese"
).split("|");

const SKIP = new Set(["rose", "ground", "bound", "wound", "lay", "bore", "fell", "spoke", "lead"]);

/**
 * Irregular forms (folded) and their base form.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { IRREGULAR_FORMS } from "@memo/memory";
 * assert.equal(IRREGULAR_FORMS.get("went"), "go");
 * ```
 */
export const IRREGULAR_FORMS: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const entry of TABLE) {
    const [base, ...forms] = entry.split(" ");
    for (const form of forms) if (form !== base && !SKIP.has(form)) map.set(form, base);
  }
  return map;
})();
