import assert from "node:assert/strict";
import { pieces, renderMarkdown, snippetWindow } from "./text.ts";

Deno.test("renderMarkdown() escapes raw HTML instead of keeping it", () => {
  const html = renderMarkdown(
    '<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n<iframe src="https://example.com"></iframe>',
  );
  assert.doesNotMatch(html, /<script|<img|<iframe/);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /&lt;iframe src=&quot;/);
});

Deno.test("renderMarkdown() links only to http(s) and mailto, opening them apart", () => {
  const html = renderMarkdown(
    "[a](https://example.com/x) [b](mailto:me@example.com) [c](javascript:alert(3)) " +
      "[d](data:text/html,<b>x</b>) [e](/relative) [f](vbscript:x)",
  );
  const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
  assert.deepEqual(hrefs, ["https://example.com/x", "mailto:me@example.com"]);
  assert.match(html, /rel="noopener noreferrer nofollow" target="_blank"/);
  assert.doesNotMatch(html, /javascript:alert\(3\)"|<a[^>]*data:/);
});

Deno.test("renderMarkdown() loads no image: the syntax stays text", () => {
  const html = renderMarkdown("![tracker](https://example.com/pixel.png)");
  assert.doesNotMatch(html, /<img|<a /);
  assert.match(html, /!\[tracker\]\(https:\/\/example\.com\/pixel\.png\)/);
});

Deno.test("renderMarkdown() renders markdown, a single newline as a line break", () => {
  const html = renderMarkdown("# Title\nline one\nline two\n\n- `code` and **bold**");
  assert.match(html, /<h1>Title<\/h1>/);
  assert.match(html, /line one<br>\nline two/);
  assert.match(html, /<code>code<\/code> and <strong>bold<\/strong>/);
});

Deno.test("pieces() marks the spans of one field, in a window with ellipses", () => {
  const text = "Deploying to production: deploys run nightly";
  const spans = [
    { field: "body" as const, start: 0, end: 9 },
    { field: "body" as const, start: 25, end: 32 },
    { field: "title" as const, start: 0, end: 4 },
  ];
  assert.deepEqual(pieces(text, spans, "body"), [
    { text: "Deploying", marked: true },
    { text: " to production: ", marked: false },
    { text: "deploys", marked: true },
    { text: " run nightly", marked: false },
  ]);
  assert.deepEqual(pieces(text, spans, "body", 10, 30), [
    { text: "…", marked: false },
    { text: "to production: ", marked: false },
    { text: "deplo", marked: true },
    { text: "…", marked: false },
  ]);
});

Deno.test("snippetWindow() starts near the first body highlight", () => {
  const body = "x ".repeat(300) + "needle " + "y ".repeat(300);
  const [from, to] = snippetWindow(body, [{ field: "body", start: 600, end: 606 }], 200);
  assert.ok(from <= 600 && to >= 606, `${from}-${to}`);
  assert.equal(to - from, 200);
  assert.deepEqual(snippetWindow("short", [], 200), [0, 5]);
});
