/**
 * The npm packages: their sizes, packed and unpacked, and the cold start of
 * `npx memo mcp` to its first answer, against a minimal stdio server of the
 * official MCP SDK under the same `node`, in the same run.
 *
 * It builds the three packages with `scripts/build_npm.ts` into a temporary
 * folder, reads `npm pack --dry-run --json` for each, and installs them with
 * `npm install --install-links` into an empty project there (its
 * `node_modules` is measured: what installing memo brings in), then adds
 * `@modelcontextprotocol/sdk`. Each round then starts, in a rotating order:
 *
 * - `npx memo mcp` (what an MCP client configured by `memo init` runs);
 * - `node <project>/node_modules/@memo/mcp-server/cli.js mcp` (the same bin,
 *   without npx);
 * - `node sdk_server.mjs`: the SDK's `McpServer` with one `echo` tool over
 *   `StdioServerTransport`.
 *
 * A start is timed from the spawn to the `initialize` result on stdout; the
 * process is then ended by closing its stdin. One warm-up round is not
 * counted. Reports p50 and p95 of each, and their ratio to the SDK server.
 *
 * Run: deno run -A bench/npm_bench.ts [--rounds N] [--json FILE]
 *
 * @module
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { percentile } from "./_report.ts";
import { buildNpm, installApp, PACKAGES, run, SDK, SDK_SERVER } from "./_npm_kit.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "npm-bench", version: "1.0.0" },
  },
}) + "\n";

interface Contender {
  name: string;
  command: string;
  args: string[];
}

/** One package as `npm pack --dry-run --json` reports it. */
interface PackageSize {
  name: string;
  version: string;
  packed: number;
  unpacked: number;
  files: number;
}

function flag(name: string, fallback: string): string {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Deno.args[at + 1] : fallback;
}

/** Milliseconds from the spawn to the initialize result on stdout. */
async function coldStart(c: Contender, cwd: string): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(c.command, {
    args: c.args,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1", npm_config_loglevel: "error" },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(INITIALIZE));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let elapsed = NaN;
  while (Number.isNaN(elapsed)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const message = JSON.parse(line);
      if (message.id === 1) {
        if (!message.result) throw new Error(`${c.name}: ${line}`);
        elapsed = performance.now() - started;
        break;
      }
    }
  }
  // End it as a client does: close stdin, then wait (killing it after 5 s).
  await writer.close().catch(() => {});
  await reader.cancel().catch(() => {});
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await child.status;
  clearTimeout(timer);
  if (Number.isNaN(elapsed)) throw new Error(`${c.name} exited before answering initialize`);
  return elapsed;
}

async function main() {
  const rounds = Number(flag("--rounds", "15"));
  const jsonOut = flag("--json", "");
  const work = await Deno.makeTempDir({ prefix: "memo-npm-bench-" });
  try {
    const out = join(work, "npm");
    await buildNpm(repo, out);

    const packed = JSON.parse(
      await run("npm", ["pack", "--dry-run", "--json", ...PACKAGES.map((p) => `./${p}`)], out),
    );
    const sizes: PackageSize[] = packed.map((p: Record<string, unknown>) => ({
      name: p.name,
      version: p.version,
      packed: p.size,
      unpacked: p.unpackedSize,
      files: (p.files as unknown[]).length,
    }));

    const app = join(work, "app");
    const bin = await installApp(app, out);
    const installed = await installedSize(join(app, "node_modules"));
    await run("npm", ["install", "--no-audit", "--no-fund", SDK], app);
    await Deno.writeTextFile(join(app, "sdk_server.mjs"), SDK_SERVER);
    const node = (await run("node", ["--version"], app)).trim();

    const contenders: Contender[] = [
      { name: "npx memo mcp", command: "npx", args: ["memo", "mcp"] },
      { name: "node …/@memo/mcp-server/cli.js mcp", command: "node", args: [bin, "mcp"] },
      { name: "SDK McpServer (node sdk_server.mjs)", command: "node", args: ["sdk_server.mjs"] },
    ];
    const times: number[][] = contenders.map(() => []);
    for (let round = -1; round < rounds; round++) {
      // Rotate the order so that no contender always runs right after another.
      for (let k = 0; k < contenders.length; k++) {
        const i = (k + Math.max(round, 0)) % contenders.length;
        const ms = await coldStart(contenders[i], app);
        if (round >= 0) times[i].push(ms);
      }
    }

    const sdkP50 = percentile([...times[2]].sort((a, b) => a - b), 0.5);
    const rows = contenders.map((c, i) => {
      const sorted = [...times[i]].sort((a, b) => a - b);
      const p50 = percentile(sorted, 0.5);
      return { name: c.name, p50, p95: percentile(sorted, 0.95), vsSdk: p50 / sdkP50 };
    });

    const machine =
      `${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} cores, ` +
      `node ${node}, Deno ${Deno.version.deno}`;
    const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;
    console.log(`npm packages: ${machine}`);
    console.log("\npackage              version   packed      unpacked    files");
    for (const s of sizes) {
      console.log(
        `${s.name.padEnd(20)} ${s.version.padEnd(9)} ${kB(s.packed).padStart(10)}  ` +
          `${kB(s.unpacked).padStart(10)}  ${String(s.files).padStart(5)}`,
      );
    }
    console.log(
      `\ninstalled with their dependencies: ${installed.packages} packages, ` +
        `${(installed.bytes / 1e6).toFixed(1)} MB in node_modules`,
    );
    for (const [name, bytes] of installed.largest) {
      console.log(`  ${name.padEnd(36)} ${(bytes / 1e6).toFixed(1).padStart(6)} MB`);
    }
    console.log(`\ncold start to the initialize result, ${rounds} rounds alternating (ms)`);
    console.log(`${"server".padEnd(38)} ${"p50".padStart(7)} ${"p95".padStart(7)}  p50 vs SDK`);
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(38)} ${r.p50.toFixed(0).padStart(7)} ${r.p95.toFixed(0).padStart(7)}` +
          `  ${r.vsSdk.toFixed(2)}×`,
      );
    }
    if (jsonOut) {
      await writeFile(
        jsonOut,
        JSON.stringify(
          { machine, node, rounds, sizes, installed, coldStart: rows, times },
          null,
          2,
        ) + "\n",
      );
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/** Bytes under a folder (file sizes, not blocks). */
async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) total += await bytesUnder(path);
    else if (entry.isFile) total += (await Deno.stat(path)).size;
  }
  return total;
}

/** The packages of a `node_modules` (scoped ones counted one by one), their bytes, the largest. */
async function installedSize(
  nodeModules: string,
): Promise<{ packages: number; bytes: number; largest: [string, number][] }> {
  const sizes: [string, number][] = [];
  for await (const entry of Deno.readDir(nodeModules)) {
    if (!entry.isDirectory || entry.name.startsWith(".")) continue;
    const path = join(nodeModules, entry.name);
    if (!entry.name.startsWith("@")) {
      sizes.push([entry.name, await bytesUnder(path)]);
      continue;
    }
    for await (const scoped of Deno.readDir(path)) {
      if (scoped.isDirectory) {
        sizes.push([`${entry.name}/${scoped.name}`, await bytesUnder(join(path, scoped.name))]);
      }
    }
  }
  sizes.sort((a, b) => b[1] - a[1]);
  return {
    packages: sizes.length,
    bytes: sizes.reduce((sum, [, bytes]) => sum + bytes, 0),
    largest: sizes.slice(0, 5),
  };
}

if (import.meta.main) await main();
