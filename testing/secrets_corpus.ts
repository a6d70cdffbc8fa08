/**
 * Test helper: a corpus of realistic secrets, built fresh (random, never real credentials) in the
 * formats their vendors document, with valid checksums where the format has one (GitHub's and
 * npm's CRC32 tail), real key pairs and real JWT signatures; and a corpus of look-alikes that must
 * pass untouched (git SHAs, digests, memo's ids and hashes, ULIDs, UUIDs, base64 in code, public
 * keys, placeholders, prose about keys).
 *
 * @module
 */

import { createHmac, generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { isPlaceholder, looksRandom } from "../memory/secrets/_plausible.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ALNUM_DASH = BASE62 + "_-";
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const HEX = "0123456789abcdef";

/**
 * `n` random characters of `alphabet`, drawn again in the rare case they spell a placeholder
 * word ("your", "xxxx", …): memo leaves those alone by design, and the corpus must not be flaky.
 */
export function randomOf(alphabet: string, n: number): string {
  while (true) {
    const bytes = randomBytes(n * 2);
    let out = "";
    for (let i = 0; i < n; i++) out += alphabet[bytes.readUInt16LE(2 * i) % alphabet.length];
    if (!isPlaceholder(out)) return out;
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(text: string): number {
  let c = 0xffffffff;
  for (const b of new TextEncoder().encode(text)) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function base62(n: number, width: number): string {
  let out = "";
  do {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, "0");
}

/**
 * A token in GitHub's format (also npm's): prefix, 30 random base62 characters, then the CRC32 of
 * those 30, in base62, padded to 6.
 * (https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/)
 */
export function checksummedToken(prefix: string): string {
  const random = randomOf(BASE62, 30);
  return `${prefix}${random}${base62(crc32(random), 6)}`;
}

/** Whether a GitHub-format token's CRC32 tail matches. */
export function validChecksum(token: string): boolean {
  const body = token.slice(token.indexOf("_") + 1);
  return base62(crc32(body.slice(0, 30)), 6) === body.slice(30);
}

const b64url = (text: string | Uint8Array) =>
  Buffer.from(text).toString("base64").replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

/** One secret of the corpus: memo's rule id, the value, and a note text holding it. */
export interface CorpusSecret {
  /** What memo reports. */
  rule: string;
  /** What it is. */
  name: string;
  /** The secret value (never allowed to reach any output). */
  value: string;
  /** A note holding it, as an agent would paste it. */
  text: string;
}

/** Builds a fresh corpus of realistic secrets (about 40). */
export function secretCorpus(): CorpusSecret[] {
  const out: CorpusSecret[] = [];
  const add = (rule: string, name: string, value: string, text: string) =>
    out.push({ rule, name, value, text });

  for (const prefix of ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) {
    const t = checksummedToken(prefix);
    add("github-token", `GitHub ${prefix}`, t, `Use this token for the release job: ${t}`);
  }
  const fine = `github_pat_${randomOf(BASE62, 22)}_${randomOf(BASE62, 59)}`;
  add("github-token", "GitHub fine-grained", fine, `export GH_TOKEN=${fine}`);
  const glpat = `glpat-${randomOf(ALNUM_DASH, 20)}`;
  add("gitlab-token", "GitLab", glpat, `git clone with ${glpat} as the password`);
  const slack = `xoxb-${randomOf("123456789", 11)}-${randomOf("123456789", 13)}-${
    randomOf(BASE62, 24)
  }`;
  add("slack-token", "Slack bot", slack, `The bot posts with ${slack}`);
  const hook = `https://hooks.slack.com/services/T${
    randomOf("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 8)
  }/B${randomOf("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10)}/${randomOf(BASE62, 24)}`;
  add("slack-webhook", "Slack webhook", hook, `Alerts go to ${hook}`);
  const npm = checksummedToken("npm_");
  add("npm-token", "npm", npm, `//registry.npmjs.org/:_authToken=${npm}`);
  const pypi = `pypi-AgEIcHlwaS5vcmc${randomOf(ALNUM_DASH, 120)}`;
  add("pypi-token", "PyPI", pypi, `[pypi]\nusername = __token__\npassword = ${pypi}`);
  // (16 characters of 32 fall under memo's randomness bar about once in a hundred draws: memo
  // leaves those alone by design, so the corpus draws again rather than fail one run in twenty)
  let akidPart;
  do akidPart = randomOf("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16); while (!looksRandom(akidPart));
  const akid = `AKIA${akidPart}`;
  add("aws-access-key", "AWS key id", akid, `aws_access_key_id = ${akid}`);
  // (secretlint's AWS rule needs a word boundary after the key: one ending in / or + is redacted
  // by the generic NAME=value rule instead)
  const aws = randomOf(BASE64, 39) + randomOf(BASE62, 1);
  add(
    "aws-secret-key",
    "AWS secret key",
    aws,
    `[default]\naws_access_key_id = AKIA${
      randomOf("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    }\naws_secret_access_key = ${aws}\nregion = eu-west-1`,
  );
  const gcp = `AIza${randomOf(ALNUM_DASH, 35)}`;
  add("gcp-api-key", "GCP API key", gcp, `Maps key: ${gcp}`);
  const pem = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
    type: "pkcs8",
    format: "pem",
  }) as string;
  const keyId = randomOf(HEX, 40);
  add(
    "gcp-service-account",
    "GCP service-account key id",
    keyId,
    "```json\n" + JSON.stringify(
      {
        type: "service_account",
        project_id: "acme-prod",
        private_key_id: keyId,
        private_key: pem,
        client_email: "deployer@acme-prod.iam.gserviceaccount.com",
      },
      null,
      2,
    ) + "\n```",
  );
  const pemBody = pem.split("\n").filter((l) => l && !l.startsWith("-----")).join("");
  add(
    "private-key",
    "GCP service-account private key",
    pemBody,
    JSON.stringify({
      type: "service_account",
      private_key: pem,
    }),
  );
  const azure = randomOf(BASE64, 86) + "==";
  add(
    "azure-connection-string",
    "Azure storage",
    azure,
    `DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=${azure};EndpointSuffix=core.windows.net`,
  );
  const sas = randomOf(BASE64, 43) + "=";
  add(
    "azure-connection-string",
    "Azure Service Bus",
    sas,
    `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${sas}`,
  );
  const openai = `sk-proj-${randomOf(ALNUM_DASH, 74)}T3BlbkFJ${randomOf(ALNUM_DASH, 73)}${
    randomOf(BASE62, 1)
  }`;
  add("openai-api-key", "OpenAI", openai, `OPENAI_API_KEY=${openai}`);
  const anthropic = `sk-ant-api03-${randomOf(ALNUM_DASH, 93)}AA`;
  add("anthropic-api-key", "Anthropic", anthropic, `claude key ${anthropic}`);
  const notionOld = `secret_${randomOf(BASE62, 43)}`;
  add("notion-token", "Notion secret_", notionOld, `Notion integration: ${notionOld}`);
  const notionNew = `ntn_${randomOf("0123456789", 11)}${randomOf(BASE62, 35)}`;
  add("notion-token", "Notion ntn_", notionNew, `NOTION_TOKEN is ${notionNew}`);
  const stripe = `sk_live_${randomOf(BASE62, 99)}`;
  add("stripe-key", "Stripe secret", stripe, `stripe: ${stripe}`);
  const stripeR = `rk_live_${randomOf(BASE62, 24)}`;
  add("stripe-key", "Stripe restricted", stripeR, `restricted key ${stripeR} for reports`);
  const twilio = `SK${randomOf(HEX, 32)}`;
  add("twilio-api-key", "Twilio API key", twilio, `Twilio API key SID ${twilio}`);
  const sendgrid = `SG.${randomOf(ALNUM_DASH, 22)}.${randomOf(ALNUM_DASH, 43)}`;
  add("sendgrid-api-key", "SendGrid", sendgrid, `mail via ${sendgrid}`);
  const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({
    type: "pkcs1",
    format: "pem",
  }) as string;
  add(
    "private-key",
    "RSA private key",
    rsa.split("\n")[1],
    "The deploy key:\n\n```\n" + rsa + "```",
  );
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
    type: "sec1",
    format: "pem",
  }) as string;
  add("private-key", "EC private key", ec.split("\n")[1], ec);
  const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const payload = b64url(JSON.stringify({ sub: "user-42", iat: 1767225600, scope: "admin" }));
  const sig = b64url(createHmac("sha256", randomBytes(32)).update(`${header}.${payload}`).digest());
  const jwt = `${header}.${payload}.${sig}`;
  add("jwt", "JWT", jwt, `curl -H "Authorization: Bearer ${jwt}" https://api.acme.dev/me`);
  const dbPass = randomOf(BASE62, 20);
  add(
    "url-password",
    "PostgreSQL URL",
    dbPass,
    `DATABASE_URL is postgres://app:${dbPass}@db.acme.dev:5432/app`,
  );
  const gitPass = randomOf(BASE62, 18);
  add(
    "url-password",
    "HTTPS URL",
    gitPass,
    `clone https://deploy:${gitPass}@git.acme.dev/acme/app.git`,
  );
  const redisPass = randomOf(BASE62, 24);
  add(
    "url-password",
    "Redis URL",
    redisPass,
    `cache at redis://:${redisPass}@cache.acme.dev:6379/0`,
  );
  const webhook = `whsec_${randomOf(BASE62, 32)}`;
  add("secret-assignment", "NAME=value secret", webhook, `STRIPE_WEBHOOK_SECRET=${webhook}`);
  const dbPw = randomOf(BASE62, 14);
  add("secret-assignment", "PASSWORD=value", dbPw, `DB_PASSWORD=${dbPw}`);
  const yamlKey = randomOf(HEX, 32);
  add("secret-assignment", "YAML api_key", yamlKey, `service:\n  api_key: "${yamlKey}"\n`);
  const clientSecret = randomOf(ALNUM_DASH, 40);
  add(
    "secret-assignment",
    "JSON client_secret",
    clientSecret,
    JSON.stringify({ client_id: "memo-web", client_secret: clientSecret }),
  );
  const twilioToken = randomOf(HEX, 32);
  add("secret-assignment", "Twilio auth token", twilioToken, `TWILIO_AUTH_TOKEN=${twilioToken}`);
  return out;
}

/** One look-alike: a note text that holds no secret and must pass untouched. */
export interface LookAlike {
  /** What it is. */
  name: string;
  /** The note text. */
  text: string;
}

/** Builds the look-alike corpus (fresh random values where they are random). */
export function lookAlikeCorpus(): LookAlike[] {
  const sha1 = randomOf(HEX, 40);
  const sha256 = randomOf(HEX, 64);
  const ulid = randomOf("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26);
  const memoId = randomOf("0123456789abcdefghjkmnpqrstvwxyz", 20);
  const memoHash = randomOf(HEX, 32);
  const ed25519 = "AAAAC3NzaC1lZDI1NTE5AAAAI" + randomOf(BASE64, 43);
  const pub = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({
    type: "spki",
    format: "pem",
  }) as string;
  return [
    { name: "git SHA", text: `Fixed in commit ${sha1} (short ${sha1.slice(0, 7)}).` },
    { name: "sha256", text: `sha256:${sha256}  memo-0.2.0.tgz` },
    {
      name: "memo id and hash",
      text: `Note ${memoId} has hash ${memoHash}; see memo get ${memoId}.`,
    },
    { name: "ULID", text: `Request id ${ulid} failed at 10:02.` },
    { name: "UUID", text: `Tenant ${randomUUID()} moved to the eu region.` },
    {
      name: "base64 in code",
      text:
        '```js\nconst pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";\n' +
        `const data = Buffer.from("${
          Buffer.from(randomBytes(30)).toString("base64")
        }", "base64");\n\`\`\``,
    },
    { name: "ssh public key", text: `Add ssh-ed25519 ${ed25519} deploy@ci to authorized_keys.` },
    { name: "PEM public key", text: "The verifier key:\n\n" + pub },
    {
      name: "Stripe publishable key",
      text: `The checkout page loads pk_live_${randomOf(BASE62, 24)} (publishable).`,
    },
    {
      name: "GitHub placeholder",
      text: "Set GITHUB_TOKEN to ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.",
    },
    {
      name: "angle placeholder",
      text: "export OPENAI_API_KEY=<TOKEN>\ncurl -H 'Authorization: Bearer <TOKEN>'",
    },
    { name: "your-key placeholder", text: "OPENAI_API_KEY=your-api-key-here" },
    { name: "template placeholder", text: "API_KEY=${API_KEY}\nSECRET_KEY={{ secret_key }}" },
    {
      name: "AWS documentation example",
      text:
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    },
    { name: "example URL", text: "Connect with postgres://user:password@localhost:5432/app." },
    { name: "xxxx placeholder", text: "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx goes in the dashboard" },
    {
      name: "the key in words",
      text: "We rotate the key every 90 days. The signing key lives in the vault; tokens expire " +
        "after an hour and the password policy asks for 12 characters.",
    },
    { name: "references", text: "TOKEN=process.env.GITHUB_TOKEN\npassword: vault/path/to/db" },
    { name: "short words", text: "primary key: user_id\nsort_key: created_at\ntoken: see above" },
    {
      name: "identifiers after a bare key or token",
      text:
        `The Idempotency key: ${crypto.randomUUID()} was reused. Fixed in commit key: ${sha1}.\n` +
        `Deploy host SSH key: SHA256:${randomOf(BASE64, 43)}\ngpg key: ${sha1.toUpperCase()}\n` +
        `token: 0${memoId.slice(1)}`,
    },
  ];
}
