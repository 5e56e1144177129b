import type { Level, Row, Tier } from "../corpus/rows.js";
import { UsageError } from "../errors.js";
import { diagnose } from "../judge/diagnosis.js";
import { failingIds, score } from "../judge/scoring.js";
import type { Weighting } from "../judge/weighting.js";
import { buildReport, buildStoppedReport } from "../report/build-report.js";
import { type Report } from "../report/report.js";
import { oneLine, shellQuote } from "../report/reporters/text.js";
import { runMcp, type McpRun } from "../run/mcp/run-mcp.js";
import type { RowResult, ScoreOptions } from "../run/outcome.js";
import type { Run } from "../run/runner.js";
import { PROTOCOL_VERSIONS, type McpEndpoint } from "../subjects/mcp/client.js";
import { headerProblem, urlProblem } from "../subjects/mcp/http-endpoint.js";
import { redactorOf, type Redact } from "../subjects/mcp/secrets.js";
import { SubjectError } from "../subjects/subject.js";
import { mcpFingerprints } from "./mcp-symptoms.js";
import { SubjectStoppedError } from "./stopped.js";

// An MCP server scored with no adapter: its own tools are the rows (run/mcp), judged and
// diagnosed like any subject's, into the same report every reporter renders.

/** The scoring API's options that apply to a server (score-subject.ts says what each means). */
export interface McpOptions {
  tiers?: Tier[];
  level?: Level;
  /** Globs over row ids (`mcp/get_weather/*`). */
  filters?: string[];
  /** Each request's timeout, ms (default 5,000): past it, the call is classed hung. */
  timeoutMs?: number;
  /** The first initialize's timeout, ms (default 60,000: npx may install the server first); a restart's initialize is held to timeoutMs. */
  startTimeoutMs?: number;
  /** The whole run's time limit, ms: past it, the rows not answered are errored with that cause. */
  budgetMs?: number;
  label?: string;
  weighting?: Weighting;
  flags?: readonly string[];
  signal?: AbortSignal;
  onResult?: (result: RowResult) => void;
  diagnosis?: boolean;
  /** The command that reruns one row: `--filter ID` completes it. */
  rerun?: string;
  /**
   * Tools that may run: only read-only ones (the user's word; annotations are never trusted). Each
   * also gets valid calls, the acceptance rows `mcp-accept/TOOL/…`; a name the server does not list is a UsageError.
   */
  run?: readonly string[];
}

/** The row of a server that could not be started or listed: errored with the cause. */
const START_ROW: Row = { kind: "compile", id: "mcp-server/start", section: "TestCallNeverPanics", tier: "core", rule: "mcp/start", pitfalls: [], why: "the server starts, initializes and lists its tools", schema: {}, expect: { ok: true } };

export async function scoreMcp(endpoint: McpEndpoint, options: McpOptions = {}): Promise<Report> {
  // checked before the URL becomes the report's label: one with credentials is never written out
  if ("url" in endpoint) {
    const problem = urlProblem(endpoint.url) ?? Object.entries(endpoint.headers ?? {}).map(([name, value]) => headerProblem(name, value)).find((found) => found !== undefined);
    if (problem !== undefined) throw new UsageError(`the MCP server's URL or headers: ${problem}`);
  }
  // the transport already redacts what the server sends; this is the last word on what is written out
  const secrets = "url" in endpoint ? Object.values(endpoint.headers ?? {}) : [];
  if (secrets.length === 0) return scoreUnredacted(endpoint, options);
  const redact = redactorOf(secrets);
  try {
    return redactReport(await scoreUnredacted(endpoint, options), redact);
  } catch (error) {
    if (error instanceof SubjectStoppedError) throw new SubjectStoppedError(redact(error.message), redactReport(error.report, redact));
    throw error;
  }
}

