import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { embeddingKey, embeddingText } from "./types.ts";

Deno.test("embeddingText: title, then the body unless it starts with the title", () => {
  assert.equal(
    embeddingText({ title: "Deploys", body: "Run make deploy." }),
    "Deploys\nRun make deploy.",
  );
  assert.equal(embeddingText({ title: "Deploys", body: "" }), "Deploys");
  assert.equal(embeddingText({ title: "", body: "Only a body" }), "Only a body");
  assert.equal(
    embeddingText({ title: "Deploys", body: "Deploys run on Mondays" }),
    "Deploys run on Mondays",
  );
  // A title derived from a long first line, cut with "…", is the body's start.
  const body = "The staging deploy key rotates every ninety days and is kept in the vault";
  assert.equal(embeddingText({ title: "The staging deploy key rotates…", body }), body);
  // A title that merely ends with "…" and is not the body's start is kept.
  assert.equal(embeddingText({ title: "Wait…", body: "for it" }), "Wait…\nfor it");
});

Deno.test("embeddingText: at most 1,000 characters, never half a surrogate pair", () => {
  assert.equal(embeddingText({ title: "t", body: "b".repeat(3000) }).length, 1000);
  assert.equal(embeddingText({ title: "t", body: "b".repeat(998) }).length, 1000); // at the limit
  // "t\n" + 997 "x" puts the 1,000th unit on the high half of the first emoji.
  const cut = embeddingText({ title: "t", body: "x".repeat(997) + "😀😀" });
  assert.equal(cut, "t\n" + "x".repeat(997));
  const whole = embeddingText({ title: "t", body: "x".repeat(996) + "😀😀" });
  assert.equal(whole, "t\n" + "x".repeat(996) + "😀");
});

Deno.test("embeddingKey: the first 32 hex characters of the text's sha256", () => {
  const text = "The staging deploy key rotates every 90 days";
  assert.equal(embeddingKey(text), createHash("sha256").update(text).digest("hex").slice(0, 32));
  assert.equal(
    embeddingKey("é"),
    createHash("sha256").update("é", "utf8").digest("hex").slice(0, 32),
  );
  assert.notEqual(embeddingKey("a"), embeddingKey("a "));
});
