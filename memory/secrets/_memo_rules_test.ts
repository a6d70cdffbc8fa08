import assert from "node:assert/strict";
import { secretCorpus } from "../../testing/secrets_corpus.ts";
import { MEMO_RULES, runMemoRules } from "./_memo_rules.ts";
import type { SecretMatch } from "./_rule.ts";

const corpus = secretCorpus();

function memoRules(text: string): string[] {
  const found: SecretMatch[] = [];
  runMemoRules(text, found);
  return found.map((f) => f.rule);
}

/** For each rule: what it must leave alone (its own look-alikes). */
const NEAR_MISSES: Record<string, string[]> = {
  "jwt": [
    "eyJhbGciOi.eyJzdWIiOi.sig (cut short)",
    "eyJub3QiOiJhIGhlYWRlciJ9.eyJzdWIiOiIxMjM0In0.c2ln",
  ],
  "gcp-api-key": ["AIzaXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "AIza-too-short"],
  "gcp-service-account": ['"private_key_id": "<your key id>"'],
  "pypi-token": ["pypi-AgE...", "pypi-token"],
  "twilio-api-key": ["SKU 4711", "SK00000000000000000000000000000000"],
  "azure-connection-string": [
    "AccountKey=<key>",
    "AccountKey=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx==",
  ],
  "notion-token": ["secret_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "secret_sauce"],
  "sendgrid-api-key": ["SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"],
  "private-key": ["-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END PRIVATE KEY-----"],
  "url-password": [
    "postgres://user:password@localhost/db",
    "https://a:${PASS}@h.io",
    "redis://:secret@h",
  ],
  "secret-assignment": [
    "API_KEY=${API_KEY}",
    "token: see above",
    "TOKEN=process.env.TOKEN",
    "key=abc",
  ],
};

for (const rule of MEMO_RULES) {
  Deno.test(`memo rule ${rule.id}: finds its format, leaves its near misses alone`, () => {
    assert.match(rule.source, /^https:\/\/[^\s]+$/, "it names the documentation of its format");
    const anchor = new RegExp(rule.anchor, rule.anchorIgnoresCase ? "i" : "");
    // The corpus entries of this id that this rule (not a secretlint one of the same id) covers.
    const mine = corpus.filter((s) =>
      s.rule === rule.id && anchor.test(s.text) && !s.text.includes("ntn_")
    );
    const extra: Record<string, string> = {
      "twilio-api-key": `key SK${"0123456789abcdef".repeat(2).split("").reverse().join("")}`,
    };
    assert.ok(mine.length > 0 || extra[rule.id], `the corpus has a ${rule.id}`);
    for (const s of mine) assert.ok(memoRules(s.text).includes(rule.id), s.name);
    assert.ok(rule.pattern.flags.includes("g") && rule.pattern.flags.includes("d"));
    assert.ok(anchor.test(mine[0]?.text ?? extra[rule.id]));
    if (extra[rule.id]) assert.ok(memoRules(extra[rule.id]).includes(rule.id));
    for (const text of NEAR_MISSES[rule.id] ?? []) {
      assert.ok(!memoRules(text).includes(rule.id), `${rule.id} leaves ${JSON.stringify(text)}`);
    }
  });
}

Deno.test("memo rule private-key: a key whose base64 happens to hold an example word is still found", () => {
  const pem = corpus.find((s) => s.name === "RSA private key")!.text;
  const lines = pem.split("\n");
  const at = lines.findIndex((line, i) => i > 1 && line.length >= 64); // not the DER header line
  for (const word of ["here", "todo", "fake", "your", "Example", "SAMPLE"]) {
    const body = [...lines];
    body[at] = body[at].slice(0, 20) + word + body[at].slice(20 + word.length);
    assert.ok(memoRules(body.join("\n")).includes("private-key"), word);
  }
});

Deno.test("memo rule secret-assignment: a bare key or token exempts an identifier in prose only; an assignment keeps its hex or UUID secret", () => {
  const hex40 = "8f3a9c1e7b2d4f6a0e5c9b8d7a6f4e3c2b1a0d9e";
  const hex64 = "3c9f1a7e5b2d8c4f6a0e9d7b5c3a1f8e6d4b2a0c9e7f5d3b1a8c6e4f2d0b9a7c";
  const uuid = "b7e3f2a1-4c5d-4e6f-8a9b-0c1d2e3f4a5b";
  for (
    const text of [
      `TOKEN=${hex40}`, // a .env line (found before fbb1256)
      `export KEY=${uuid}`,
      `{"token": "${hex64}"}`,
      `token = "${hex40}"`,
    ]
  ) {
    assert.deepEqual(memoRules(text), ["secret-assignment"], text);
  }
  // The prose the change is for stays alone.
  assert.deepEqual(memoRules(`The idempotency key: ${uuid} was reused.`), []);
});
