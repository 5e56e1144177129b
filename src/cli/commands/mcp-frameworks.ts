import { join } from "node:path";
import type { Command } from "commander";
import { mcpFrameworksMarkdown, WORKED_CALL } from "../../libraries/mcp-frameworks-table.js";
import { readMcpServerList, scoreMcpServers } from "../../libraries/mcp-servers.js";
import { progress, writeTable } from "./mcp-servers.js";

// `tool-conformance mcp-frameworks`: score the one-framework-each servers of implementations/mcp-frameworks/
// in the sandbox, invalid and valid calls both, and write or check docs/mcp-frameworks.md.

interface McpFrameworksFlags {
  folder: string;
  write?: string;
  check?: string;
  out: string;
}

export function register(program: Command): void {
  program
    .command("mcp-frameworks")
    .description(
      "score one small server per MCP server framework (implementations/mcp-frameworks/: the SDK's McpServer (strict objects, and its README's raw shapes) and low-level Server, fastmcp and tmcp with zod (strict objects, and their READMEs' plain ones), tmcp with valibot, the SDK v2, mcp-framework, @hono/mcp and mcp-handler (their fetch handlers driven from stdio); each serving the same tools, its own pinned package.json and lockfile, installed with npm ci --prefix implementations/mcp-frameworks, and mcp-framework's, on zod 3, with npm ci --prefix implementations/mcp-frameworks/mcp-framework) as score --mcp --mcp-run does, invalid calls and valid ones, each server in the bwrap sandbox with no network, and write or check docs/mcp-frameworks.md. Exit 0 every server scored (and with --check the table current), 1 the table is stale, 2 usage error (no bwrap)",
    )
    .option("--folder <dir>", "the folder of servers (frameworks.json and its node_modules)", join("implementations", "mcp-frameworks"))
    .option("--write <file>", "write the table (Markdown) to this file, e.g. docs/mcp-frameworks.md")
    .option("--check <file>", "exit 1 when this file is not the table the scores give now (CI: the committed table is stale)")
    .option("--out <dir>", "folder for each server's report.jsonl, one subfolder each", join("reports", "mcp-frameworks"))
    .action(async (flags: McpFrameworksFlags) => {
      const entries = readMcpServerList(flags.folder, "frameworks.json");
      const scored = await scoreMcpServers(flags.folder, entries, { onServer: progress(entries.length), workedCall: WORKED_CALL });
      process.exitCode = writeTable(flags, scored, mcpFrameworksMarkdown(scored), "npm run mcp-frameworks");
    });
}
