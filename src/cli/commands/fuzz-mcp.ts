import { describeMcp } from "../../fuzz/mcp/outcome-text.js";
import { fuzzMcp, type McpFuzzOutcome } from "../../fuzz/mcp/fuzz-mcp.js";
import type { Rule } from "../../fuzz/findings.js";
import { paintFor } from "../../report/reporters/terminal.js";
import { oneLine, shellQuote } from "../../report/reporters/text.js";
import type { McpEndpoint } from "../../subjects/mcp/client.js";
import type { SandboxMode } from "../../subjects/sandbox/index.js";
import { EXIT, UsageError } from "../errors.js";
import { onInterrupt } from "../interrupt.js";
import { headersOf, mcpUrlOf } from "../mcp-http-flags.js";
import { sandboxLimits, subjectSandbox } from "../sandbox-options.js";

// `fuzz --mcp "COMMAND"` / `--mcp-url URL`: many invalid calls per tool of an MCP server, each
// proven invalid by the reference before it is sent; a tool that runs on one is a finding, shrunk
// (docs/mcp.md, "Fuzzing a server"). Exit 0 no tool ran, 1 a finding, 2 usage, 3 the server did not start.

export interface FuzzMcpFlags {
  mcp?: string;
  mcpUrl?: string;
  mcpHeader: string[];
  sandbox: SandboxMode;
  submission?: string;
  sandboxBind: string[];
  runtime: string[];
  json: boolean;
}

export interface FuzzMcpSettings {
  seed: number;
  runs: number;
  timeMs: number;
  timeoutMs?: number;
  maxFindings: number;
  ignore: Rule[];
  progress: { update(cases: number, shrinks: number, findings: number): void; stop(): void };
}

/** The flags of fuzz that take corpus cases, which a server's own tools replace. */
export function corpusOnlyFlags(flags: { path?: string; known?: string; save?: string; profile: string; tier: string[]; level: string }, positional: string | undefined): string[] {
  return [
    positional !== undefined && "a built-in subject",
    flags.path !== undefined && "--path (give --seed: the run is replayed whole)",
    flags.known !== undefined && "--known",
    flags.save !== undefined && "--save",
    flags.profile !== "ag02" && "--profile",
    flags.tier.length > 0 && "--tier",
    flags.level !== "messages" && "--level",
  ].filter((flag): flag is string => typeof flag === "string");
}

export async function fuzzMcpCommand(flags: FuzzMcpFlags, settings: FuzzMcpSettings): Promise<number> {
  const endpoint = endpointOf(flags);
  const err = paintFor(process.stderr);
  const where = "command" in endpoint ? endpoint.command : endpoint.url;
  if (!flags.json) process.stderr.write(`${err("bold", "fuzz")} mcp:${oneLine(where)} · only invalid arguments · seed ${settings.seed}\n`);
  const interrupt = onInterrupt();
  let outcome: McpFuzzOutcome;
  try {
    outcome = await fuzzMcp(endpoint, {
      seed: settings.seed,
      runs: settings.runs,
      timeMs: settings.timeMs,
      ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
      maxFindings: settings.maxFindings,
      ignore: settings.ignore,
      signal: interrupt.signal,
      onCase: ({ cases, shrinks, findings }) => settings.progress.update(cases, shrinks, findings),
    });
  } finally {
    settings.progress.stop();
    interrupt.done();
  }
  const replay = replayCommand(flags, settings.seed);
  if (flags.json) process.stdout.write(JSON.stringify({ ...outcome, replay }) + "\n");
  else process.stdout.write(describeMcp(outcome, replay));
  if (outcome.stopped === "interrupted") return 130;
  return outcome.findings.length > 0 ? EXIT.failed : EXIT.ok;
}

function endpointOf(flags: FuzzMcpFlags): McpEndpoint {
  if (flags.mcp !== undefined && flags.mcpUrl !== undefined) throw new UsageError("give one server: --mcp or --mcp-url, not both");
  if (flags.mcpHeader.length > 0 && flags.mcpUrl === undefined) throw new UsageError("--mcp-header goes with --mcp-url (a stdio server takes no headers)");
  if (flags.mcp !== undefined) {
    if (flags.mcp.trim() === "") throw new UsageError("--mcp: the command is empty");
    const sandboxFlags = { ...flags, subject: flags.mcp, out: "", writable: false };
    const sandbox = subjectSandbox(sandboxFlags, sandboxLimits(sandboxFlags), [], true);
    return { command: flags.mcp, ...(flags.submission !== undefined ? { cwd: flags.submission } : {}), ...(sandbox ? { sandbox } : {}) };
  }
  if (flags.sandbox !== "none") throw new UsageError("--sandbox runs a command: a server at --mcp-url runs where it is");
  return { url: mcpUrlOf(flags.mcpUrl!), headers: headersOf(flags.mcpHeader) };
}

function replayCommand(flags: FuzzMcpFlags, seed: number): string {
  const words = ["tool-conformance", "fuzz"];
  if (flags.mcp !== undefined) words.push("--mcp", shellQuote(flags.mcp));
  else words.push("--mcp-url", shellQuote(flags.mcpUrl!));
  if (flags.sandbox !== "none") words.push("--sandbox", flags.sandbox);
  words.push("--seed", String(seed));
  return words.join(" ");
}
