/**
 * Scopes on the web page, in a real browser: headless Chromium (playwright-core, the system's
 * Chromium) against `memo serve` on loopback without auth, over a temp project with `MEMO_HOME` a
 * temp folder and notes in the project and user scopes. Each note shows its scope's badge; the
 * scope filter narrows the list and the search; a new note created with scope user lands in
 * `$MEMO_HOME/memory/notes.md`, not in the project's, and an edit that picks local moves it to
 * `notes.local.md`; the Status view counts the notes per scope.
 * The same project served hosted (with a bearer token) shows the project's notes alone, with no
 * badge and no scope filter.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openMemo } from "../memory/mod.ts";
import { type Browser, type BrowserContext, launchBrowser, type Page } from "./_browser.ts";
import { type ServeProcess, startMemoServe } from "./_serve_process.ts";

const TOKEN = "web-scopes-test-token-5e81c2";
const PROJECT_NOTE = "Deploys use the blue pipeline";
const USER_NOTE = "I review deploys in the morning";
const NEW_USER_NOTE = "I prefer short deploy summaries";

/** A project and a `MEMO_HOME`, with one note in each of the project and user scopes. */
async function seed(): Promise<{ dir: string; home: string }> {
  const dir = await Deno.makeTempDir({ prefix: "memo-web-scopes-" });
  const home = join(dir, "home");
  const memo = await openMemo({ rootDir: dir, localEmbeddings: false, scopes: { memoHome: home } });
  try {
    await memo.remember({ title: PROJECT_NOTE, text: "The blue pipeline deploys main." });
    await memo.remember({
      title: USER_NOTE,
      text: "Deploys wait for my morning review.",
      scope: "user",
    });
  } finally {
    await memo.close();
  }
  return { dir, home };
}

