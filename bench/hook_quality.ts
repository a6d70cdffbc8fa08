/**
 * The per-prompt threshold of `memo hook` on the LoCoMo dev data (`../shared/bench/locomo-dev/`,
 * or `--data DIR`): each conversation's turns are one memory, one note per turn.
 *
 * - **held**: a question asked against its own conversation's memory. It counts when a note that
 *   holds the answer (one of its evidence turns) is among the notes added.
 * - **not held**: the same question asked against each other conversation's memory. It counts
 *   when nothing is added.
 * - **coding**: everyday coding prompts against every memory. They count when nothing is added.
 *
 * Tuned on conversations 1-3 (`--tune`: a grid over the threshold, the share a note must hold and the number of notes),
 * reported on 4-5; "no threshold" is the top 5 of the same ranking with the threshold off (a name memo does not know
 * still adds nothing).
 *
 * Run: deno run -A bench/hook_quality.ts [--data DIR] [--tune] [--json FILE]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  PROMPT_RECALL_DEFAULTS,
  type PromptRecallOptions,
  recallForPrompt,
  type TermIndex,
} from "../cli/hook/_recall.ts";
import { terms } from "../cli/hook/_words.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    data: {
      type: "string",
      default: join(import.meta.dirname!, "../../../shared/bench/locomo-dev"),
    },
    tune: { type: "boolean", default: false },
    json: { type: "string" },
  },
});

interface Item {
  id: string;
  text: string;
  conversation_id: string;
}
interface Query {
  qid: string;
  conversation_id: string;
  question: string;
  evidence_ids: string[];
  category: string;
}

/** Everyday coding prompts: none of them is about what a conversation's memory holds. */
export const CODING_PROMPTS: readonly string[] = [
  "fix the failing test in the parser",
  "rename this function",
  "Rename this function to something clearer",
  "why does the build fail?",
  "add a unit test for the new endpoint",
  "refactor this class into smaller functions",
  "run the linter and fix the warnings",
  "What does this error mean: TypeError: cannot read properties of undefined",
  "make the CI green",
  "write a README section about installation",
  "bump the dependency versions",
  "Can you explain this regex?",
  "add logging to the retry loop",
  "the tests are flaky, can you find out why",
  "convert this callback to async/await",
  "split this file into modules",
  "remove the dead code in utils",
  "update the changelog",
  "optimize the SQL query in the report",
  "add types to this JavaScript file",
];

async function jsonl<T>(path: string): Promise<T[]> {
  return (await readFile(path, "utf8")).split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

function indexOf(items: readonly Item[]): TermIndex & { ids: string[]; texts: string[] } {
  const map = new Map<string, number[]>();
  const lengths: number[] = [];
  items.forEach((item, i) => {
    const ts = terms(item.text);
    lengths.push(ts.length);
    for (const t of ts) {
      const list = map.get(t);
      if (list) list.push(i);
      else map.set(t, [i]);
    }
  });
  return {
    ids: items.map((i) => i.id),
    texts: items.map((i) => i.text),
    count: items.length,
    postings: (t) => map.get(t) ?? [],
    length: (i) => lengths[i],
    averageLength: lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length),
  };
}

/** The hook's per-prompt budget (800 tokens as characters), as `_context.ts` spends it. */
const BUDGET_CHARS = 800 * 4 - 120;

/** The notes the budget lets through: each costs its id line (~60 characters) and its text. */
function withinBudget(hits: { ordinal: number }[], texts: readonly string[]) {
  let left = BUDGET_CHARS;
  const out = [];
  for (const h of hits) {
    const cost = 60 + Math.min(texts[h.ordinal].length, 1200) + 3;
    if (cost > left) break;
    left -= cost;
    out.push(h);
  }
  return out;
}

interface Figures {
  held: number;
  /** Of the prompts that got notes, the share that were about what memo holds (with the answer). */
  precision: number;
  heldNoAdversarial: number;
  notHeld: number;
  coding: number;
  added: number;
}

