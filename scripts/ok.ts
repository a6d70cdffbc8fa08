/**
 * `deno task ok`: every check that must stay green, in order — format, lint,
 * the import graph (`check_imports.ts`), type check, doc lint, publish dry-run
 * in each package folder, then the tests (`deno task test`, documentation
 * examples included). `--skip-tests` runs only the static checks.
 *
 * @module
 */

const skipTests = Deno.args.includes("--skip-tests");
const root = new URL("..", import.meta.url).pathname;
const deno = Deno.execPath();

const steps: { name: string; args: string[]; cwd?: string }[] = [
  { name: "fmt", args: ["fmt", "--check"] },
  { name: "lint", args: ["lint"] },
  { name: "imports", args: ["run", "-A", "--lock=deno.dev.lock", "scripts/check_imports.ts"] },
  { name: "check", args: ["check", "--lock=deno.dev.lock", "."] },
  {
    name: "locks",
    args: ["run", "-A", "--lock=deno.dev.lock", "scripts/runtime_lock.ts", "--check"],
  },
  {
    name: "doc lint",
    args: ["doc", "--lint", "mod.ts", "http.ts", "memory/mod.ts", "connectors/mod.ts"],
  },
  { name: "publish memory", args: ["publish", "--dry-run", "--allow-dirty"], cwd: "memory" },
  {
    name: "publish connectors",
    args: ["publish", "--dry-run", "--allow-dirty"],
    cwd: "connectors",
  },
  { name: "publish workspace", args: ["publish", "--dry-run", "--allow-dirty"] },
];
if (!skipTests) steps.push({ name: "test", args: ["task", "test"] });

for (const step of steps) {
  const started = performance.now();
  const { code } = await new Deno.Command(deno, {
    args: step.args,
    cwd: step.cwd ? `${root}${step.cwd}` : root,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  const took = ((performance.now() - started) / 1000).toFixed(1);
  if (code !== 0) {
    console.error(`ok: ${step.name} failed (exit ${code}, ${took} s)`);
    Deno.exit(1);
  }
  console.error(`ok: ${step.name} passed (${took} s)`);
}
