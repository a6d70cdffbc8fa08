import assert from "node:assert/strict";
import { ConnectorConfigError } from "./errors.ts";
import { ConnectorRegistry, createConnectorRegistry, tokenFromEnv } from "./registry.ts";
import { RepoHostConnector } from "./github/connector.ts";
import { WorkspaceConnector } from "./notion/connector.ts";

Deno.test("ConnectorRegistry and createConnectorRegistry() hold the two built-ins", () => {
  for (const registry of [new ConnectorRegistry(), createConnectorRegistry()]) {
    assert.deepEqual(registry.types(), ["discussions", "pages"]);
  }
  assert.deepEqual(new ConnectorRegistry({ builtins: false }).types(), []);
  const gh = createConnectorRegistry().create(
    {
      id: "gh",
      type: "discussions",
      repositories: ["octo-org/hello-world"],
      pageSize: 10,
      apiUrl: "https://ghe.example.com",
    },
    { env: {} },
  );
  assert.ok(gh instanceof RepoHostConnector);
  assert.equal(gh.apiUrl, "https://ghe.example.com/api/graphql");
  assert.equal(gh.pageSize, 10);
  const wiki = createConnectorRegistry().create({
    id: "wiki",
    type: "pages",
    query: "Runbook",
    includeContent: false,
  }, {});
  assert.ok(wiki instanceof WorkspaceConnector);
  assert.equal(wiki.query, "Runbook");
});

Deno.test("tokenFromEnv() prefers the MEMO_ variables and skips empty ones", () => {
  assert.equal(tokenFromEnv("discussions", { MEMO_GITHUB_TOKEN: "a", GITHUB_TOKEN: "b" }), "a");
  assert.equal(tokenFromEnv("discussions", { MEMO_GITHUB_TOKEN: " ", GITHUB_TOKEN: "b" }), "b");
  assert.equal(tokenFromEnv("pages", { MEMO_NOTION_TOKEN: "n", NOTION_TOKEN: "m" }), "n");
  assert.equal(tokenFromEnv("pages", { NOTION_TOKEN: "m" }), "m");
  assert.equal(tokenFromEnv("other", { NOTION_TOKEN: "m" }), undefined);
});

Deno.test("ConnectorRegistry.create() refuses unknown types and parameters, and takes new types", () => {
  const registry = createConnectorRegistry();
  assert.throws(
    () => registry.create({ id: "x", type: "mail" }),
    /unknown type "mail" \(known: discussions, pages\)/,
  );
  assert.throws(
    () => registry.create({ id: "gh", type: "discussions", repos: ["a/b"] }),
    (e) => e instanceof ConnectorConfigError && /takes no parameter "repos"/.test(e.message),
  );
  assert.throws(
    () => registry.create({ id: "gh", type: "discussions", repositories: ["a/b"], pageSize: 101 }),
    /pageSize/,
  );
  assert.throws(
    () => registry.create({ id: "gh", type: "discussions", repositories: [] }),
    /at least one/,
  );
  assert.throws(
    () => registry.create({ id: "gh", type: "discussions", repositories: ["nope"] }),
    /is not owner\/name/,
  );
  assert.throws(
    () => registry.create({ id: "w", type: "pages", databaseId: "x" }),
    /32-character id/,
  );
  assert.throws(
    () =>
      registry.create({
        id: "w",
        type: "pages",
        databaseId: "0f8fad5bd9cb469fa16570867728950e",
        query: "q",
      }),
    /not both/,
  );
  registry.register(
    "static",
    (config) => ({ id: config.id, type: "static", pull: () => Promise.resolve([]) }),
  );
  assert.equal(registry.create({ id: "s", type: "static" }).type, "static");
});
