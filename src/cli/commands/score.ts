import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { loadCorpus, loadPrivateCorpus } from "../../corpus/load.js";
import { describeJsts, importJsts } from "../../corpus/jsts.js";
import { TIERS, type Row } from "../../corpus/rows.js";
import { seedFromKey } from "../../fuzz/fresh.js";
import { rowsTheReferenceFails } from "../../harness/private-rows.js";
import { checkMutant, rowsFor, scoreSubject, SubjectStoppedError, type ScoreSubjectOptions } from "../../harness/score-subject.js";
import type { ScoreOptions } from "../../run/outcome.js";
import { readKeyFile, type SignOptions } from "../../report/format-report.js";
import { type ReadOptions } from "../../report/read-report.js";
import { type Report } from "../../report/report.js";
import { noWorkflowCommands, shellQuote } from "../../report/reporters/text.js";
import { INTERRUPTED_REPORT_FILE } from "../../report/write-reports.js";
import { SubjectError } from "../../subjects/subject.js";
import { isPlainRows } from "../../judge/weighting.js";
import { demo } from "../demo.js";
import { newSeed, parseDuration, parseReporters, parseSeed, parseTiers, percentArg, positiveInt, positiveNumber, readReportOrExplain, subjectSpecOf } from "../arguments.js";
import { UsageError } from "../errors.js";
import { interruptedWhileWriting, onInterrupt } from "../interrupt.js";
import { rerunCommand } from "../rerun.js";
import { sandboxLimits, subjectSandbox } from "../sandbox-options.js";
import { gateOf } from "../../report/gate.js";
import { checkBaseline, checkBaselineSettings, checkStdoutReporters, emitReports, markStarted, reportInterrupted, reportPrivateRows, scoreVerdict, type Output } from "../score-output.js";
import { weightingFrom } from "../scoring-options.js";
import { namesMcp, scoreMcpCommand } from "./score-mcp.js";
import { addScoreOptions, MAX_FRESH, MAX_JOBS, MAX_POINTS, MAX_TIMEOUT_MS, type ScoreFlags } from "./score-options.js";

// `tool-conformance score`: scores one subject against the corpus and writes its reports;
// with no subject, scores the reference and every pitfall mutant (the demo). The flags become one
// call of the scoring API (harness/score-subject.ts); score-output.ts prints what it returns.

export function register(program: Command): void {
  const command = program
    .command("score")
    .description(
      "score an implementation against the conformance corpus: per section, tier and level, expected against actual for every failing row, and a diagnosis naming the pitfalls that explain the failures. With no subject: the reference and every pitfall mutant (the demo). Exit 0 pass, 1 below --min-score or regressed against --baseline, 2 usage or config error, 3 the subject could not start",
    )
    .argument("[subject]", 'built-in subject: "reference" or "mutant:sNN"');
  addScoreOptions(command).action(async (positional: string | undefined, flags: ScoreFlags) => {
    process.exitCode = await scoreCommand(positional, flags);
  });
}

