import { timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { diagnose } from "../judge/diagnosis.js";
import { STATUSES, statusOf, type ScoreOptions } from "../run/outcome.js";
import { LEVELS, PARTS, PROFILES, profileNamed, SECTIONS, TIERS } from "../corpus/rows.js";
import { score, statusAt, type Scores } from "../judge/scoring.js";
import { checkWeighting, weightedScore } from "../judge/weighting.js";
import { macOf } from "./format-report.js";
import { REPORT_FORMAT, ReportError, SIGNATURE_ALGORITHM, SIGNED_REPORT_VERSION, type Report, type ReportDiagnosis, type ReportFooter, type ReportHeader, type ReportRow, type ReportSignature, type ReportSummary, type Stopped } from "./report.js";

/** Larger than any real report (rows × the 64 KiB a reproduction keeps): refused unread. */
const MAX_REPORT_BYTES = 512 * 1024 * 1024;

export interface ReadOptions {
  /** The grader's key: the report must carry a signature made with it. Without one, a signature is not checked. */
  key?: Uint8Array;
}

/**
 * Reads a report written by writeReport and checks it: a ReportError (one line, naming the file)
 * when it is cut off, incomplete, edited (its summary or a row's status does not follow from its
 * rows) or, with a key, unsigned or badly signed.
 */
export function readReport(path: string, options: ReadOptions = {}): Report {
  return parseReport(readFileSync(path), path, options);
}

/** A report that passed every check, or why it did not: what merge (and grade) take, one file at a time. */
export type VerifiedReport = { ok: true; path: string; report: Report } | { ok: false; path: string; reason: string };

/**
 * Reads and checks one report file without throwing: missing, unreadable, cut off, incomplete,
 * edited, unsigned or badly signed (with a key) come back as a reason, so one bad file costs
 * its own line of a class table and no one else's.
 */
export function verifyReportFile(path: string, options: ReadOptions = {}): VerifiedReport {
  let bytes: Buffer;
  try {
    const size = statSync(path).size;
    if (size > MAX_REPORT_BYTES) return { ok: false, path, reason: `unreadable: ${size} bytes, larger than any report` };
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT") return { ok: false, path, reason: "missing: no such file" };
    const why = code === "EACCES" || code === "EPERM" ? "permission denied" : code === "EISDIR" ? "a folder, not a report" : error instanceof Error ? error.message : String(error);
    return { ok: false, path, reason: `unreadable: ${why}` };
  }
  try {
    return { ok: true, path, report: parseReport(bytes, path, options) };
  } catch (error) {
    if (error instanceof ReportError) return { ok: false, path, reason: error.reason };
    // the file is untrusted: whatever else breaks while reading it is its fault, not the grader's
    return { ok: false, path, reason: `damaged: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export function parseReport(input: string | Uint8Array, name = "report", options: ReadOptions = {}): Report {
  const fail = (why: string): never => {
    throw new ReportError(`${name}: ${why}`, why);
  };
  const text = typeof input === "string" ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString("utf8");
  if (text.trim() === "") fail("empty file, not a tool-conformance report");
  const lines = text.split("\n");
  // a complete report ends with a newline after its footer
  const cutMidLine = lines[lines.length - 1] !== "";
  if (!cutMidLine) lines.pop();
  const items: Record<string, unknown>[] = [];
  for (const [i, line] of lines.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (i === 0 && !line.startsWith('{"kind":"header"')) fail("not a tool-conformance report (the first line is not JSON)");
      fail(i === lines.length - 1 ? `cut off: the last line (${i + 1}) is incomplete; the run or the copy did not finish` : `line ${i + 1} is not JSON; the report is damaged`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value) || typeof (value as { kind?: unknown }).kind !== "string") {
      fail(`line ${i + 1} is not a report line (no "kind")`);
    }
    items.push(value as Record<string, unknown>);
  }
  const header = items[0]!;
  if (header.kind === "started" && header.format === REPORT_FORMAT) {
    fail(`incomplete: the run did not finish (it started at ${String(header.startedAt)} and was interrupted, or is still running)`);
  }
  if (header.kind !== "header" || header.format !== REPORT_FORMAT) fail("not a tool-conformance report (no header line)");
  if (typeof header.formatVersion !== "number" || header.formatVersion > SIGNED_REPORT_VERSION) {
    fail(`report format version ${String(header.formatVersion)} is newer than this tool reads (${SIGNED_REPORT_VERSION}); upgrade tool-conformance`);
  }
  const signed = (header.formatVersion as number) >= SIGNED_REPORT_VERSION;
  let last = items[items.length - 1]!;
  let signature: ReportSignature | undefined;
  if (last.kind === "signature") {
    if (!signed) fail("edited: a signature line in a report that says it is unsigned (format version 1)");
    if (cutMidLine) fail("cut off: no newline after the signature");
    if (last.algorithm !== SIGNATURE_ALGORITHM || typeof last.mac !== "string" || !/^[0-9a-f]{64}$/.test(last.mac)) fail(`damaged: the signature line is not ${SIGNATURE_ALGORITHM} in 64 hex digits`);
    signature = last as unknown as ReportSignature;
    items.pop();
    last = items[items.length - 1]!;
  }
  if (last.kind !== "footer") fail(`cut off: no footer line after ${items.length} line${items.length === 1 ? "" : "s"}; the run or the copy did not finish`);
  if (cutMidLine) fail("cut off: no newline after the footer");
  if (signed && !signature) fail("cut off or edited: the report says it is signed (format version 2), and its signature line is missing");
  const rows = items.filter((item) => item.kind === "row") as unknown as ReportRow[];
  const footer = last as unknown as ReportFooter;
  if (footer.rows !== rows.length) fail(`cut off or edited: the footer counts ${String(footer.rows)} rows, the file holds ${rows.length}`);
  const selected = (header as unknown as ReportHeader).corpus?.selected;
  if (typeof selected === "number" && selected !== rows.length) fail(`cut off or edited: the header selected ${selected} rows, the file holds ${rows.length}`);
  const diagnosis = items.find((item) => item.kind === "diagnosis") as ReportDiagnosis | undefined;
  const summary = items.find((item) => item.kind === "summary") as ReportSummary | undefined;
  if (!diagnosis) fail("damaged: no diagnosis line");
  if (!summary) fail("damaged: no summary line");
  const halted = (summary as { stopped?: Partial<Stopped> }).stopped;
  if (halted && halted.interrupted !== undefined) {
    fail(`incomplete: the run was interrupted (${String(halted.interrupted)}) with ${typeof halted.answered === "number" ? halted.answered : "some"} of ${rows.length} rows answered`);
  }
  // header, rows, diagnosis, summary, footer: each once, in that order
  const order = ["header", ...rows.map(() => "row"), "diagnosis", "summary", "footer"];
  const misplaced = items.findIndex((item, i) => item.kind !== order[i]);
  if (misplaced !== -1) fail(`damaged: line ${misplaced + 1} is a ${JSON.stringify(items[misplaced]!.kind)} line where a ${order[misplaced] ?? "footer"} line belongs`);
  const ids = new Set<string>();
  for (const row of rows) {
    if (typeof row.id !== "string" || typeof row.status !== "string" || !Array.isArray(row.checks)) fail(`damaged: a row line without id, status or checks`);
    if (ids.has(row.id)) fail(`damaged: row ${row.id} appears twice`);
    ids.add(row.id);
  }
  // the signature first: with a key, a report changed in any way is "badly signed", whatever else it says
  if (options.key) {
    if (!signature) fail("unsigned: the report carries no signature, and a key was given (sign reports with score --key)");
    const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    // the signature line is the last; the MAC covers every byte before it
    const start = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
    const expected = Buffer.from(macOf(bytes.subarray(0, start), options.key), "hex");
    if (!timingSafeEqual(expected, Buffer.from(signature!.mac, "hex"))) fail("bad signature: the report was changed after it was signed, or signed with another key");
  }
  const report = { header: header as unknown as ReportHeader, rows, diagnosis: diagnosis!, summary: summary!, footer, ...(signature ? { signature } : {}) };
  checkConsistency(report, fail);
  return report;
}

/**
 * Recomputes what a report derives from its row lines, with the header's level and tiers and the
 * same scoring functions the run used, and refuses the report when its summary, a row's status or
 * levels, or the diagnosis's counts say otherwise. The row lines' checks are the evidence; a
 * summary is never taken on trust (a subject's helper could have rewritten it).
 */
function checkConsistency(report: Report, fail: (why: string) => never): void {
  const { header, rows, diagnosis, summary } = report;
  const one = <T extends string>(values: readonly T[], value: unknown): value is T => typeof value === "string" && (values as readonly string[]).includes(value);
  // reports of the lesson profile under its older name (pointer) are read as the lesson's
  if (typeof header.profile !== "string" || profileNamed(header.profile) === undefined) fail(`damaged: the header's profile ${JSON.stringify(header.profile)} is not one of ${PROFILES.join(", ")}`);
  else header.profile = profileNamed(header.profile)!;
  if (!one(LEVELS, header.level)) fail(`damaged: the header's level ${JSON.stringify(header.level)} is not one of ${LEVELS.join(", ")}`);
  if (!Array.isArray(header.tiers) || header.tiers.length === 0 || !header.tiers.every((tier) => one(TIERS, tier)) || new Set(header.tiers).size !== header.tiers.length) {
    fail(`damaged: the header's tiers ${JSON.stringify(header.tiers)} are not a set of ${TIERS.join(", ")}`);
  }
  if (typeof header.subject?.label !== "string") fail("damaged: the header has no subject label");
  const options: ScoreOptions = { level: header.level, tiers: header.tiers };
  for (const row of rows) {
    const where = `row ${JSON.stringify(row.id)}`;
    if (!one(SECTIONS, row.section) || !one(TIERS, row.tier) || (row.messageTier !== undefined && !one(TIERS, row.messageTier))) fail(`damaged: ${where} has an unknown section or tier`);
    if (row.part !== undefined && !one(PARTS, row.part)) fail(`damaged: ${where} has an unknown part ${JSON.stringify(row.part)} (${PARTS.join(", ")})`);
    if (!one(STATUSES, row.status)) fail(`damaged: ${where} has an unknown status ${JSON.stringify(row.status)}`);
    if (typeof row.rule !== "string" || !Array.isArray(row.pitfalls) || !row.pitfalls.every((p) => typeof p === "string")) fail(`damaged: ${where} has no rule or pitfalls`);
    for (const check of row.checks as unknown[]) {
      const c = check as Record<string, unknown> | null;
      if (typeof c !== "object" || c === null || !one(LEVELS, c.level) || !one(TIERS, c.tier) || typeof c.pass !== "boolean" || typeof c.what !== "string") fail(`damaged: ${where} has a check without level, tier, what or pass`);
    }
    if (row.status === "passed" || row.status === "failed") {
      const own = statusOf(row.checks, options);
      if (own !== row.status) fail(`edited: ${where} says ${row.status}, its checks say ${own}`);
    }
    if (typeof row.levels !== "object" || row.levels === null) fail(`damaged: ${where} has no status per level`);
    for (const level of LEVELS) {
      const at = statusAt(row, { ...options, level });
      if (row.levels[level] !== at) fail(`edited: ${where} says ${String(row.levels[level])} at level ${level}, its checks say ${at}`);
    }
  }
  const scores = summary.scores as Partial<Scores> | undefined;
  if (typeof scores !== "object" || scores === null) fail("damaged: the summary has no scores");
  const computed = score(rows, options);
  // reports written before parts existed have no byPart: the rest must still match
  const { byPart, ...rest } = computed;
  const difference = firstDifference(scores, scores!.byPart === undefined ? rest : computed, "");
  if (difference) fail(`forged or edited: the summary does not match its rows: ${difference.path} is ${difference.stored} in the summary, ${difference.computed} from the rows`);
  if (scores!.byPart === undefined) scores!.byPart = byPart;
  // the headline under the header's scoring, recomputed like every score
  if (header.scoring !== undefined) {
    const bad = checkWeighting(header.scoring);
    if (bad) fail(`damaged: the header's scoring is not a scoring scheme (${bad})`);
    const weighted = weightedScore(rows, options, header.scoring);
    const d = firstDifference(summary.weighted, weighted, "weighted");
    if (d) fail(`forged or edited: the summary does not match its rows: ${d.path} is ${d.stored} in the summary, ${d.computed} from the rows`);
  } else if (summary.weighted !== undefined) fail("edited: the summary has a weighted score and the header no scoring");
  if (summary.stopped !== undefined && (typeof summary.stopped !== "object" || summary.stopped === null || typeof summary.stopped.cause !== "string")) fail("damaged: the summary's stopped block has no cause");
  // information only, recomputed from nothing: its shape is all a reader can check, and every reporter relies on it
  if (summary.lint !== undefined && !isLint(summary.lint)) fail("damaged: the summary's lint is not a list of tools, each with its findings");
  if (typeof diagnosis.available !== "boolean" || !Array.isArray(diagnosis.matches) || !Array.isArray(diagnosis.lines)) fail("damaged: the diagnosis line has no matches or lines");
  const base = diagnose(rows, options, []);
  if (diagnosis.failing !== base.failing || diagnosis.errored !== base.errored) {
    fail(`forged or edited: the diagnosis counts ${String(diagnosis.failing)} failing and ${String(diagnosis.errored)} errored rows, the rows give ${base.failing} and ${base.errored}`);
  }
}

/** Whether a value has the shape of summary.lint: tools with a name and findings, each with a rule and texts. */
function isLint(value: unknown): boolean {
  const text = (v: unknown) => v === undefined || typeof v === "string";
  return Array.isArray(value) && value.every((tool: unknown) => {
    const t = tool as { tool?: unknown; findings?: unknown; more?: unknown } | null;
    return typeof t === "object" && t !== null && typeof t.tool === "string" && (t.more === undefined || typeof t.more === "number") && Array.isArray(t.findings) && t.findings.every((f: unknown) => {
      const finding = f as { rule?: unknown; at?: unknown; detail?: unknown } | null;
      return typeof finding === "object" && finding !== null && typeof finding.rule === "string" && text(finding.at) && text(finding.detail);
    });
  });
}

/** The first place a stored value differs from the recomputed one: a path and both, a tally as "passed/rows (percent)". */
function firstDifference(stored: unknown, computed: unknown, path: string): { path: string; stored: string; computed: string } | undefined {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
  const isTally = (v: unknown) => isObject(v) && "passed" in v && "rows" in v && "percent" in v;
  const text = (v: unknown) => (isTally(v) ? `${String((v as Record<string, unknown>).passed)}/${String((v as Record<string, unknown>).rows)} passed (${String((v as Record<string, unknown>).percent)}%)` : v === undefined ? "absent" : JSON.stringify(v));
  if (isObject(stored) && isObject(computed) && Array.isArray(stored) === Array.isArray(computed)) {
    if ((isTally(stored) || isTally(computed)) && JSON.stringify(stored) !== JSON.stringify(computed)) {
      // a tally with extra or missing fields reads the same as text: name the field instead
      if (text(stored) !== text(computed)) return { path, stored: text(stored), computed: text(computed) };
    }
    for (const key of new Set([...Object.keys(stored), ...Object.keys(computed)])) {
      const d = firstDifference(stored[key], computed[key], path ? `${path}.${key}` : key);
      if (d) return d;
    }
    return undefined;
  }
  return Object.is(stored, computed) ? undefined : { path, stored: text(stored), computed: text(computed) };
}
