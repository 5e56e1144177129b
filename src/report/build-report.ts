import { diagnose, type Diagnosis } from "../judge/diagnosis.js";
import { partOf, resultOf, type RowResult, type ScoreOptions, type Status } from "../run/outcome.js";
import type { Implementation } from "../subjects/protocol.js";
import type { ToolLint } from "../subjects/mcp/lint.js";
import { LEVELS, type Level, type Part, type ProfileName, type Row } from "../corpus/rows.js";
import type { Run } from "../run/runner.js";
import { clipText } from "./reporters/text.js";
import { failingIds, score, statusAt, type Scores } from "../judge/scoring.js";
import { isPlainRows, weightedScore, type Weighting } from "../judge/weighting.js";
import { reproductionOf, type Rerun } from "./reproduction.js";
import { REPORT_FORMAT, REPORT_VERSION, toolVersion, type Report, type ReportHeader, type ReportRow, type Stopped } from "./report.js";

// Building a report from a run: the header, every row (capped, secret rows kept secret, each row
// that did not pass with its reproduction), the diagnosis, the summary and the footer.

export interface BuildOptions extends ScoreOptions {
  profile: ProfileName;
  filters: ReportHeader["filters"];
  corpusRows: number;
  scores: Scores;
  diagnosis: Diagnosis;
  /** Whether fingerprints were available (false: the diagnosis could not be made). */
  diagnosed?: boolean;
  /** The rows that ran (any order): rows that do not pass get their reproduction from them. */
  rows?: readonly Row[];
  /**
   * The command that scores this subject with these settings, without `--filter`: each failing row's
   * rerun command adds its own. Or a function giving a row's whole rerun command, undefined for a
   * row no student can rerun (a grader's private row, a generated one).
   */
  rerun?: Rerun;
  /** Set when the run stopped early. */
  stopped?: Stopped;
  /** How the headline is scored (default: rows passed over rows). */
  weighting?: Weighting;
  /** Notes for the grader (summary.flags). */
  flags?: readonly string[];
  /** Parts whose rows a student must not see (keyed --fresh cases): each kept as secretRow says. */
  secretParts?: readonly Part[];
  /** An MCP server's advertised contract, linted (summary.lint). */
  lint?: readonly ToolLint[];
  /** A passing check keeps the answer it judged (an MCP server's verdict, its text and rule): a "refused" can be audited from the file. */
  keepAnswers?: boolean;
}

/**
 * A row of a secret part as every output shows it: its id, status, checks' verdicts (so every
 * reader recomputes the same scores), rule and why; never what it sent, what the subject answered,
 * its error's words or its stderr, which would let a student rebuild the case (a leak served to
 * the whole class if the cases were the same for all).
 */
export function secretRow(row: ReportRow): ReportRow {
  const { error, stderr: _stderr, repro, ...kept } = row;
  const timeout = error === undefined ? undefined : /^no reply to .* within (\d+) ms/.exec(error);
  return {
    ...kept,
    secret: true,
    checks: row.checks.map((check) => ({ level: check.level, tier: check.tier, what: "a check of a generated case", pass: check.pass, expected: undefined, actual: undefined })),
    ...(error !== undefined ? { error: timeout ? `no reply within ${timeout[1]} ms` : "the subject's answer broke the protocol or the process ended" } : {}),
    ...(repro ? { repro: { why: repro.why } } : {}),
  };
}

/**
 * Caps on the subject's own text a report keeps (its handshake, its errors and stderr, what it
 * answered): a bloated or hostile subject cannot make a report of hundreds of megabytes, and no
 * line of it reads as a CI workflow command (`::error`) in any file written from the report (score
 * neutralises each as it writes it).
 */
export const SUBJECT_TEXT_CAPS = {
  /** Each string of the handshake (implementation name, language, version). */
  handshake: 200,
  /** A row's error or stderr; a check's actual, as JSON. */
  check: 4 * 1024,
  /** Every actual of one row together. */
  row: 16 * 1024,
  /** Every actual, error and stderr of the whole report together. */
  report: 4 * 1024 * 1024,
  /** Each text of an MCP server's lint (a tool's name, a path in its schema, what was not judged). */
  lintText: 500,
  /** Findings of the lint kept over all tools (each tool keeps at most 25 of its own); the rest are counted. */
  lintFindings: 2_000,
} as const;

/** Subject text as a report keeps it: clipped (each output neutralises workflow commands as it writes). */
export function subjectText(text: string, max: number): string {
  return clipText(text, max);
}

/** Every string inside an answer neutralised; the whole clipped to a string when its JSON is longer than `max`. */
function subjectValue(value: unknown, max: number): { value: unknown; size: number } {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined) return { value, size: 0 };
  if (json.length <= max) return { value, size: json.length };
  // a record keeps its shape ({"ran": true, "text": …}) with its long strings clipped, when that is enough: what it says stays readable
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const members = Object.entries(value as Record<string, unknown>);
    const share = Math.floor(max / (2 * Math.max(1, members.length)));
    const clipped = Object.fromEntries(members.map(([key, member]) => [key, typeof member === "string" && member.length > share ? subjectText(member, share) : member]));
    const again = JSON.stringify(clipped);
    if (again.length <= max) return { value: clipped, size: again.length };
  }
  return { value: subjectText(json, max), size: max };
}