async function scoreUnredacted(endpoint: McpEndpoint, options: McpOptions): Promise<Report> {
  const scoring: ScoreOptions = { level: options.level ?? "messages", tiers: options.tiers ?? ["core"] };
  const label = options.label ?? ("command" in endpoint ? `mcp:${endpoint.command}` : `mcp:${endpoint.url}`);
  const filters = options.filters?.length ? { ids: [...options.filters] } : {};
  const startedAt = new Date();
  let run: McpRun;
  try {
    run = await runMcp(endpoint, { ...scoring, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}), ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}), ...(options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {}), ...(options.filters ? { filters: options.filters } : {}), ...(options.signal ? { signal: options.signal } : {}), ...(options.onResult ? { onResult: options.onResult } : {}), ...(options.run?.length ? { run: options.run } : {}) });
  } catch (error) {
    if (!(error instanceof SubjectError)) throw error;
    if (options.signal?.aborted) {
      // the signal stopped the server while it started: nothing was answered
      const signal = String(options.signal.reason);
      const report = buildStoppedReport({ ...scoring, profile: "ag02", filters, corpusRows: 1, label, rows: [START_ROW], startedAt: startedAt.toISOString(), ms: Date.now() - startedAt.getTime(), stopped: { cause: `interrupted (${signal})`, interrupted: signal, answered: 0 }, ...(options.flags ? { flags: options.flags } : {}) });
      for (const row of report.rows) row.repro = { why: START_ROW.why };
      return report;
    }
    const cause = oneLine(error.message);
    const stopped = { cause, ...(error.stderr ? { stderr: error.stderr.slice(-4_000) } : {}) };
    // one row stands for the server's: a server that never answered scores 0, not 100% of nothing
    const report = buildStoppedReport({ ...scoring, profile: "ag02", filters, corpusRows: 1, label, rows: [START_ROW], startedAt: startedAt.toISOString(), ms: Date.now() - startedAt.getTime(), stopped, ...(options.flags ? { flags: options.flags } : {}) });
    for (const row of report.rows) row.repro = { why: START_ROW.why };
    throw new SubjectStoppedError(cause, report);
  }
  if (options.filters?.length && run.results.length === 0 && run.stopped === undefined) throw new UsageError(`--filter ${options.filters.map((f) => JSON.stringify(f)).join(", ")} matches no row of this server (ids look like mcp/TOOL/missing-required/NAME, mcp-accept/TOOL/integer-3.0/NAME, mcp-list/stable; * matches any text)`);
  let report: Report;
  let signal: string | undefined;
  try {
    const { hello } = run;
    const version = `MCP ${hello.protocolVersion}${hello.offered ? "" : ` (the server's own choice; offered ${PROTOCOL_VERSIONS.join(", ")})`}`;
    const asRun: Run = {
      label,
      hello: { ready: true, version: 0, implementation: { name: hello.serverInfo.name, language: version, ...(hello.serverInfo.version ? { version: hello.serverInfo.version } : {}) }, profiles: ["ag02"], capabilities: ["mcp"] },
      results: run.results,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      ms: run.ms,
      ...(run.stderr ? { stderr: run.stderr } : {}),
    };
    const scores = score(run.results, scoring);
    let diagnosis = diagnose(run.results, scoring, options.diagnosis === false ? [] : mcpFingerprints(run.results));
    if (options.diagnosis === false && diagnosis.failing > 0) diagnosis = { ...diagnosis, matches: [], unexplained: failingIds(run.results, scoring), lines: ["no diagnosis (--no-diagnosis)"] };
    const flags = [...(options.flags ?? []), `mcp: protocol version ${hello.protocolVersion} (offered ${PROTOCOL_VERSIONS.join(", ")})`, ...run.notes.map((note) => `mcp: ${note}`)];
    // a signal stopped the run: the rows answered, marked interrupted (never a baseline)
    signal = run.stopped?.interrupted ?? (options.signal?.aborted ? String(options.signal.reason) : undefined);
    // the budget or an internal failure ended the run: every report says why (rows errored with it)
    const cause = run.failure ?? run.stopped?.cause;
    const stopped = signal !== undefined ? { stopped: { cause: `interrupted (${signal})`, interrupted: signal, answered: run.results.length } } : cause !== undefined ? { stopped: { cause } } : {};
    if (signal !== undefined) diagnosis = { ...diagnosis, matches: [], unexplained: failingIds(run.results, scoring), lines: ["no diagnosis: the run was interrupted"] };
    report = buildReport(asRun, { ...scoring, keepAnswers: true, profile: "ag02", filters, corpusRows: run.results.length, scores, diagnosis, diagnosed: options.diagnosis !== false && signal === undefined, flags, ...(run.lint ? { lint: run.lint } : {}), ...stopped, ...(options.weighting ? { weighting: options.weighting } : {}) });
    // every row shows what was sent and why it should have been refused (a pass is audited so), and how to rerun it alone
    const byId = new Map(run.rows.map((row) => [row.id, row]));
    for (const row of report.rows) {
      const source = byId.get(row.id);
      const sent = run.sent.get(row.id);
      row.repro = { why: source?.why ?? "", ...(sent ? { steps: [sent] } : {}), ...(options.rerun ? { rerun: `${options.rerun} --filter ${shellQuote(row.id)}` } : {}) };
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // judging or building the report failed on what the server gave: still a whole report, saying why
    const cause = `internal error: ${oneLine(error instanceof Error ? error.message : String(error))}`;
    throw new SubjectStoppedError(cause, stoppedReport(run, cause, { ...scoring, filters, label, startedAt, ...(options.flags ? { flags: options.flags } : {}) }));
  }
  // a failure of ours ended the run: its whole report, handed over as a server that could not be scored to the end is (exit 3)
  if (run.failure !== undefined && signal === undefined) throw new SubjectStoppedError(run.failure, report);
  return report;
}

/** The report of a run whose judging failed: its rows as answered, errored with the cause where none came back. */
function stoppedReport(run: McpRun, cause: string, context: ScoreOptions & { filters: { ids?: string[] }; label: string; startedAt: Date; flags?: readonly string[] }): Report {
  const { filters, label, startedAt, flags, ...scoring } = context;
  const common = { ...scoring, profile: "ag02" as const, filters, label, startedAt: startedAt.toISOString(), ms: Date.now() - startedAt.getTime(), stopped: { cause }, ...(flags ? { flags } : {}) };
  try {
    const rows = run.rows.map((row): Row => ({ kind: "compile", id: row.id, section: row.section, tier: row.tier, rule: row.rule, pitfalls: row.pitfalls, why: row.why, schema: {}, expect: { ok: true } }));
    return buildStoppedReport({ ...common, corpusRows: rows.length + 1, rows: [...rows, START_ROW], answered: new Map(run.results.map((result) => [result.id, result])) });
  } catch {
    return buildStoppedReport({ ...common, corpusRows: 1, rows: [START_ROW] });
  }
}

/** The report with every header value given replaced in each of its texts. */
function redactReport(report: Report, redact: Redact): Report {
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") return redact(value);
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item)]));
    return value;
  };
  return walk(report) as Report;
}
