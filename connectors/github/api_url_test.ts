import assert from "node:assert/strict";
import { ConnectorConfigError } from "../errors.ts";
import { resolveGraphqlUrl } from "./api_url.ts";

Deno.test("resolveGraphqlUrl() accepts GitHub.com and GitHub Enterprise base URLs", () => {
  const cases: [string | undefined, string][] = [
    [undefined, "https://api.github.com/graphql"],
    ["", "https://api.github.com/graphql"],
    ["https://api.github.com", "https://api.github.com/graphql"],
    ["https://api.github.com/", "https://api.github.com/graphql"],
    ["https://ghe.example.com", "https://ghe.example.com/api/graphql"],
    ["https://ghe.example.com/", "https://ghe.example.com/api/graphql"],
    ["https://ghe.example.com/api", "https://ghe.example.com/api/graphql"],
    ["https://ghe.example.com/api/v3/", "https://ghe.example.com/api/graphql"],
    ["https://ghe.example.com/api/graphql", "https://ghe.example.com/api/graphql"],
    ["http://127.0.0.1:8080/graphql", "http://127.0.0.1:8080/graphql"],
    ["https://proxy.example.com/github?x=1", "https://proxy.example.com/github/graphql"],
  ];
  for (const [input, expected] of cases) {
    assert.equal(resolveGraphqlUrl(input), expected, String(input));
  }
});

Deno.test("resolveGraphqlUrl() refuses URLs that are not http(s) or that hold credentials", () => {
  for (
    const bad of [
      "ghe.example.com",
      "ftp://ghe.example.com",
      "https://user:ghp_secret@ghe.example.com",
    ]
  ) {
    assert.throws(
      () => resolveGraphqlUrl(bad),
      (e) => e instanceof ConnectorConfigError && !e.message.includes("ghp_secret"),
    );
  }
});