/** An MCP server's lint as a report keeps it: each text clipped, and past lintFindings in all, each tool's findings counted in `more`. */
function capLint(lint: readonly ToolLint[]): ToolLint[] {
  let left: number = SUBJECT_TEXT_CAPS.lintFindings;
  const text = (value: string) => subjectText(value, SUBJECT_TEXT_CAPS.lintText);
  return lint.map((tool) => {
    const kept = tool.findings.slice(0, Math.max(0, left));
    left -= kept.length;
    const more = (tool.more ?? 0) + tool.findings.length - kept.length;
    const findings = kept.map((finding) => ({ rule: finding.rule, ...(finding.at !== undefined ? { at: text(finding.at) } : {}), ...(finding.detail !== undefined ? { detail: text(finding.detail) } : {}) }));
    return { tool: text(tool.tool), findings, ...(more > 0 ? { more } : {}) };
  });
}

/** Whether a check's actual holds an answer judged (a verdict and the text it was judged on). */
function judgedAnswer(actual: unknown): boolean {
  return typeof actual === "object" && actual !== null && typeof (actual as { answer?: unknown }).answer === "string" && typeof (actual as { text?: unknown }).text === "string";
}

/** Applies SUBJECT_TEXT_CAPS to the rows, in order; `budget.left` is the report's budget. */
function capRow(row: ReportRow, budget: { left: number }): ReportRow {
  const spend = (size: number) => (budget.left -= size);
  const text = (value: string | undefined) => {
    if (value === undefined) return undefined;
    if (budget.left <= 0) return "(not kept: the report's room for the subject's text is spent)";
    const kept = subjectText(value, Math.min(SUBJECT_TEXT_CAPS.check, budget.left));
    spend(kept.length);
    return kept;
  };
  let rowLeft: number = SUBJECT_TEXT_CAPS.row;
  const checks = row.checks.map((check) => {
    if (check.actual === undefined) return check;
    if (rowLeft <= 0 || budget.left <= 0) return { ...check, actual: `(not kept: the ${rowLeft <= 0 ? "row's" : "report's"} room for the subject's answers is spent)` };
    const kept = subjectValue(check.actual, Math.min(SUBJECT_TEXT_CAPS.check, rowLeft, budget.left));
    rowLeft -= kept.size;
    spend(kept.size);
    return { ...check, actual: kept.value, ...(check.note !== undefined ? { note: subjectText(check.note, SUBJECT_TEXT_CAPS.check) } : {}) };
  });
  const error = text(row.error);
  const stderr = text(row.stderr);
  return { ...row, checks, ...(error !== undefined ? { error } : {}), ...(stderr !== undefined ? { stderr } : {}) };
}

export function buildReport(run: Run, options: BuildOptions): Report {
  const hello = run.hello;
  const said = hello.implementation as Partial<Implementation> | undefined;
  const handshake = (value: unknown) => subjectText(typeof value === "string" ? value : String(value ?? ""), SUBJECT_TEXT_CAPS.handshake);
  const implementation: Implementation = { name: handshake(said?.name), language: handshake(said?.language), ...(said?.version !== undefined ? { version: handshake(said.version) } : {}) };
  const header: ReportHeader = {
    kind: "header",
    format: REPORT_FORMAT,
    formatVersion: REPORT_VERSION,
    tool: { name: "tool-conformance", version: toolVersion() },
    subject: {
      label: run.label,
      implementation,
      ...(typeof hello.version === "number" ? { protocolVersion: hello.version } : {}),
      ...(Array.isArray(hello.capabilities) ? { capabilities: hello.capabilities } : {}),
    },
    profile: options.profile,
    level: options.level,
    tiers: [...options.tiers],
    filters: options.filters,
    startedAt: run.startedAt,
    corpus: { rows: options.corpusRows, selected: run.results.length },
  };
  const byId = new Map((options.rows ?? []).map((row) => [row.id, row]));
  const budget = { left: SUBJECT_TEXT_CAPS.report as number };
  const rows = run.results.map((result): ReportRow => {
    const levels = Object.fromEntries(LEVELS.map((level) => [level, statusAt(result, { level, tiers: options.tiers })])) as Record<Level, Status>;
    // a passing check's actual is its expected: keep only what a reader needs (and the answer judged, when asked)
    const checks = result.checks.map((check) => (check.pass ? { level: check.level, tier: check.tier, what: check.what, pass: true, expected: undefined, actual: options.keepAnswers && judgedAnswer(check.actual) ? check.actual : undefined } : check));
    const source = result.status === "passed" ? undefined : byId.get(result.id);
    const row = capRow({ kind: "row", ...result, checks, levels, ...(source ? { repro: reproductionOf(source, options.rerun) } : {}) }, budget);
    return options.secretParts?.includes(partOf(result)) ? secretRow(row) : row;
  });
  // once a secret case was sent, the subject's stderr may carry it: the run's stderr is not kept then
  // (a row of the corpus keeps its own: the corpus runs first, before any generated case)
  const secretSent = run.results.some((result) => options.secretParts?.includes(partOf(result)) && result.error !== options.stopped?.cause);
  const stderr = secretSent ? undefined : run.stderr;
  const stopped: Stopped | undefined = options.stopped && secretSent ? (({ stderr: _, ...rest }) => rest)(options.stopped) : options.stopped;
  const report: Report = {
    header,
    rows,
    diagnosis: { kind: "diagnosis", available: options.diagnosed ?? true, ...options.diagnosis },
    summary: { kind: "summary", scores: options.scores, ms: run.ms, ...(stderr !== undefined && !stopped ? { output: subjectText(stderr, SUBJECT_TEXT_CAPS.check) } : {}), ...(options.flags?.length ? { flags: [...options.flags] } : {}), ...(options.lint ? { lint: capLint(options.lint) } : {}), ...(stopped ? { stopped: { ...stopped, cause: subjectText(stopped.cause, SUBJECT_TEXT_CAPS.check), ...(stopped.stderr !== undefined ? { stderr: subjectText(stopped.stderr, SUBJECT_TEXT_CAPS.check) } : {}) } } : {}) },
    footer: { kind: "footer", rows: rows.length, finishedAt: run.finishedAt },
  };
  return options.weighting ? withWeighting(report, options.weighting) : report;
}

