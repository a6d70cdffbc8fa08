import assert from "node:assert/strict";
import {
  createOriginMatcher,
  DEFAULT_ALLOWED_ORIGINS,
  isLoopbackHost,
  isSameOrigin,
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

Deno.test("isSameOrigin() compares the Origin with the request's scheme and Host", async (t) => {
  const at = (url: string, host?: string) =>
    new Request(url, { headers: host === undefined ? {} : { host } });
  const cases: [string, string, Request, boolean][] = [
    ["same origin", "http://memo.lan:8787", at("http://0.0.0.0:8787/mcp", "memo.lan:8787"), true],
    ["host case", "http://memo.lan:8787", at("http://x/mcp", "MEMO.LAN:8787"), true],
    ["origin case", "HTTP://MEMO.LAN:8787", at("http://x/mcp", "memo.lan:8787"), true],
    ["default port in Host", "http://memo.lan", at("http://x/mcp", "memo.lan:80"), true],
    ["default port in Origin", "http://memo.lan:80", at("http://x/mcp", "memo.lan"), true],
    ["https default port", "https://memo.lan", at("https://x/mcp", "memo.lan:443"), true],
    ["no Host header: the URL", "http://127.0.0.1:8787", at("http://127.0.0.1:8787/mcp"), true],
    ["IPv6", "http://[::1]:8787", at("http://x/mcp", "[::1]:8787"), true],
    ["other port", "http://memo.lan:9999", at("http://x/mcp", "memo.lan:8787"), false],
    ["port 80 on https", "https://memo.lan", at("https://x/mcp", "memo.lan:80"), false],
    ["other scheme", "https://memo.lan:8787", at("http://x/mcp", "memo.lan:8787"), false],
    ["other host", "http://evil.example:8787", at("http://x/mcp", "memo.lan:8787"), false],
    ["null", "null", at("http://x/mcp", "memo.lan"), false],
    ["a path in Origin", "http://memo.lan/x", at("http://x/mcp", "memo.lan"), false],
    ["user info in Origin", "http://a@memo.lan", at("http://x/mcp", "memo.lan"), false],
    ["a path in Host", "http://memo.lan", at("http://x/mcp", "memo.lan/evil"), false],
    ["user info in Host", "http://memo.lan", at("http://x/mcp", "evil@memo.lan"), false],
    ["empty Origin", "", at("http://x/mcp", "memo.lan"), false],
    ["bad port in Host", "http://memo.lan", at("http://x/mcp", "memo.lan:99999"), false],
  ];
  for (const [name, origin, request, expected] of cases) {
    await t.step(name, () => assert.equal(isSameOrigin(origin, request), expected));
  }
});