function measure(
  convs: readonly string[],
  all: readonly string[],
  indexes: Map<string, ReturnType<typeof indexOf>>,
  queries: readonly Query[],
  options: PromptRecallOptions,
): Figures {
  let held = 0, heldN = 0, heldNa = 0, heldNaN = 0, quiet = 0, quietN = 0, coding = 0, codingN = 0;
  let added = 0, addedPrompts = 0;
  for (const c of convs) {
    const own = indexes.get(c)!;
    for (const q of queries.filter((q) => q.conversation_id === c)) {
      const hits = withinBudget(recallForPrompt(q.question, own, options).hits, own.texts);
      added += hits.length;
      const ok = hits.some((h) => q.evidence_ids.includes(own.ids[h.ordinal]));
      held += ok ? 1 : 0;
      heldN++;
      addedPrompts += hits.length ? 1 : 0;
      if (q.category !== "adversarial") heldNa += ok ? 1 : 0, heldNaN++;
      for (const other of all) {
        if (other === c) continue;
        const loud = recallForPrompt(q.question, indexes.get(other)!, options).hits.length > 0;
        quiet += loud ? 0 : 1;
        addedPrompts += loud ? 1 : 0;
        quietN++;
      }
    }
    for (const p of CODING_PROMPTS) {
      const loud = recallForPrompt(p, own, options).hits.length > 0;
      coding += loud ? 0 : 1;
      addedPrompts += loud ? 1 : 0;
      codingN++;
    }
  }
  return {
    held: held / heldN,
    precision: addedPrompts ? held / addedPrompts : 1,
    heldNoAdversarial: heldNa / heldNaN,
    notHeld: quiet / quietN,
    coding: coding / codingN,
    added: added / heldN,
  };
}

const items = await jsonl<Item>(join(flags.data, "corpus.jsonl"));
const queries = await jsonl<Query>(join(flags.data, "queries.jsonl"));
const convs = [...new Set(items.map((i) => i.conversation_id))];
const indexes = new Map(
  convs.map((c) => [c, indexOf(items.filter((i) => i.conversation_id === c))]),
);
const tune = convs.slice(0, 3);
const report = convs.slice(3);
const fmt = (f: Figures) =>
  `held ${f.held.toFixed(3)} (no adversarial ${f.heldNoAdversarial.toFixed(3)})  ` +
  `precision ${f.precision.toFixed(3)}  ` +
  `not held quiet ${f.notHeld.toFixed(3)}  coding quiet ${f.coding.toFixed(3)}  ` +
  `notes added per held question ${f.added.toFixed(2)}`;

if (flags.tune) {
  const rows: string[] = [];
  for (const threshold of [0.34, 0.5, 0.6, 0.67, 0.75]) {
    for (const minShare of [0, 0.1, 0.3]) {
      for (const limit of [5, 8, 10]) {
        const f = measure(tune, convs, indexes, queries, { threshold, minShare, limit });
        rows.push(`threshold ${threshold} minShare ${minShare} limit ${limit}: ${fmt(f)}`);
      }
    }
  }
  console.log(rows.join("\n"));
}
const noGate = { threshold: 0, minShare: 0, limit: 5 };
const noGateAtAll = { ...noGate, nameGate: false };
const result = {
  data: flags.data,
  defaults: PROMPT_RECALL_DEFAULTS,
  tune: {
    conversations: tune,
    gated: measure(tune, convs, indexes, queries, {}),
    noThreshold: measure(tune, convs, indexes, queries, noGate),
    noGate: measure(tune, convs, indexes, queries, noGateAtAll),
  },
  report: {
    conversations: report,
    gated: measure(report, convs, indexes, queries, {}),
    noThreshold: measure(report, convs, indexes, queries, noGate),
    noGate: measure(report, convs, indexes, queries, noGateAtAll),
  },
};
for (const [what, part] of [["tuned on", result.tune], ["reported on", result.report]] as const) {
  console.log(`${what} ${part.conversations.join(", ")}:`);
  console.log(`  threshold (defaults):          ${fmt(part.gated)}`);
  console.log(`  no threshold (top 5, names):   ${fmt(part.noThreshold)}`);
  console.log(`  no gate at all (top 5):        ${fmt(part.noGate)}`);
}
console.log("goals: held >= 0.6, not held quiet >= 0.9, coding quiet = 1");
if (flags.json) await writeFile(flags.json, JSON.stringify(result, null, 2) + "\n");
