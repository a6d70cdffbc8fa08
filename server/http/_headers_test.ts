import assert from "node:assert/strict";
import { acceptsEventStream, isJsonContentType, negotiateAccept } from "./_headers.ts";

Deno.test("negotiateAccept() picks JSON, SSE or nothing (406)", async (t) => {
  const cases: [string | null, string | undefined][] = [
    [null, "json"],
    ["", "json"],
    ["*/*", "json"],
    ["application/json", "json"],
    ["application/json, text/event-stream", "json"],
    ["text/event-stream, application/json;q=0.9", "json"],
    ["application/*", "json"],
    ["text/html, */*;q=0.8", "json"],
    ["text/event-stream", "sse"],
    ["TEXT/EVENT-STREAM; charset=utf-8", "sse"],
    ["application/json;q=0, text/event-stream", "sse"],
    ["text/html", undefined],
    ["application/xml, image/png", undefined],
  ];
  for (const [accept, expected] of cases) {
    await t.step(`${accept} → ${expected}`, () => assert.equal(negotiateAccept(accept), expected));
  }
});

Deno.test("isJsonContentType() accepts application/json with parameters only", () => {
  assert.equal(isJsonContentType("application/json"), true);
  assert.equal(isJsonContentType("Application/JSON; charset=utf-8"), true);
  assert.equal(isJsonContentType(null), false);
  assert.equal(isJsonContentType("text/plain"), false);
  assert.equal(isJsonContentType("application/x-www-form-urlencoded"), false);
  assert.equal(isJsonContentType("application/jsonp"), false);
});

Deno.test("acceptsEventStream() follows the most specific range, and q=0 refuses", async (t) => {
  const cases: [string | null, boolean][] = [
    [null, false],
    ["", false],
    ["application/json", false],
    ["application/json, text/event-stream", true],
    ["text/event-stream;q=0.1", true],
    ["text/*", true],
    ["*/*", true],
    ["application/json, text/event-stream;q=0", false],
    ["application/json, text/event-stream; q=0.000", false],
    ["*/*, text/event-stream;q=0", false],
    ["text/*;q=0, text/event-stream", true],
    ["text/event-stream;q=0, */*", false],
    ["TEXT/EVENT-STREAM", true],
    ["text/html", false],
  ];
  for (const [accept, expected] of cases) {
    await t.step(
      `${accept} → ${expected}`,
      () => assert.equal(acceptsEventStream(accept), expected),
    );
  }
});
