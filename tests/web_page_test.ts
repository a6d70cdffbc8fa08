/**
 * The web page in a real browser: headless Chromium (Debian's, driven by
 * playwright-core with the closed-network flags) against `memo serve` on a
 * free loopback port with seeded notes. Search and highlights, edit and save,
 * forget through the in-page dialog, live updates from another process, a
 * hostile note that runs no script, the bearer-token sign-in, read-only mode,
 * gzip on the answers over 1 KB (never on the listen stream), notes that stay
 * true (the history toggle, a note's chain both ways, similar notes after
 * "Remember", a Tidy accept that lands in `notes.md`), axe-core, and
 * screenshots under `tests/output/web/`.
 *
 * One browser for the whole file, a new context per step, each server
 * configuration started once.
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import axe from "npm:axe-core@4.14.1";
import { openMemo } from "../memory/mod.ts";
import { fileURLToPath } from "node:url";
import { runProcess } from "./_run_process.ts";
import { type Browser, type BrowserContext, launchBrowser, type Page } from "./_browser.ts";
import { type ServeProcess, startMemoServe } from "./_serve_process.ts";

const ROOT = new URL("..", import.meta.url);
const OUTPUT = new URL("output/web/", import.meta.url);
const TOKEN = "web-page-test-token-3b9d51";
const WRONG_TOKEN = "wrong-token-c04e7a";
const STATELESS = "2026-07-28";
const HOSTILE_BODY = [
  "Safe words before the payloads.",
  "",
  "<script>alert(1)</script>",
  "",
  "<img src=x onerror=alert(2)>",
  "",
  "[click](javascript:alert(3))",
  "",
  '<iframe src="https://example.com"></iframe>',
  "",
  "Safe words after the payloads.",
].join("\n");

interface Seed {
  title: string;
  text: string;
  labels?: string[];
}

/** A temp project with `notes`, and `memo serve` on it. */
interface Served {
  dir: string;
  notesFile: string;
  server: ServeProcess;
}

async function seedProject(notes: Seed[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "memo-web-page-" });
  const memo = await openMemo({ rootDir: dir });
  try {
    for (const n of notes) await memo.remember({ title: n.title, text: n.text, labels: n.labels });
  } finally {
    await memo.close();
  }
  return dir;
}

/** A project with a corrected note, two pairs of near-duplicates and a note to contradict. */
async function seedHistory(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "memo-web-history-" });
  const memo = await openMemo({ rootDir: dir, localEmbeddings: false });
  try {
    const { note } = await memo.remember({ text: "Deploys run on Fridays" });
    await memo.correct({ id: note.id, text: "Deploys run on Mondays" });
    for (
      const text of [
        "Canary deploys hold at 5% of traffic for 30 minutes.",
        "FYI: canary deploys hold at 5% of traffic for 30 minutes.",
        "Backups run nightly at 02:00 UTC.",
        "FYI: backups run nightly at 02:00 UTC.",
        "The audit log is kept for 12 months.",
      ]
    ) await memo.remember({ text });
  } finally {
    await memo.close();
  }
  return dir;
}

/** The marker of the note titled `title` in a `notes.md`. */
async function markerOf(file: string, title: string): Promise<Record<string, unknown>> {
  const lines = (await Deno.readTextFile(file)).split("\n");
  const at = lines.indexOf(`## ${title}`);
  const m = lines[at - 1]?.match(/^<!-- memo:note (\{.*\}) -->$/);
  if (!m) throw new Error(`no note titled ${title} in ${file}`);
  return JSON.parse(m[1]);
}

async function serve(notes: Seed[], args: string[], env: Record<string, string>): Promise<Served> {
  return await serveDir(await seedProject(notes), args, env);
}

/** Every server {@linkcode serveDir} started, for the test to stop (and remove its folder). */
const running: Served[] = [];

/**
 * `memo serve` on `dir`, listed in `running` as soon as it listens (so one that fails to start
 * does not strand the others); a server that does not start takes its folder with it.
 */
async function serveDir(dir: string, args: string[], env: Record<string, string>): Promise<Served> {
  try {
    const server = await startMemoServe(["--dir", dir, ...args], env);
    const served = { dir, notesFile: `${dir}/.memo/memory/notes.md`, server };
    running.push(served);
    return served;
  } catch (e) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw e;
  }
}