async function waitUntil(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function newContext(browser: Browser, token?: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(30_000);
  if (token) {
    await context.addInitScript((t) => sessionStorage.setItem("memo.token", t), token);
  }
  return context;
}

function button(scope: Page | ReturnType<Page["locator"]>, name: string) {
  return scope.getByRole("button", { name, exact: true });
}

/** The titles of a list's items and each item's scope badge (`-` for none), in order. */
async function itemsOf(page: Page, list: "Notes" | "Results"): Promise<string[]> {
  return await page.getByRole("list", { name: list, exact: true }).locator("li.item").evaluateAll(
    (items) =>
      items.map((li) =>
        `${li.querySelector(".title")?.textContent} [${
          li.querySelector(".badge.scope")?.textContent ?? "-"
        }]`
      ),
  );
}

async function listShows(page: Page, list: "Notes" | "Results", want: string[]): Promise<void> {
  let seen: string[] = [];
  await waitUntil(`${list}: ${JSON.stringify(want)}`, async () => {
    seen = (await itemsOf(page, list)).sort();
    return JSON.stringify(seen) === JSON.stringify([...want].sort());
  }).catch((e) => {
    throw new Error(`${(e as Error).message}; the list shows ${JSON.stringify(seen)}`);
  });
}

Deno.test("the web page in Chromium: scope badges, the scope filter, a new note's scope, counts per scope", async (t) => {
  const { dir, home } = await seed();
  const env = { MEMO_HOME: home };
  const servers: ServeProcess[] = [];
  let browser: Browser | undefined;
  try {
    const [mine, hosted, launched] = await Promise.all([
      startMemoServe(["--dir", dir], env).then((s) => (servers.push(s), s)),
      startMemoServe(["--dir", dir], { ...env, MEMO_MCP_BEARER_TOKEN: TOKEN })
        .then((s) => (servers.push(s), s)),
      launchBrowser(),
    ]);
    browser = launched;
    const b = browser;

    await t.step(
      "each note shows its scope; the filter narrows the list and the search",
      async () => {
        const context = await newContext(b);
        try {
          const page = await context.newPage();
          await page.goto(`${mine.origin}/`);
          await listShows(page, "Notes", [`${PROJECT_NOTE} [project]`, `${USER_NOTE} [user]`]);
          const scope = page.getByRole("combobox", { name: "Scope", exact: true });
          assert.deepEqual(await scope.locator("option").allTextContents(), [
            "All scopes",
            "user",
            "project",
            "local",
          ]);
          await scope.selectOption("user");
          await listShows(page, "Notes", [`${USER_NOTE} [user]`]);
          await scope.selectOption("project");
          await listShows(page, "Notes", [`${PROJECT_NOTE} [project]`]);

          const search = page.getByRole("search");
          await search.getByRole("searchbox", { name: "Query", exact: true }).fill("deploys");
          await button(search, "Search").click();
          await listShows(page, "Results", [`${PROJECT_NOTE} [project]`]);
          await scope.selectOption("");
          await listShows(page, "Results", [`${PROJECT_NOTE} [project]`, `${USER_NOTE} [user]`]);
        } finally {
          await context.close();
        }
      },
    );

    await t.step(
      "a new note with scope user lands in $MEMO_HOME/memory/notes.md; an edit moves it",
      async () => {
        const context = await newContext(b);
        try {
          const page = await context.newPage();
          await page.goto(`${mine.origin}/`);
          await page.getByRole("list", { name: "Notes", exact: true }).waitFor();
          await button(page, "New note").click();
          const form = page.getByRole("form", { name: "New note", exact: true });
          const choice = form.getByLabel("Scope", { exact: true });
          assert.equal(await choice.inputValue(), "project", "the served default");
          await form.getByLabel("Title", { exact: true }).fill(NEW_USER_NOTE);
          await form.getByLabel("Text", { exact: true }).fill("Three lines at most.");
          await choice.selectOption("user");
          await button(form, "Remember").click();
          const article = page.getByRole("article", { name: "Note", exact: true });
          await article.getByRole("heading", { level: 2, name: NEW_USER_NOTE }).waitFor();
          assert.equal(await article.locator(".badge.scope").textContent(), "user");
          const userNotes = await Deno.readTextFile(join(home, "memory/notes.md"));
          assert.ok(userNotes.includes(`## ${NEW_USER_NOTE}`), userNotes);
          const projectNotes = await Deno.readTextFile(join(dir, ".memo/memory/notes.md"));
          assert.ok(!projectNotes.includes(NEW_USER_NOTE), projectNotes);

          // An edit that picks another scope moves the note.
          await button(article, "Edit").click();
          const edit = page.getByRole("form", { name: "Edit note", exact: true });
          assert.equal(await edit.getByLabel("Scope", { exact: true }).inputValue(), "user");
          await edit.getByLabel("Scope", { exact: true }).selectOption("local");
          await button(edit, "Save").click();
          await article.locator(".badge.scope", { hasText: "local" }).waitFor();
          const localNotes = await Deno.readTextFile(join(dir, ".memo/memory/notes.local.md"));
          assert.ok(localNotes.includes(`## ${NEW_USER_NOTE}`), localNotes);
          assert.ok(
            !(await Deno.readTextFile(join(home, "memory/notes.md"))).includes(NEW_USER_NOTE),
          );

          await button(page, "Status").click();
          const counts = page.getByRole("region", { name: "Scopes", exact: true });
          await waitUntil("the counts per scope", async () => {
            const text = (await counts.locator("li").allTextContents()).join(" | ");
            return /^user .*1 \| project .*1 \| local .*1$/.test(text);
          });
        } finally {
          await context.close();
        }
      },
    );

    await t.step("hosted, the page shows the project's notes alone, without scopes", async () => {
      const context = await newContext(b, TOKEN);
      try {
        const page = await context.newPage();
        await page.goto(`${hosted.origin}/`);
        await listShows(page, "Notes", [`${PROJECT_NOTE} [-]`]);
        assert.equal(await page.getByRole("combobox", { name: "Scope" }).count(), 0);
        await button(page, "New note").click();
        const form = page.getByRole("form", { name: "New note", exact: true });
        assert.equal(await form.getByLabel("Scope").count(), 0);
      } finally {
        await context.close();
      }
    });
  } finally {
    await browser?.close();
    await Promise.all(servers.map((s) => s.stop()));
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
