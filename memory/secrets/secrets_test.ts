import assert from "node:assert/strict";
import {
  checksummedToken,
  lookAlikeCorpus,
  secretCorpus,
  validChecksum,
} from "../../testing/secrets_corpus.ts";
import { findSecrets, mayHoldSecret, redactMatches, SECRET_RULE_IDS } from "./scan.ts";
import { guardDrafts, guardPatch, SecretsRefusedError } from "./guard.ts";
import { SECRETLINT_RULES } from "./_secretlint.ts";
import { parseSecretsPolicy } from "./policy.ts";

const corpus = secretCorpus();
const lookAlikes = lookAlikeCorpus();

Deno.test("the corpus: GitHub-format tokens carry a valid CRC32 tail", () => {
  const token = checksummedToken("ghp_");
  assert.equal(token.length, 40);
  assert.ok(validChecksum(token));
  assert.ok(!validChecksum(token.slice(0, -1) + (token.endsWith("0") ? "1" : "0")));
  for (const s of corpus.filter((s) => /^(gh[pousr]|npm)_/.test(s.value))) {
    assert.ok(validChecksum(s.value), s.name);
  }
});

Deno.test("findSecrets() finds every secret of the corpus, under memo's rule id", async (t) => {
  for (const s of corpus) {
    await t.step(s.name, async () => {
      assert.ok(mayHoldSecret(s.text), "the prefilter lets it through");
      const found = await findSecrets(s.text);
      assert.ok(
        found.some((f) => f.rule === s.rule),
        `${s.name}: expected ${s.rule}, got ${found.map((f) => f.rule).join(", ") || "nothing"}`,
      );
      const clean = redactMatches(s.text, found);
      assert.ok(!clean.includes(s.value), `${s.name}: the value is gone`);
      assert.ok(clean.includes(`[redacted:${s.rule}]`));
      assert.deepEqual(await findSecrets(clean), [], "a redacted text holds nothing more");
    });
  }
});

Deno.test("findSecrets() leaves every look-alike alone", async (t) => {
  for (const l of lookAlikes) {
    await t.step(l.name, async () => {
      assert.deepEqual(await findSecrets(l.text), [], l.text);
    });
  }
});

Deno.test("every rule id is memo's own, stable and listed", () => {
  for (const s of corpus) assert.ok(SECRET_RULE_IDS.includes(s.rule), s.rule);
  for (const id of SECRET_RULE_IDS) assert.match(id, /^[a-z0-9]+(?:-[a-z0-9]+)*$/);
});

Deno.test("every rule of the pinned secretlint preset is mapped to memo's ids", async () => {
  const preset = await import("@secretlint/secretlint-rule-preset-recommend");
  const names = (preset as unknown as { rules: { meta: { id: string } }[] }).rules
    .map((r) => r.meta.id.replace(/^@secretlint\/secretlint-rule-/, ""))
    .filter((n) => n !== "filter-comments");
  assert.deepEqual([...names].sort(), Object.keys(SECRETLINT_RULES).sort());
});

Deno.test("guardDrafts() redacts, refuses or allows, and never carries a value", async () => {
  const secret = corpus.find((s) => s.rule === "github-token")!;
  const jwt = corpus.find((s) => s.rule === "jwt")!;
  const drafts = [
    { text: "Deploys run with make deploy" },
    { text: secret.text, title: "Release", labels: [jwt.value], source: "file:x.md" },
  ];
  const redacted = await guardDrafts(drafts, "redact", "import");
  assert.equal(redacted.drafts[0], drafts[0]);
  assert.ok(!JSON.stringify(redacted.drafts).includes(secret.value));
  assert.ok(!JSON.stringify(redacted.drafts).includes(jwt.value));
  assert.deepEqual(redacted.redacted, [
    { rule: "github-token", field: "text", index: 1 },
    { rule: "jwt", field: "labels", index: 1 },
  ]);
  const refused = await guardDrafts(drafts, "refuse", "import").catch((e) => e);
  assert.ok(refused instanceof SecretsRefusedError);
  assert.equal(
    refused.message,
    "Cannot import: note 2 of the batch holds secrets (github-token in text, jwt in labels); nothing was written",
  );
  assert.ok(!JSON.stringify({ ...refused, message: refused.message }).includes(secret.value));
  const allowed = await guardDrafts(drafts, "allow", "import");
  assert.deepEqual(allowed.drafts, drafts);
  const patch = await guardPatch({ title: secret.value }, "redact", "update note");
  assert.equal(patch.patch.title, "[redacted:github-token]");
});

Deno.test("parseSecretsPolicy() takes the three policies and refuses others", () => {
  assert.equal(parseSecretsPolicy("ALLOW", "--secrets"), "allow");
  assert.throws(() => parseSecretsPolicy("off", "--secrets"), /expected redact, refuse or allow/);
});