interface DiskNote {
  title: string;
  body: string;
  labels: string[];
}

/** The notes in a `notes.md`, by the marker comment above each `## title`. */
async function readNotes(file: string): Promise<DiskNote[]> {
  const lines = (await Deno.readTextFile(file)).split("\n");
  const notes: DiskNote[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(/^<!-- memo:note (\{.*\}) -->$/);
    if (!m || !lines[i + 1]?.startsWith("## ")) continue;
    const meta = JSON.parse(m[1]);
    let end = i + 2;
    while (end < lines.length && !lines[end].startsWith("<!-- memo:note ")) end++;
    notes.push({
      title: lines[i + 1].slice(3),
      body: lines.slice(i + 2, end).join("\n").trim(),
      labels: meta.labels ?? [],
    });
    i = end - 1;
  }
  return notes;
}

/** Runs `memo ARGS --dir DIR` as another process would (the CLI from this checkout). */
async function memoProcess(dir: string, ...args: string[]): Promise<void> {
  const out = await runProcess(Deno.execPath(), ["run", "-A", "cli.ts", ...args, "--dir", dir], {
    cwd: fileURLToPath(ROOT),
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  });
  assert.equal(out.code, 0, out.err);
}

async function waitUntil(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function newContext(
  browser: Browser,
  options: { bypassCSP?: boolean } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    bypassCSP: options.bypassCSP ?? false,
    viewport: { width: 1280, height: 800 },
  });
  // Only a stuck page waits this long: a loaded machine renders well within it.
  context.setDefaultTimeout(30_000);
  return context;
}

function button(scope: Page | ReturnType<Page["locator"]>, name: string) {
  return scope.getByRole("button", { name, exact: true });
}

/** Opens the page and waits for the browsing list. */
async function openNotes(context: BrowserContext, origin: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.getByRole("list", { name: "Notes", exact: true }).waitFor();
  return page;
}

/** Opens the note titled `title` from the browsing list and returns its article. */
async function openNote(page: Page, title: string) {
  await button(page.getByRole("list", { name: "Notes", exact: true }), title).click();
  const article = page.getByRole("article", { name: "Note", exact: true });
  await article.getByRole("heading", { level: 2, name: title, exact: true }).waitFor();
  return article;
}

async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(OUTPUT, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, OUTPUT).pathname, fullPage: true });
}

