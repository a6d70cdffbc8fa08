import assert from "node:assert/strict";
import { quickRecallArguments } from "./_quick_args.ts";
import { TOOLS } from "./records.ts";

Deno.test("quickRecallArguments: accepts only what the recall schema accepts, with the same value", () => {
  const limits = { defaultPageSize: 25, maxPageSize: 100 };
  const schema = TOOLS.find((t) => t.name === "recall")!.bind(limits).input;
  const cases: unknown[] = [
    { query: "deploy" },
    { query: "deploy", limit: 1 },
    { query: "deploy", limit: 100 },
    { query: "deploy", limit: 101 },
    { query: "deploy", limit: 0 },
    { query: "deploy", limit: 2.5 },
    { query: "deploy", limit: Number.NaN },
    { query: "deploy", limit: Infinity },
    { query: "deploy", limit: "5" },
    { query: "deploy", limit: null },
    { query: "deploy", limit: undefined },
    { query: "" },
    { query: "   \n" },
    { query: " x " },
    { query: "x".repeat(200_000) },
    { query: "x".repeat(200_001) },
    { query: 5 },
    { limit: 5 },
    {},
    { query: "deploy", engine: "lexical" },
    { query: "deploy", extra: 1 },
    JSON.parse('{"query":"deploy","__proto__":{"limit":5}}'),
    Object.assign(Object.create(null), { query: "deploy" }),
    ["deploy"],
    "deploy",
    null,
    undefined,
  ];
  for (const args of cases) {
    const quick = quickRecallArguments(args, limits);
    const parsed = schema.safeParse(args ?? {});
    if (quick === undefined) continue; // zod decides
    assert.ok(parsed.success, `quick accepted what zod refuses: ${JSON.stringify(args)}`);
    assert.deepEqual(quick, parsed.data, JSON.stringify(args));
  }
  // The common shapes do take the quick path.
  assert.ok(quickRecallArguments({ query: "deploy" }, limits));
  assert.ok(quickRecallArguments({ query: "deploy", limit: 10 }, limits));
});
