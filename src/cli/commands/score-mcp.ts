import { rmSync } from "node:fs";
import { join } from "node:path";
import { SubjectStoppedError } from "../../harness/stopped.js";
import { scoreMcp } from "../../harness/score-mcp.js";
import type { Weighting } from "../../judge/weighting.js";
import type { ReadOptions } from "../../report/read-report.js";
import type { Report } from "../../report/report.js";
import type { SignOptions } from "../../report/format-report.js";
import { noWorkflowCommands, shellQuote } from "../../report/reporters/text.js";
import { INTERRUPTED_REPORT_FILE } from "../../report/write-reports.js";
import type { McpEndpoint } from "../../subjects/mcp/client.js";
import { SubjectError } from "../../subjects/subject.js";
import { parseTiers, readReportOrExplain } from "../arguments.js";
import { UsageError } from "../errors.js";
import { interruptedWhileWriting, onInterrupt } from "../interrupt.js";
import { headersOf, mcpUrlOf } from "../mcp-http-flags.js";
import { sandboxLimits, subjectSandbox } from "../sandbox-options.js";
import { gateOf } from "../../report/gate.js";
import { checkBaseline, checkBaselineSettings, emitReports, markStarted, reportInterrupted, scoreVerdict, type Output } from "../score-output.js";
import type { ScoreFlags } from "./score-options.js";

// `score --mcp "COMMAND"` / `--mcp-url URL`: an MCP server scored with no adapter. The same
// reports, thresholds and baseline as any subject; the rows are the server's own (docs/mcp.md).

export interface McpCommandContext {
  output: Output;
  minScore: number | undefined;
  timeoutMs: number | undefined;
  /** --budget, ms: the whole run's time limit. */
  budgetMs: number | undefined;
  weighting: Weighting;
  sign: SignOptions & ReadOptions;
}

/** Whether the flags name an MCP server. */
export function namesMcp(flags: ScoreFlags): boolean {
  // --mcp-header alone names one too: refused below, never the demo run with it ignored
  return flags.mcp !== undefined || flags.mcpUrl !== undefined || flags.mcpHeader.length > 0;
}

export async function scoreMcpCommand(positional: string | undefined, flags: ScoreFlags, context: McpCommandContext): Promise<number> {
  const endpoint = endpointOf(positional, flags, context.output);
  const tiers = parseTiers(flags.tier, ["core"]);
  const scoring = { level: flags.level, tiers };
  const baseline = flags.baseline === undefined ? undefined : readReportOrExplain(flags.baseline, context.sign);
  if (baseline) checkBaselineSettings(baseline, flags.baseline!, { profile: "ag02", ...scoring });
  const { output } = context;
  if (output.reporters.includes("json") && !output.jsonToStdout) markStarted(output.out);
  const rerun = ["tool-conformance", "score", ...("command" in endpoint ? ["--mcp", shellQuote(endpoint.command)] : ["--mcp-url", shellQuote(endpoint.url)]), ...(flags.mcpRun.length ? ["--mcp-run", shellQuote(flags.mcpRun.join(","))] : []), "--tier", tiers.join(","), ...(flags.level !== "messages" ? ["--level", flags.level] : [])].join(" ");
  const interrupt = onInterrupt();
  let report: Report;
  try {
    report = await scoreMcp(endpoint, {
      ...scoring,
      filters: flags.filter,
      ...(context.timeoutMs !== undefined ? { timeoutMs: context.timeoutMs } : {}),
      ...(context.budgetMs !== undefined ? { budgetMs: context.budgetMs } : {}),
      ...(flags.label !== undefined ? { label: flags.label } : {}),
      diagnosis: flags.diagnosis,
      weighting: context.weighting,
      flags: flags.flag,
      signal: interrupt.signal,
      rerun,
      ...(flags.mcpRun.length ? { run: flags.mcpRun } : {}),
    });
  } catch (error) {
    interrupt.done();
    if (!(error instanceof SubjectStoppedError)) throw error;
    await emitReports(error.report, output);
    throw new SubjectError(noWorkflowCommands(error.message));
  }
  // the handler stays through the writing: a signal then still ends the run with its code, not the default death
  try {
    if (report.summary.stopped?.interrupted !== undefined) return await reportInterrupted(report, report.rows.length, output);
    await emitReports(report, output, false, gateOf(report, { ...(context.minScore !== undefined ? { minScore: context.minScore } : {}), ...(baseline ? { baseline: { report: baseline, path: flags.baseline! } } : {}) }));
    if (output.reporters.includes("json") && !output.jsonToStdout) rmSync(join(output.out, INTERRUPTED_REPORT_FILE), { force: true });
    const code = scoreVerdict(report, context.minScore, output.reporters);
    const verdict = baseline ? Math.max(code, checkBaseline(report, baseline, flags.baseline!)) : code;
    return interruptedWhileWriting(interrupt.signal) ?? verdict;
  } finally {
    interrupt.done();
  }
}

function endpointOf(positional: string | undefined, flags: ScoreFlags, output: Output): McpEndpoint {
  if (flags.mcpHeader.length > 0 && flags.mcpUrl === undefined) throw new UsageError("--mcp-header goes with --mcp-url (a stdio server takes no headers)");
  const others = [positional !== undefined && "a built-in subject", flags.subject !== undefined && "--subject", flags.module !== undefined && "--module", flags.mcp !== undefined && flags.mcpUrl !== undefined && "both --mcp and --mcp-url"].filter(Boolean);
  if (others.length > 0) throw new UsageError(`give one subject: --mcp or --mcp-url, not with ${others.join(", ")}`);
  const corpusFlags = [flags.fresh !== undefined && "--fresh", flags.seed !== undefined && "--seed", flags.corpus !== undefined && "--corpus", flags.jsts !== undefined && "--jsts", flags.jobs !== undefined && "--jobs"].filter(Boolean);
  if (corpusFlags.length > 0) throw new UsageError(`${corpusFlags.join(", ")} ${corpusFlags.length === 1 ? "does" : "do"} not apply to an MCP server: its rows are its own tools', sent one call at a time`);
  if (flags.profile !== "ag02") throw new UsageError("an MCP server is scored under the ag02 profile only: drop --profile");
  if (flags.mcp !== undefined) {
    if (flags.mcp.trim() === "") throw new UsageError("--mcp: the command is empty");
    // the same sandbox as a --subject command's: no network, its --submission folder only
    const sandbox = subjectSandbox({ ...flags, subject: flags.mcp }, sandboxLimits(flags), output.reporters, output.jsonToStdout);
    return { command: flags.mcp, ...(flags.submission !== undefined ? { cwd: flags.submission } : {}), ...(sandbox ? { sandbox } : {}) };
  }
  if (flags.sandbox !== "none") throw new UsageError("--sandbox runs a command: a server at --mcp-url runs where it is");
  return { url: mcpUrlOf(flags.mcpUrl!), headers: headersOf(flags.mcpHeader) };
}
