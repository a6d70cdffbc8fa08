import assert from "node:assert/strict";
import { parseConnectorConfig } from "./config.ts";
import { ConnectorConfigError } from "./errors.ts";

Deno.test("parseConnectorConfig() reads the connectors list and keeps each entry's parameters", () => {
  assert.deepEqual(parseConnectorConfig({}), []);
  assert.deepEqual(
    parseConnectorConfig({
      recall: {},
      connectors: [{ id: "gh", type: "discussions", repositories: ["a/b"] }],
    }),
    [
      { id: "gh", type: "discussions", repositories: ["a/b"] },
    ],
  );
});

Deno.test("parseConnectorConfig() names the first problem and never repeats a secret", async (t) => {
  const cases: [string, unknown, RegExp][] = [
    ["not an object", [], /must hold a JSON object/],
    ["connectors not a list", { connectors: {} }, /connectors must be a list/],
    ["entry not an object", { connectors: ["x"] }, /connectors\[0\] must be an object/],
    ["bad id", { connectors: [{ id: "a b", type: "pages" }] }, /connectors\[0\]\.id/],
    [
      "duplicate id",
      { connectors: [{ id: "a", type: "pages" }, { id: "a", type: "pages" }] },
      /used twice/,
    ],
    ["no type", { connectors: [{ id: "a" }] }, /has no type/],
    [
      "a token",
      { connectors: [{ id: "a", type: "pages", token: "ntn_secret_value" }] },
      /tokens come only from the environment/,
    ],
    [
      "an api key",
      { connectors: [{ id: "a", type: "pages", apiKey: "ntn_secret_value" }] },
      /apiKey entry/,
    ],
  ];
  for (const [name, config, pattern] of cases) {
    await t.step(name, () =>
      assert.throws(
        () => parseConnectorConfig(config),
        (e) =>
          e instanceof ConnectorConfigError && pattern.test(e.message) &&
          !e.message.includes("ntn_secret_value") &&
          e.message.startsWith("Cannot read .memo/config.json: "),
      ));
  }
});