async function scoreCommand(positional: string | undefined, flags: ScoreFlags): Promise<number> {
  const jobs = positiveInt(flags.jobs, "--jobs", MAX_JOBS);
  const timeoutMs = positiveInt(flags.timeout, "--timeout", MAX_TIMEOUT_MS);
  const minScore = flags.minScore === undefined ? undefined : percentArg(flags.minScore);
  const points = flags.gradescopePoints === undefined ? undefined : positiveNumber(flags.gradescopePoints, "--gradescope-points", MAX_POINTS);
  const budgetMs = flags.budget === undefined ? undefined : parseDuration(flags.budget, "--budget");
  const limits = sandboxLimits(flags);
  // how the headline is scored: a bad weights file stops the run before it starts (exit 2)
  const weighting = weightingFrom(flags);
  if (flags.gradescopePer === "row" && !isPlainRows(weighting)) throw new UsageError(`--gradescope-per row gives each row its points, which a weighting by tests cannot: use --gradescope-per section with --scoring tests or --weights`);
  // read once, before any subject runs: the key never needs to be reachable afterwards
  const sign: SignOptions & ReadOptions = flags.key === undefined ? {} : { key: readKeyFile(flags.key) };
  // --out - or --reporter json=-: the report's JSON lines are the whole of stdout
  const jsonToStdout = flags.out === "-" || flags.reporter.includes("json=-");
  const asked = flags.reporter.map((r) => (r === "json=-" ? "json" : r));
  // --out - means the JSON lines on stdout, whatever other reporters are named beside it
  const reporters = parseReporters(flags.out === "-" && !asked.includes("json") ? [...asked, "json"] : asked, ["terminal"]);
  if (jsonToStdout) checkStdoutReporters(reporters, flags.out === "-");
  const output: Output = { reporters, out: flags.out, jsonToStdout, sign, gradescope: { per: flags.gradescopePer, points, visibility: flags.gradescopeVisibility, stdoutVisibility: flags.gradescopeStdoutVisibility } };
  if (flags.mcpRun.length > 0 && !namesMcp(flags)) throw new UsageError("--mcp-run names tools of an MCP server: give --mcp or --mcp-url");
  if (namesMcp(flags)) return scoreMcpCommand(positional, flags, { output, minScore, timeoutMs, budgetMs, weighting, sign });
  const given = subjectSpecOf(positional, flags) === undefined ? 0 : 1;
  // a built-in subject that cannot be scored here is refused before anything is written
  const mutantId = positional === undefined ? undefined : /^mutant:(s\d{2,})$/.exec(positional)?.[1];
  if (mutantId !== undefined) checkMutant(mutantId, flags.profile);
  // a subject is graded on what the spec fixes; the demo shows every tier, and says so
  const tiers = parseTiers(flags.tier, given === 0 ? [...TIERS] : ["core"]);
  const scoring: ScoreOptions = { level: flags.level, tiers };

  const imported = flags.jsts === undefined ? undefined : importJsts(flags.jsts);
  if (imported) {
    // its tests count under their own tier: say which, and whether this run's tiers take them
    const jstsTiers = [...new Set(imported.rows.map((row) => row.tier))];
    const counted = jstsTiers.filter((tier) => tiers.includes(tier));
    const how = imported.rows.length === 0 ? "" : counted.length === jstsTiers.length ? `; they count under tier ${jstsTiers.join(", ")}, scored in this run` : `; they count under tier ${jstsTiers.join(", ")}, which this run (tiers ${tiers.join(", ")}) does not score: add --tier ${jstsTiers.join(",")} (or --tier all) to score them`;
    process.stderr.write(describeJsts(imported) + how + "\n");
  }
  // a grader's own rows count as their own part of the score; their ids must stay apart from the corpus's
  const privateRows = flags.corpus === undefined ? [] : loadPrivateCorpus(flags.corpus, [...loadCorpus(), ...(imported?.rows ?? [])]);
  // a grader's row the reference fails is most likely a mistake in the row: told before any student is scored on it
  if (privateRows.length > 0) {
    const { failing, run } = await rowsTheReferenceFails(privateRows, flags.profile, flags.level);
    reportPrivateRows(failing, run, flags.corpus!, flags.trustPrivate === true);
  }
  // generated cases: the same for every subject scored with this seed, a part of their own
  if (flags.seed !== undefined && flags.fresh === undefined) throw new UsageError("--seed says what --fresh N generates from: give --fresh too");
  // with --key and no --seed, the seed comes from the key (and grade's --attempt): the same for every rerun of the same files, and never printed
  const keyed = flags.fresh !== undefined && flags.seed === undefined && sign.key !== undefined;
  const fresh = flags.fresh === undefined ? undefined : { count: positiveInt(flags.fresh, "--fresh", MAX_FRESH)!, seed: flags.seed !== undefined ? parseSeed(flags.seed) : keyed ? seedFromKey(sign.key!, flags.attempt) : newSeed() };
  // a graded run's cases (a signing key) are the grader's secret: no output shows their inputs
  const secret = fresh !== undefined && sign.key !== undefined;
  const selection: ScoreSubjectOptions = { profile: flags.profile, ...scoring, filters: flags.filter, extraRows: [...(imported?.rows ?? []), ...privateRows], ...(fresh ? { fresh } : {}), ...(secret ? { secretParts: ["fresh"] } : {}) };
  // the rows are chosen (and a filter matching none refused) before anything runs or is written
  if (fresh && flags.progress) process.stderr.write(`generating ${fresh.count.toLocaleString("en-US")} fresh cases (answered by the reference)…\n`);
  const { rows, corpus } = await rowsFor(selection);

  if (given === 0) {
    const unsupported = [...(reporters.some((r) => r !== "terminal") ? ["--reporter"] : []), ...(minScore !== undefined ? ["--min-score"] : []), ...(flags.baseline !== undefined ? ["--baseline"] : [])];
    if (unsupported.length) throw new UsageError(`${unsupported.join(", ")} need a subject (reference, mutant:sNN, --subject COMMAND or --module PATH)`);
    return demo(rows, { profile: flags.profile, ...scoring, jobs, timeoutMs, filters: flags.filter, corpus });
  }

  // a baseline that cannot be used should stop the run before it starts
  const baseline = flags.baseline === undefined ? undefined : readReportOrExplain(flags.baseline, sign);
  if (baseline) checkBaselineSettings(baseline, flags.baseline!, { profile: flags.profile, ...scoring });
  // a student reruns a row of the public corpus; a grader's private row or a generated one has no
  // command a student can run (it would need the grader's files or the secret seed): none is given
  const prefix = rerunCommand(positional, flags, tiers);
  const rerun = (row: Row) => (row.part !== undefined && row.part !== "corpus" ? undefined : `${prefix}${row.source?.startsWith("jsts:") ? " --jsts JSON-Schema-Test-Suite" : ""} --filter ${shellQuote(row.id)}`);
  // before anything is written: a sandbox that cannot be built is a usage error
  const sandbox = subjectSandbox(flags, limits, reporters, jsonToStdout);
  if (reporters.includes("json") && !jsonToStdout) markStarted(flags.out);
  // SIGINT or SIGTERM: the subject is stopped, the rows answered are reported (marked interrupted)
  const interrupt = onInterrupt();
  let report: Report;
  try {
    report = await scoreSubject(subjectSpecOf(positional, flags, sandbox)!, {
      ...selection,
      ...(jobs !== undefined ? { jobs } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(budgetMs !== undefined ? { budgetMs } : {}),
      progress: flags.progress ? "auto" : false,
      diagnosis: flags.diagnosis,
      ...(flags.label !== undefined ? { label: flags.label } : {}),
      rerun,
      weighting,
      flags: flags.flag,
      signal: interrupt.signal,
    });
  } catch (error) {
    interrupt.done();
    if (!(error instanceof SubjectStoppedError)) throw error;
    // the subject could not start or kept failing: its whole report all the same, then exit 3
    await emitReports(error.report, output);
    throw new SubjectError(noWorkflowCommands(error.message));
  }
  // the handler stays through the writing: a signal then still ends the run with its code, not the default death
  try {
    if (report.summary.stopped?.interrupted !== undefined) return await reportInterrupted(report, rows.length, output);
    await emitReports(report, output, false, gateOf(report, { ...(minScore !== undefined ? { minScore: minScore } : {}), ...(baseline ? { baseline: { report: baseline, path: flags.baseline! } } : {}) }));
    // this run's report is whole: an earlier interrupted one beside it is out of date
    if (reporters.includes("json") && !jsonToStdout) rmSync(join(flags.out, INTERRUPTED_REPORT_FILE), { force: true });
    const code = scoreVerdict(report, minScore, reporters);
    const verdict = baseline ? Math.max(code, checkBaseline(report, baseline, flags.baseline!)) : code;
    return interruptedWhileWriting(interrupt.signal) ?? verdict;
  } finally {
    interrupt.done();
  }
}

