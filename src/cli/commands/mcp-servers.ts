import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { type McpServerEntry, onlyOf, parseShard, readMcpServerList, readScoredServers, type ScoredMcpServer, scoreMcpServers, serverFile, shardOf } from "../../libraries/mcp-servers.js";
import { differences, inconsistencies, parsePage, splicePage } from "../../libraries/mcp-servers-page.js";
import { mcpServersMarkdown } from "../../libraries/mcp-servers-table.js";
import { makeDirectory, writeFileAtomic } from "../../report/directory.js";
import { writeReport } from "../../report/format-report.js";
import { EXIT, UsageError } from "../errors.js";

// `tool-conformance mcp-servers`: score the real MCP servers of implementations/mcp/ in the sandbox,
// only invalid arguments sent, and write or check the public table (docs/mcp-servers.md).

interface McpServersFlags {
  folder: string;
  write?: string;
  check?: string;
  out: string;
  shard?: string;
  only: string[];
  from: string[];
}

const collect = (value: string, previous: string[]) => [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];

export function register(program: Command): void {
  program
    .command("mcp-servers")
    .description(
      "score the real MCP servers of implementations/mcp/ (the census: servers.json lists them; its own pinned package.json and lockfile, installed with npm ci --prefix implementations/mcp) as score --mcp does, only invalid arguments sent, each server in the bwrap sandbox with no network and the witness on, and write or check docs/mcp-servers.md. In parts: --shard i/n scores every n-th server from the i-th and writes their reports under --out; --from DIR (every shard's --out) writes the page from those reports without running anything; --only a,b scores the servers named, and --write then replaces their rows and sections in the page, --check compares them with the page's and checks that every row of the page says what its section says. Exit 0 every server scored (and with --check the page current), 1 the page is stale, 2 usage error (no bwrap: the servers never run outside the sandbox; a bad --shard; an unknown --only name; a server --from finds no report of)",
    )
    .option("--folder <dir>", "the folder of servers (servers.json and its node_modules)", join("implementations", "mcp"))
    .option("--write <file>", "write the page (Markdown) to this file, e.g. docs/mcp-servers.md; with --only or --shard, only their rows and sections are replaced in it")
    .option("--check <file>", "exit 1 when this file is not the page the scores give now (CI: the committed page is stale); with --only or --shard, when their rows and sections differ from the file's, or a row of the file does not say what its section says")
    .option("--out <dir>", "folder for each server's report.jsonl and server.json, one subfolder each", join("reports", "mcp-servers"))
    .option("--shard <i/n>", "score only the i-th of n parts of the list: every n-th server from the i-th, by the list's order (1/3, 2/3, 3/3 together score every server once)")
    .option("--only <names>", "score only these servers (their names in servers.json, comma-separated, repeatable)", collect, [])
    .option("--from <dir>", "run nothing: take each server's report.jsonl and server.json from the first of these folders holding them (the --out of earlier runs, every shard's; repeatable)", collect, [])
    .action(async (flags: McpServersFlags) => {
      process.exitCode = await mcpServersCommand(flags);
    });
}

async function mcpServersCommand(flags: McpServersFlags): Promise<number> {
  const entries = readMcpServerList(flags.folder);
  if (flags.shard !== undefined && flags.only.length > 0) throw new UsageError("--shard and --only: give one or the other");
  const selected = flags.shard !== undefined ? shardOf(entries, parseShard(flags.shard)) : flags.only.length > 0 ? onlyOf(entries, flags.only) : entries;
  const whole = selected.length === entries.length;
  if (flags.from.length > 0) {
    const scored = readScoredServers(flags.from, selected);
    return whole ? writeTable({ ...flags, out: undefined }, scored, mcpServersMarkdown(scored, entries.length), "npm run mcp-servers") : writePart(flags, entries, scored);
  }
  const scored = await scoreMcpServers(flags.folder, selected, { onServer: progress(selected.length) });
  // the whole page is compared byte for byte: a row that did not say what its section says could not be current
  if (whole) return writeTable(flags, scored, mcpServersMarkdown(scored, entries.length), "npm run mcp-servers");
  writeTable({ out: flags.out }, scored, "", "");
  return writePart(flags, entries, scored);
}

/** A part of the census: its servers' rows and sections put in the page (--write) or compared with the page's (--check). */
function writePart(flags: McpServersFlags, entries: McpServerEntry[], scored: ScoredMcpServer[]): number {
  if (flags.write !== undefined) {
    const page = splicePage(parsePage(readPage(flags.write, "--write")), entries, scored, flags.write);
    writeFileAtomic(flags.write, page);
    process.stdout.write(`wrote ${flags.write} (${scored.length} of ${entries.length} servers scored now)\n`);
  }
  if (flags.check === undefined) return EXIT.ok;
  const page = parsePage(readPage(flags.check, "--check"));
  const problems = [...differences(page, scored), ...inconsistencies(page)];
  for (const problem of problems) process.stderr.write(`tool-conformance: ${flags.check}: ${problem}\n`);
  if (problems.length > 0) {
    process.stderr.write(`tool-conformance: ${flags.check} is stale: run npm run mcp-servers (or --only ${scored.map((s) => s.entry.name).join(",")} --write ${flags.check}) and commit it\n`);
    return EXIT.failed;
  }
  process.stdout.write(`${flags.check} is current for ${scored.map((s) => s.entry.name).join(", ")}, and every row says what its section says\n`);
  return EXIT.ok;
}

function readPage(file: string, flag: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`${flag} ${file}: cannot read it (a part of the census is put in, or checked against, the whole page)`);
  }
}

/** Says which server is being scored, on stderr. */
export function progress(count: number): (entry: McpServerEntry, n: number) => void {
  return (entry, n) => process.stderr.write(`tool-conformance: [${n + 1}/${count}] ${entry.name}\n`);
}

/** Each server's report.jsonl and server.json (unless `out` is undefined: read from there) and its line on stdout, then the table written (--write) or checked (--check); `regenerate` says how to bring it up to date. */
export function writeTable(flags: { write?: string | undefined; check?: string | undefined; out: string | undefined }, scored: ScoredMcpServer[], table: string, regenerate: string): number {
  for (const server of scored) {
    const { entry, report } = server;
    if (flags.out !== undefined) {
      const dir = join(flags.out, entry.name);
      makeDirectory(dir);
      writeReport(join(dir, "report.jsonl"), report);
      writeFileAtomic(join(dir, "server.json"), `${JSON.stringify(serverFile(server), null, 2)}\n`);
    }
    const total = report.summary.scores.total;
    process.stdout.write(`${entry.name}: ${total.percent}% (${total.passed} of ${total.rows} rows)${report.summary.stopped ? `, not scored: ${report.summary.stopped.cause}` : ""}\n`);
  }
  if (flags.write !== undefined) {
    writeFileAtomic(flags.write, table);
    process.stdout.write(`wrote ${flags.write}\n`);
  }
  if (flags.check !== undefined) {
    let committed: string;
    try {
      committed = readFileSync(flags.check, "utf8");
    } catch {
      throw new UsageError(`--check ${flags.check}: cannot read it`);
    }
    if (committed !== table) {
      process.stderr.write(`tool-conformance: ${flags.check} is stale: run ${regenerate} and commit it\n`);
      return EXIT.failed;
    }

    process.stdout.write(`${flags.check} is current\n`);
  }
  return EXIT.ok;
}
