import assert from "node:assert/strict";
import { intFlag, parseArgs, positionals, UsageError } from "./args.ts";

Deno.test("parseArgs() reads values, repeats, booleans and --", () => {
  const p = parseArgs(
    ["a", "--limit", "5", "--label=x", "--label", "y", "--json", "--", "--not-a-flag"],
    { string: ["limit"], multiple: ["label"], boolean: ["json"] },
  );
  assert.deepEqual(p.positional, ["a", "--not-a-flag"]);
  assert.deepEqual(p.flags, { limit: "5", label: ["x", "y"], json: true });
});

Deno.test("parseArgs() refuses bad flags", async (t) => {
  const cases: [string, string[], RegExp][] = [
    ["unknown long flag", ["--nope"], /unknown flag --nope/],
    ["unknown short flag", ["-x"], /unknown flag -x/],
    ["missing value", ["--limit"], /needs a value/],
    ["value on a boolean", ["--json=1"], /takes no value/],
    ["repeated single flag", ["--limit", "1", "--limit", "2"], /given twice/],
  ];
  for (const [name, argv, pattern] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => parseArgs(argv, { string: ["limit"], boolean: ["json"] }),
        (e) => e instanceof UsageError && pattern.test(e.message),
      );
    });
  }
});

Deno.test("parseArgs() keeps negative numbers and - as positionals", () => {
  assert.deepEqual(parseArgs(["-1", "-"], {}).positional, ["-1", "-"]);
});

Deno.test("intFlag() checks bounds at the limit and one past it", () => {
  const at = (v: string) => intFlag(parseArgs(["--n", v], { string: ["n"] }), "n", 1, 100);
  assert.equal(at("1"), 1);
  assert.equal(at("100"), 100);
  assert.throws(() => at("0"), UsageError);
  assert.throws(() => at("101"), UsageError);
  assert.throws(() => at("1.5"), UsageError);
  assert.throws(() => at("ten"), UsageError);
});

Deno.test("positionals() names the missing or unexpected argument", () => {
  assert.throws(() => positionals(parseArgs([], {}), ["id"]), /missing id/);
  assert.throws(() => positionals(parseArgs(["a", "b"], {}), ["id"]), /unexpected argument "b"/);
  assert.deepEqual(positionals(parseArgs(["a"], {}), ["id"]), ["a"]);
});
