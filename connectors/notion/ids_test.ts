import assert from "node:assert/strict";
import { ConnectorConfigError } from "../errors.ts";
import { normalizeNotionId, normalizeNotionToken } from "./ids.ts";

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";

Deno.test("normalizeNotionId() accepts ids with or without hyphens and pasted URLs", () => {
  for (
    const input of [
      ID,
      ID.replace(/-/g, ""),
      ID.toUpperCase(),
      ` ${ID} `,
      `https://www.notion.so/acme/Runbooks-${ID.replace(/-/g, "")}?v=1c2d3e`,
      `https://www.notion.so/${ID.replace(/-/g, "")}`,
      `https://acme.notion.site/Runbooks-${ID.replace(/-/g, "")}#section`,
    ]
  ) assert.equal(normalizeNotionId(input), ID, input);
  for (
    const bad of [
      "",
      "abc",
      `${ID}x`,
      "https://www.notion.so/acme/Runbooks",
      "zz8fad5bd9cb469fa16570867728950e",
    ]
  ) {
    assert.throws(() => normalizeNotionId(bad), ConnectorConfigError, bad);
  }
});

Deno.test("normalizeNotionToken() trims, drops a pasted Bearer and checks the prefix", () => {
  assert.equal(normalizeNotionToken(" ntn_abc\n"), "ntn_abc");
  assert.equal(normalizeNotionToken("Bearer secret_abc"), "secret_abc");
  assert.equal(normalizeNotionToken("bearer   ntn_abc"), "ntn_abc");
  for (const bad of [undefined, " ", "abc", "Bearer ghp_abc", "ntn_a b"]) {
    assert.throws(
      () => normalizeNotionToken(bad),
      (e) => e instanceof ConnectorConfigError && !(bad?.trim() && e.message.includes(bad.trim())),
    );
  }
});
