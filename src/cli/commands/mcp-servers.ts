import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { type McpServerEntry, readMcpServerList, type ScoredMcpServer, scoreMcpServers } from "../../libraries/mcp-servers.js";
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
}

export function register(program: Command): void {
  program
    .command("mcp-servers")
    .description(
      "score the real MCP servers of implementations/mcp/ (server-everything, server-filesystem, server-memory, server-sequential-thinking, server-github; its own pinned package.json and lockfile, installed with npm ci --prefix implementations/mcp) as score --mcp does, only invalid arguments sent, each server in the bwrap sandbox with no network, and write or check docs/mcp-servers.md. Exit 0 every server scored (and with --check the table current), 1 the table is stale, 2 usage error (no bwrap: the servers never run outside the sandbox)",
    )
    .option("--folder <dir>", "the folder of servers (servers.json and its node_modules)", join("implementations", "mcp"))
    .option("--write <file>", "write the table (Markdown) to this file, e.g. docs/mcp-servers.md")
    .option("--check <file>", "exit 1 when this file is not the table the scores give now (CI: the committed table is stale)")
    .option("--out <dir>", "folder for each server's report.jsonl, one subfolder each", join("reports", "mcp-servers"))
    .action(async (flags: McpServersFlags) => {
      process.exitCode = await mcpServersCommand(flags);
    });
}

async function mcpServersCommand(flags: McpServersFlags): Promise<number> {
  const entries = readMcpServerList(flags.folder);
  const scored = await scoreMcpServers(flags.folder, entries, { onServer: progress(entries.length) });
  return writeTable(flags, scored, mcpServersMarkdown(scored), "npm run mcp-servers");
}

/** Says which server is being scored, on stderr. */
export function progress(count: number): (entry: McpServerEntry, n: number) => void {
  return (entry, n) => process.stderr.write(`tool-conformance: [${n + 1}/${count}] ${entry.name}\n`);
}

/** Each server's report.jsonl and its line on stdout, then the table written (--write) or checked (--check); `regenerate` says how to bring it up to date. */
export function writeTable(flags: { write?: string; check?: string; out: string }, scored: ScoredMcpServer[], table: string, regenerate: string): number {
  for (const { entry, report } of scored) {
    const dir = join(flags.out, entry.name);
    makeDirectory(dir);
    writeReport(join(dir, "report.jsonl"), report);
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