async function axeViolations(page: Page): Promise<string[]> {
  const installed = await page.evaluate(() => "axe" in globalThis);
  if (!installed) await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const { axe: a, document: doc } = globalThis as any;
    const result = await a.run(doc, { resultTypes: ["violations"] });
    // deno-lint-ignore no-explicit-any
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      // deno-lint-ignore no-explicit-any
      targets: v.nodes.slice(0, 3).map((n: any) => n.target.join(" ")),
    }));
  }) as { id: string; impact: string; help: string; targets: string[] }[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join(", ")})`);
}

Deno.test("the web page in Chromium: search, edit, forget, live, XSS, auth, read-only, axe, screenshots", async (t) => {
  const served = running;
  let browser: Browser | undefined;
  try {
    const [main, authed, readOnly, history, launched] = await Promise.all([
      serve(
        [
          {
            title: "Deploying the app",
            text: "We deploy with fly every Tuesday.",
            labels: ["ops"],
          },
          {
            title: "Coffee machine",
            text: "The coffee machine is on floor 3.",
            labels: ["office"],
          },
          { title: "Old printer", text: "The old printer is in room 12.", labels: ["office"] },
          { title: "Hostile markdown", text: HOSTILE_BODY, labels: ["security"] },
        ],
        [],
        {},
      ),
      serve([{ title: "Signed-in note", text: "Only with the token." }], [], {
        MEMO_MCP_BEARER_TOKEN: TOKEN,
      }),
      serve([{ title: "Read-only note", text: "Nobody changes me." }], ["--read-only"], {}),
      seedHistory().then((dir) => serveDir(dir, [], {})),
      launchBrowser(),
    ]);
    browser = launched;
    const b = browser;

    await t.step("search finds a note and marks the matched terms", async () => {
      const context = await newContext(b);
      try {
        const page = await openNotes(context, main.server.origin);
        assert.equal(await page.title(), "memo");
        const search = page.getByRole("search");
        await search.getByRole("searchbox", { name: "Query", exact: true }).fill("deploys");
        await button(search, "Search").click();
        const results = page.getByRole("list", { name: "Results", exact: true });
        await button(results, "Deploying the app").waitFor();
        assert.equal(await button(results, "Coffee machine").count(), 0);
        const marks = await results.locator("mark").allTextContents();
        assert.ok(marks.includes("Deploying"), `marks: ${JSON.stringify(marks)}`);
        assert.ok(
          marks.every((m) => /^deploy/i.test(m)),
          `only matched terms are marked: ${JSON.stringify(marks)}`,
        );
        await screenshot(page, "search");
      } finally {
        await context.close();
      }
    });

    await t.step(
      "the page's answers over 1 KB come gzipped; its listen stream does not",
      async () => {
        const context = await newContext(b);
        try {
          const answers: { method: string; bytes: number; encoding: string | undefined }[] = [];
          const page = await context.newPage();
          page.on("response", (response) => {
            const request = response.request();
            if (request.method() !== "POST" || !request.url().endsWith("/mcp")) return;
            const method = JSON.parse(request.postData() ?? "{}").method;
            const encoding = response.headers()["content-encoding"];
            if (method === "subscriptions/listen") {
              answers.push({ method, bytes: 0, encoding });
              return;
            }
            // A body still being read when the context closes rejects; that read adds no
            // answer (and is no uncaught error), and the wait below still needs one.
            response.body().then(
              (body) => answers.push({ method, bytes: body.length, encoding }),
              () => {},
            );
          });
          await page.goto(`${main.server.origin}/`);
          await page.getByRole("list", { name: "Notes", exact: true }).waitFor();
          await waitUntil(
            "the listen stream and an answer over 1 KB",
            () =>
              answers.some((a) => a.method === "subscriptions/listen") &&
              answers.some((a) => a.bytes > 1024),
          );
          for (const a of answers) {
            assert.equal(a.encoding, a.bytes > 1024 ? "gzip" : undefined, JSON.stringify(a));
          }
          assert.ok(answers.some((a) => a.encoding === "gzip"), JSON.stringify(answers));
        } finally {
          await context.close();
        }
      },
    );

    await t.step("open, edit, save: notes.md has the change", async () => {
      const context = await newContext(b);
      try {
        const page = await openNotes(context, main.server.origin);
        const article = await openNote(page, "Coffee machine");
        await article.locator(".markdown").getByText("The coffee machine is on floor 3.").waitFor();
        await screenshot(page, "notes");
        await button(article, "Edit").click();
        const form = page.getByRole("form", { name: "Edit note", exact: true });
        await form.getByLabel("Title", { exact: true }).fill("Coffee machine (moved)");
        await form.getByLabel("Text", { exact: true }).fill("The coffee machine moved to floor 5.");
        await form.getByLabel("Labels", { exact: true }).fill("kitchen, office");
        await button(form, "Save").click();
        let edited: DiskNote | undefined;
        await waitUntil("the edit on disk", async () => {
          edited = (await readNotes(main.notesFile)).find((n) =>
            n.title === "Coffee machine (moved)"
          );
          return edited !== undefined;
        });
        assert.equal(edited!.body, "The coffee machine moved to floor 5.");
        assert.deepEqual([...edited!.labels].sort(), ["kitchen", "office"]);
        const titles = (await readNotes(main.notesFile)).map((n) => n.title);
        assert.ok(!titles.includes("Coffee machine"), `titles: ${titles}`);
      } finally {
        await context.close();
      }
    });

    await t.step(
      "an edit sends only what changed and asks before saving over a change made meanwhile; " +
        "pages fit maxPageSize; the page's own origin passes --allowed-origins",
      async () => {
        const small = await serve(
          [
            { title: "Team note", text: "Version one.", labels: ["team, infra", "x"] },
            { title: "Second", text: "Two.", labels: ["team, infra", "x"] },
            { title: "Third", text: "Three." },
          ],
          ["--max-page-size", "2", "--allowed-origins", "https://app.example.com"],
          {},
        );
        const context = await newContext(b);
        try {
          const page = await openNotes(context, small.server.origin);
          const list = page.getByRole("list", { name: "Notes", exact: true });
          await button(list, "Third").waitFor();
          assert.equal(await button(list, "Team note").count(), 0, "two notes a page");
          await button(page, "More notes").click();
          const article = await openNote(page, "Team note");
          await button(article, "Edit").click();
          const form = page.getByRole("form", { name: "Edit note", exact: true });
          await form.getByLabel("Text", { exact: true }).fill("Version one, edited here.");
          // Meanwhile another process changes the note's text and labels.
          const id = (await Deno.readTextFile(small.notesFile)).match(
            /<!-- memo:note \{"id":"([^"]+)"[^\n]*\n## Team note\n/,
          )![1];
          await memoProcess(
            small.dir,
            "update",
            id,
            "--text",
            "Version two, by an agent.",
            "--label",
            "agent",
          );
          await button(form, "Save").click();
          await page.getByRole("status").filter({ hasText: "changed while you edited it" })
            .waitFor();
          const agents = (await readNotes(small.notesFile)).find((n) => n.title === "Team note")!;
          assert.equal(agents.body, "Version two, by an agent.", "nothing saved over it");
          // Saving again puts the edited field (the text) over it; the labels, left alone, stay
          // the agent's.
          await button(form, "Save").click();
          let saved: DiskNote | undefined;
          await waitUntil("the edit on disk", async () => {
            saved = (await readNotes(small.notesFile)).find((n) => n.title === "Team note");
            return saved?.body === "Version one, edited here.";
          });
          assert.deepEqual(saved!.labels, ["agent"]);
        } finally {
          await context.close();
        }
        // A label holding a comma survives an edit of the text alone.
        const again = await newContext(b);
        try {
          const page = await openNotes(again, small.server.origin);
          await button(page, "More notes").click();
          const article = await openNote(page, "Second");
          await button(article, "Edit").click();
          const form = page.getByRole("form", { name: "Edit note", exact: true });
          await form.getByLabel("Text", { exact: true }).fill("Two, edited.");
          await button(form, "Save").click();
          let second: DiskNote | undefined;
          await waitUntil("the edit on disk", async () => {
            second = (await readNotes(small.notesFile)).find((n) => n.title === "Second");
            return second?.body === "Two, edited.";
          });
          assert.deepEqual(second!.labels, ["team, infra", "x"]);
        } finally {
          await again.close();
        }
      },
    );

    await t.step("long notes over the output limit still list, fewer a page", async () => {
      const long = (word: string) => `${word} `.repeat(4_000).trim();
      const big = await serve(
        [
          { title: "Long one", text: long("alpha") },
          { title: "Long two", text: long("bravo") },
        ],
        ["--max-output-bytes", "60000"],
        {},
      );
      const context = await newContext(b);
      try {
        const page = await openNotes(context, big.server.origin);
        const list = page.getByRole("list", { name: "Notes", exact: true });
        await button(list, "Long two").waitFor();
        await button(page, "More notes").click();
        await button(list, "Long one").waitFor();
        assert.equal(await page.getByRole("alert").count(), 0);
      } finally {
        await context.close();
      }
    });

    await t.step("forget asks inside the page and removes the note from notes.md", async () => {
      const context = await newContext(b);
      try {
        const page = await openNotes(context, main.server.origin);
        const dialogs: string[] = [];
        page.on("dialog", (d) => {
          dialogs.push(`${d.type()}: ${d.message()}`);
          d.dismiss().catch(() => {});
        });
        const article = await openNote(page, "Old printer");
        await button(article, "Forget").click();
        const dialog = page.getByRole("dialog", { name: "Forget this note?", exact: true });
        await dialog.waitFor();
        assert.ok(
          (await readNotes(main.notesFile)).some((n) => n.title === "Old printer"),
          "nothing is forgotten before the confirmation",
        );
        assert.equal(
          await page.evaluate("document.activeElement?.textContent"),
          "Cancel",
          "focus starts on Cancel, so Enter alone does not forget",
        );
        await button(dialog, "Forget").click();
        await waitUntil(
          "the note gone from disk",
          async () => !(await readNotes(main.notesFile)).some((n) => n.title === "Old printer"),
        );
        assert.deepEqual(dialogs, [], "no window.confirm/alert/prompt");
        await dialog.waitFor({ state: "hidden" });
      } finally {
        await context.close();
      }
    });

    await t.step("a note remembered by another process appears live, no reload", async () => {
      const context = await newContext(b);
      try {
        const page = await openNotes(context, main.server.origin);
        const status = page.getByRole("status", { name: "Live updates", exact: true });
        await waitUntil(
          "the live indicator",
          async () => (await status.textContent())?.trim() === "live",
        );
        await page.evaluate(() => ((globalThis as Record<string, unknown>).__sameDocument = true));
        const title = "Live note from another process";
        await memoProcess(
          main.dir,
          "remember",
          "Written while the page is open.",
          "--title",
          title,
        );
        const written = performance.now();
        const item = button(page.getByRole("list", { name: "Notes", exact: true }), title);
        await item.waitFor(); // only a page that does not update live waits out the deadline
        const ms = performance.now() - written;
        assert.equal(
          await page.evaluate(() => (globalThis as Record<string, unknown>).__sameDocument),
          true,
          "the page did not reload",
        );
        console.log(
          `live update: the note appeared ${ms.toFixed(0)} ms after memo remember exited`,
        );
      } finally {
        await context.close();
      }
    });

    await t.step("a hostile note runs no script and loads nothing (CSP enforced)", async () => {
      const context = await newContext(b); // no bypassCSP
      try {
        const dialogs: string[] = [];
        const consoleErrors: string[] = [];
        const foreign: string[] = [];
        const origin = main.server.origin;
        context.on("request", (r) => {
          const url = r.url();
          if (!url.startsWith(`${origin}/`)) foreign.push(url);
        });
        const page = await context.newPage();
        page.on("dialog", (d) => {
          dialogs.push(`${d.type()}: ${d.message()}`);
          d.dismiss().catch(() => {});
        });
        page.on("console", (m) => {
          if (m.type() === "error") consoleErrors.push(m.text());
        });
        page.on("pageerror", (e) => consoleErrors.push(`pageerror: ${e.message}`));
        await page.goto(`${origin}/`);
        await page.getByRole("list", { name: "Notes", exact: true }).waitFor();
        const article = await openNote(page, "Hostile markdown");
        const markdown = article.locator(".markdown");
        await markdown.getByText("Safe words after the payloads.").waitFor();
        await page.waitForTimeout(300); // let anything that would run, run
        assert.equal(
          await markdown.locator("iframe, script, img, object, embed, frame").count(),
          0,
        );
        assert.equal(await page.locator('a[href^="javascript" i]').count(), 0);
        assert.equal(page.frames().length, 1, "no frame was created");
        assert.deepEqual(dialogs, [], "no alert ran");
        assert.deepEqual(consoleErrors, [], "no console error");
        assert.deepEqual(foreign, [], "no request left the server's origin");
      } finally {
        await context.close();
      }
    });

    await t.step("with a bearer token, the page signs in and never shows the token", async () => {
      const context = await newContext(b);
      try {
        const urls: string[] = [];
        const authorizations: string[] = [];
        context.on("request", (r) => {
          urls.push(r.url());
          const a = r.headers()["authorization"];
          if (a) authorizations.push(a);
        });
        const page = await context.newPage();
        await page.goto(`${authed.server.origin}/`);
        const form = page.getByRole("form", { name: "Sign in", exact: true });
        await form.waitFor();
        await screenshot(page, "sign-in");
        const input = form.getByLabel("Bearer token", { exact: true });
        assert.equal(await input.getAttribute("type"), "password");

        await input.fill(WRONG_TOKEN);
        await button(form, "Sign in").click();
        await page.getByRole("alert").filter({ hasText: "The token was refused." }).waitFor();
        assert.ok(
          !(await page.content()).includes(WRONG_TOKEN),
          "the wrong token is not in the HTML",
        );
        assert.ok(
          !(await page.locator("body").innerText()).includes(WRONG_TOKEN),
          "the wrong token is not in the text",
        );
        assert.notEqual(
          await page.evaluate(() => sessionStorage.getItem("memo.token")),
          WRONG_TOKEN,
          "a refused token is not kept",
        );

        await input.fill(TOKEN);
        await button(form, "Sign in").click();
        const list = page.getByRole("list", { name: "Notes", exact: true });
        await button(list, "Signed-in note").waitFor();
        assert.equal(await page.evaluate(() => sessionStorage.getItem("memo.token")), TOKEN);
        await button(page.getByRole("banner"), "Sign out").waitFor();
        assert.ok(!(await page.content()).includes(TOKEN), "the token is not in the HTML");
        assert.ok(authorizations.includes(`Bearer ${TOKEN}`), "the token goes in Authorization");
        const leaking = urls.filter((u) => u.includes(TOKEN) || u.includes(WRONG_TOKEN));
        assert.deepEqual(leaking, [], "no URL carries a token");
      } finally {
        await context.close();
      }
    });

    await t.step(
      "read-only: write controls are disabled and a forced write is refused",
      async () => {
        const context = await newContext(b);
        try {
          const before = await Deno.readTextFile(readOnly.notesFile);
          const page = await openNotes(context, readOnly.server.origin);
          await page.getByRole("banner").getByText("read-only", { exact: true }).waitFor();
          assert.equal(await button(page, "New note").isDisabled(), true, "New note");
          const article = await openNote(page, "Read-only note");
          assert.equal(await button(article, "Edit").isDisabled(), true, "Edit");
          assert.equal(await button(article, "Forget").isDisabled(), true, "Forget");
          await button(page, "Connectors").click();
          const connectors = page.getByRole("region", { name: "Connectors", exact: true });
          assert.equal(await button(connectors, "Sync").isDisabled(), true, "Sync");

          const answer = await page.evaluate(async (stateless) => {
            // deno-lint-ignore no-explicit-any
            const meta = (globalThis as any).document.querySelector('meta[name="memo-config"]')
              ?.getAttribute(
                "content",
              );
            const { mcpPath } = JSON.parse(meta ?? "{}");
            const res = await fetch(mcpPath, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": stateless,
                "mcp-method": "tools/call",
                "mcp-name": "remember",
              },
              body: JSON.stringify({
                jsonrpc: "2.0",
                id: 1,
                method: "tools/call",
                params: {
                  name: "remember",
                  arguments: { text: "Forced write" },
                  _meta: {
                    "io.modelcontextprotocol/protocolVersion": stateless,
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {
                      name: "web-page-test",
                      version: "1.0.0",
                    },
                  },
                },
              }),
            });
            return { status: res.status, body: await res.text() };
          }, STATELESS);
          const body = JSON.parse(answer.body);
          assert.ok(body.error, `a JSON-RPC error: ${answer.body}`);
          assert.match(body.error.message, /read-only/);
          assert.equal(await Deno.readTextFile(readOnly.notesFile), before, "notes.md unchanged");
        } finally {
          await context.close();
        }
      },
    );

    await t.step(
      "history: the toggle, a note's chain both ways, similar notes, a Tidy accept in notes.md",
      async () => {
        const context = await newContext(b, { bypassCSP: true }); // axe is injected
        try {
          const page = await openNotes(context, history.server.origin);
          const list = page.getByRole("list", { name: "Notes", exact: true });
          await button(list, "Deploys run on Mondays").waitFor();
          assert.equal(await button(list, "Deploys run on Fridays").count(), 0, "history hidden");
          await page.getByRole("checkbox", { name: "Show history", exact: true }).check();
          await button(list, "Deploys run on Fridays").waitFor();

          // The chain, both ways.
          let article = await openNote(page, "Deploys run on Fridays");
          const found: string[] = [];
          found.push(...(await axeViolations(page)).map((v) => `Chain: ${v}`));
          await screenshot(page, "history");
          await button(article.getByRole("region", { name: "History" }), "Deploys run on Mondays")
            .click();
          article = page.getByRole("article", { name: "Note", exact: true });
          await article.getByRole("heading", { name: "Deploys run on Mondays" }).waitFor();
          await button(article.getByRole("region", { name: "History" }), "Deploys run on Fridays")
            .click();
          await article.getByRole("heading", { name: "Deploys run on Fridays" }).waitFor();

          // Remember a contradiction: the page lists the note it resembles.
          await button(page, "New note").click();
          const form = page.getByRole("form", { name: "New note", exact: true });
          await form.getByLabel("Text", { exact: true }).fill(
            "The audit log is kept for 12 weeks.",
          );
          await button(form, "Remember").click();
          const similar = page.getByRole("region", { name: "Similar notes", exact: true });
          await button(similar, "The audit log is kept for 12 months.").click();
          await article.getByRole("heading", { name: "The audit log is kept for 12 months." })
            .waitFor();

          // Tidy: skip one merge, accept the other; the accept lands in notes.md.
          await button(page, "Tidy").click();
          const proposals = page.getByRole("list", { name: "Proposals", exact: true });
          const canary = proposals.getByRole("listitem", {
            name:
              "Merge into FYI: canary deploys hold at 5% of traffic for 30 minutes. (newest, kept)",
          });
          const backups = proposals.getByRole("listitem", {
            name: "Merge into FYI: backups run nightly at 02:00 UTC. (newest, kept)",
          });
          await canary.waitFor();
          found.push(...(await axeViolations(page)).map((v) => `Tidy: ${v}`));
          await screenshot(page, "tidy");
          const before = await Deno.readTextFile(history.notesFile);
          await button(backups, "Skip").click();
          await backups.waitFor({ state: "detached" });
          assert.equal(await Deno.readTextFile(history.notesFile), before, "a skip writes nothing");
          await button(canary, "Accept").click();
          await page.getByRole("status").filter({ hasText: "now supersedes 1 note" }).waitFor();
          const kept = await markerOf(
            history.notesFile,
            "FYI: canary deploys hold at 5% of traffic for 30 minutes.",
          );
          const old = await markerOf(
            history.notesFile,
            "Canary deploys hold at 5% of traffic for 30 minutes.",
          );
          assert.deepEqual(kept.supersedes, [old.id]);
          assert.equal(
            (await markerOf(history.notesFile, "FYI: backups run nightly at 02:00 UTC."))
              .supersedes,
            undefined,
          );
          await page.getByText("Nothing to tidy.").waitFor();
          assert.deepEqual(found, []);
        } finally {
          await context.close();
        }
      },
    );

    await t.step("axe-core finds no serious or critical violation", async () => {
      const context = await newContext(b, { bypassCSP: true });
      try {
        const page = await openNotes(context, main.server.origin);
        await openNote(page, "Deploying the app");
        const found: string[] = [];
        found.push(...(await axeViolations(page)).map((v) => `Notes: ${v}`));
        await button(page, "Status").click();
        await page.getByRole("region", { name: "Status", exact: true }).waitFor();
        found.push(...(await axeViolations(page)).map((v) => `Status: ${v}`));
        await button(page, "Connectors").click();
        await page.getByRole("region", { name: "Connectors", exact: true }).waitFor();
        found.push(...(await axeViolations(page)).map((v) => `Connectors: ${v}`));
        assert.deepEqual(found, []);
      } finally {
        await context.close();
      }
    });

    await t.step("screenshots of the main views", async () => {
      const context = await newContext(b);
      try {
        const page = await openNotes(context, main.server.origin);
        await button(page, "Status").click();
        await page.getByRole("region", { name: "Status", exact: true }).waitFor();
        await screenshot(page, "status");
        await button(page, "Connectors").click();
        await page.getByRole("region", { name: "Connectors", exact: true }).waitFor();
        await screenshot(page, "connectors");
        for (const name of ["notes", "search", "status", "connectors", "sign-in"]) {
          const bytes = await Deno.readFile(new URL(`${name}.png`, OUTPUT));
          assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], `${name}.png is a PNG`);
        }
      } finally {
        await context.close();
      }
    });
  } finally {
    await browser?.close();
    for (const s of served) {
      await s.server.stop();
      await Deno.remove(s.dir, { recursive: true }).catch(() => {});
    }
  }
});
