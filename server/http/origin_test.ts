import assert from "node:assert/strict";
import {
  createOriginMatcher,
  DEFAULT_ALLOWED_ORIGINS,
  isLoopbackHost,
  requestHost,
} from "./origin.ts";

Deno.test("createOriginMatcher() allows the loopback origins on any port by default", async (t) => {
  const allowed = createOriginMatcher(DEFAULT_ALLOWED_ORIGINS);
  const cases: [string, boolean][] = [
    ["http://localhost", true],
    ["http://localhost:5173", true],
    ["http://127.0.0.1:8787", true],
    ["http://[::1]:3000", true],
    ["HTTP://LOCALHOST:80", true],
    ["https://localhost:5173", false],
    ["http://localhost.evil.example", false],
    ["http://localhost:80abc", false],
    ["http://127.0.0.1.nip.io", false],
    ["http://evil.example", false],
    ["null", false],
  ];
  for (const [origin, expected] of cases) {
    await t.step(`${origin} → ${expected}`, () => assert.equal(allowed(origin), expected));
  }
});

Deno.test("createOriginMatcher() replaces the default with a configured list", () => {
  const allowed = createOriginMatcher(["https://app.example.com/", "http://dev.example:*"]);
  assert.equal(allowed("https://app.example.com"), true);
  assert.equal(allowed("http://dev.example:8080"), true);
  assert.equal(allowed("http://localhost:5173"), false);
  assert.equal(createOriginMatcher(["*"])("https://anything.example"), true);
  assert.equal(createOriginMatcher([])("http://localhost"), false);
});

Deno.test("createOriginMatcher() refuses an entry that is not an origin", () => {
  assert.throws(() => createOriginMatcher(["app.example.com"]), /Cannot configure allowed origins/);
  assert.throws(() => createOriginMatcher(["https://a.example/path"]), /not an origin/);
});

Deno.test("isLoopbackHost() accepts only loopback names with an optional port", async (t) => {
  const cases: [string, boolean][] = [
    ["localhost", true],
    ["localhost:8787", true],
    ["LOCALHOST:1", true],
    ["app.localhost:3000", true],
    ["127.0.0.1", true],
    ["127.1.2.3:80", true],
    ["[::1]", true],
    ["[::1]:8787", true],
    ["evil.example.com", false],
    ["evil.example.com:8787", false],
    ["127.0.0.1.evil.example", false],
    ["localhost:80@evil", false],
    ["[::2]:80", false],
    ["10.0.0.1", false],
    ["", false],
  ];
  for (const [host, expected] of cases) {
    await t.step(
      `${host || "(empty)"} → ${expected}`,
      () => assert.equal(isLoopbackHost(host), expected),
    );
  }
});

Deno.test("requestHost() prefers the Host header and falls back to the URL", () => {
  assert.equal(requestHost(new Request("http://127.0.0.1:8787/mcp")), "127.0.0.1:8787");
  assert.equal(requestHost(new Request("http://u:p@[::1]:9/x")), "[::1]:9");
  assert.equal(
    requestHost(new Request("http://127.0.0.1/mcp", { headers: { host: "evil.example" } })),
    "evil.example",
  );
});
