import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
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
import { openMemo } from "../memo.ts";
import { memoPaths } from "../store/paths.ts";

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

Deno.test("Memo.correct guards the new text, title and labels: redact answers the rules, refuse writes nothing, allow keeps them; supersede adds no text", async () => {
  const [gh, jwt, npm] = ["github-token", "jwt", "npm-token"].map((rule) =>
    corpus.find((s) => s.rule === rule)!
  );
  const dir = await Deno.makeTempDir({ prefix: "memo-secrets-correct-" });
  const open = (secrets: "redact" | "refuse" | "allow") =>
    openMemo({ rootDir: dir, localEmbeddings: false, indexCache: false, secrets });
  const notes = () => readFile(memoPaths(dir).notes);
  try {
    const memo = await open("redact");
    const { note: old } = await memo.remember({ text: "Releases are signed by the CI bot" });
    const fixed = await memo.correct({
      id: old.id,
      text: `Releases are signed with ${gh.text}`,
      title: `Signing ${npm.value}`,
      labels: ["ci", jwt.value],
    });
    assert.deepEqual(fixed.redacted, [
      { rule: npm.rule, field: "title" },
      { rule: gh.rule, field: "text" },
      { rule: jwt.rule, field: "labels" },
    ]);
    assert.deepEqual(fixed.superseded, [old.id]);
    assert.match(fixed.note.body, /\[redacted:github-token\]/);
    assert.deepEqual(fixed.note.labels, ["ci", "[redacted:jwt]"]);
    // supersede only links stored notes: nothing for the guard, no `redacted`.
    const { note: twin } = await memo.remember({ text: "Releases get signed by the CI bot" });
    assert.equal("redacted" in await memo.supersede({ ids: [twin.id], by: fixed.note.id }), false);
    const plain = await memo.correct({ id: fixed.note.id, text: "Releases are signed by hand" });
    assert.equal(plain.redacted, undefined);
    await memo.close();
    for (const text of [JSON.stringify([fixed, plain]), new TextDecoder().decode(await notes())]) {
      for (const s of [gh, jwt, npm]) assert.ok(!text.includes(s.value), s.name);
    }

    const refusing = await open("refuse");
    const before = await notes();
    for (
      const input of [{ text: gh.text }, { text: "t", title: npm.value }, {
        text: "l",
        labels: [jwt.value],
      }]
    ) {
      const e = await refusing.correct({ id: plain.note.id, ...input }).catch((e) => e);
      assert.ok(e instanceof SecretsRefusedError, String(e));
      assert.match(
        e.message,
        /^Cannot correct the note: the note holds a secret \(.+\); nothing was written$/,
      );
      assert.ok(
        ![gh, jwt, npm].some((s) => JSON.stringify({ ...e, m: e.message }).includes(s.value)),
      );
    }
    assert.deepEqual(await notes(), before, "notes.md byte-identical");
    await refusing.close();

    const allowing = await open("allow");
    const kept = await allowing.correct({ id: plain.note.id, text: gh.text });
    assert.ok(kept.note.body.includes(gh.value) && kept.redacted === undefined);
    await allowing.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