/**
 * The report scored under `weighting`: its header records the scheme and its summary the headline
 * (a plain rows score of a run without generated rows records nothing: the report reads as before).
 * A signed report so changed is no longer the signed one: for rendering, not for writing back.
 */
export function withWeighting(report: Report, weighting: Weighting): Report {
  const header = { ...report.header };
  const summary = { ...report.summary };
  delete header.scoring;
  delete summary.weighted;
  const plain = isPlainRows(weighting) && !report.rows.some((row) => row.part === "fresh");
  if (!plain) {
    header.scoring = weighting;
    // the summary's keys in their usual order: scores, weighted, ms, output, flags, lint, stopped
    const { kind, scores, ms, output, flags, lint, stopped } = summary;
    const weighted = weightedScore(report.rows, { level: header.level, tiers: header.tiers }, weighting);
    return { ...report, header, summary: { kind, scores, weighted, ms, ...(output !== undefined ? { output } : {}), ...(flags ? { flags } : {}), ...(lint ? { lint } : {}), ...(stopped ? { stopped } : {}) } };
  }
  return { ...report, header, summary };
}

export interface StoppedRunOptions extends ScoreOptions {
  profile: ProfileName;
  filters: ReportHeader["filters"];
  corpusRows: number;
  label: string;
  /** The rows chosen for the run, in order. */
  rows: readonly Row[];
  /** Rows answered before the run stopped, by id; every other row is errored with the cause. */
  answered?: ReadonlyMap<string, RowResult>;
  startedAt: string;
  ms: number;
  stopped: Stopped;
  rerun?: Rerun;
  weighting?: Weighting;
  flags?: readonly string[];
  secretParts?: readonly Part[];
}

/**
 * The report of a run that stopped early (the subject could not start, or kept failing): every
 * row not answered is errored with the cause, the scores follow (0 when nothing was answered),
 * the summary carries the cause and the end of the subject's stderr. Graders and CI get a whole
 * report, and the student the reason, instead of nothing.
 */
export function buildStoppedReport(options: StoppedRunOptions): Report {
  const results = options.rows.map((row): RowResult => options.answered?.get(row.id) ?? resultOf(row, "errored", [], 0, options.stopped.cause));
  const scoring = { level: options.level, tiers: options.tiers };
  const base = diagnose(results, scoring, []);
  const run: Run = {
    label: options.label,
    hello: { ready: true, version: 0, implementation: { name: options.label, language: "unknown" }, profiles: [], capabilities: [] },
    results,
    startedAt: options.startedAt,
    finishedAt: new Date().toISOString(),
    ms: options.ms,
  };
  const report = buildReport(run, {
    ...scoring,
    profile: options.profile,
    filters: options.filters,
    corpusRows: options.corpusRows,
    scores: score(results, scoring),
    diagnosis: { ...base, matches: [], unexplained: failingIds(results, scoring), lines: ["no diagnosis: the run stopped before every row was answered"] },
    diagnosed: false,
    rows: options.rows,
    ...(options.rerun !== undefined ? { rerun: options.rerun } : {}),
    stopped: options.stopped,
    ...(options.weighting ? { weighting: options.weighting } : {}),
    ...(options.flags ? { flags: options.flags } : {}),
    ...(options.secretParts ? { secretParts: options.secretParts } : {}),
  });
  // the handshake never completed: say so rather than invent one
  delete report.header.subject.protocolVersion;
  delete report.header.subject.capabilities;
  return report;
}
