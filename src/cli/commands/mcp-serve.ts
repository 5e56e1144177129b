import type { Command } from "commander";
import * as reference from "../../index.js";
import { referenceRegistry } from "../../subjects/mcp/reference-tools.js";
import { serveMcp } from "../../subjects/mcp/serve.js";
import { UsageError } from "../errors.js";
import { mutantApi } from "./adapter.js";

/** `mcp-serve [reference|mutant:sNN]`: the reference registry's fixed tools, served over stdio MCP. */
export function register(program: Command): void {
  program
    .command("mcp-serve")
    .description("serve the reference registry (or a pitfall mutant's) over MCP on stdio: a fixed set of tools that exercise the subset, each echoing its arguments; score it with score --mcp \"tool-conformance mcp-serve\" (docs/mcp.md)")
    .argument("[subject]", 'reference (default) or mutant:sNN', "reference")
    .action(async (subject: string) => {
      const match = /^mutant:(s\d{2,})$/.exec(subject);
      if (subject !== "reference" && !match) throw new UsageError(`mcp-serve: ${JSON.stringify(subject)} is neither reference nor mutant:sNN`);
      const api = match ? await mutantApi(match[1]!) : reference;
      await serveMcp(referenceRegistry(api), { name: `tool-conformance ${subject}`, version: "0.1.0" }, process.stdin, process.stdout);
      await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
      process.exit(0);
    });
}
