import { createHmac } from "node:crypto";
import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Option, type Command } from "commander";
import { loadCorpus, loadPrivateCorpus } from "../../harness/corpus.js";
import { describeJsts, importJsts } from "../../harness/jsts.js";
import type { ScoreOptions } from "../../harness/outcome.js";
import { formatReport, markRunStarted, readKeyFile, readReport, ReportError, verifyReportFile, writeFileAtomic, writeReport, type ReadOptions, type Report, type SignOptions } from "../../harness/report.js";
import { REPORT_FILES, REPORTERS, type ReporterName } from "../../harness/reporters/names.js";
import { renderGithubActions, writeStepSummary } from "../../harness/reporters/github-actions.js";
import { noWorkflowCommands, oneLine, shellQuote } from "../../harness/reporters/text.js";
import { formatGradescope, VISIBILITIES, type Visibility } from "../../harness/reporters/gradescope.js";
import { renderHtml } from "../../harness/reporters/html.js";
import { renderMarkdown } from "../../harness/reporters/markdown.js";
import { paintFor, renderTerminal, type Paint } from "../../harness/reporters/terminal.js";
import { LEVELS, TIERS, type Level, type ProfileName, type Row, type Tier } from "../../harness/rows.js";
import { runRows, selectRows } from "../../harness/runner.js";
import { createSandbox, DEFAULT_LIMITS, formatSize, parseSize, SANDBOX_MODES, SandboxError, type Limits, type Sandbox, type SandboxMode } from "../../harness/sandbox/index.js";
import { checkMutant, rowsFor, scoreSubject, SubjectStoppedError, type ScoreSubjectOptions } from "../../harness/score-subject.js";
import { formatPercent, passes } from "../../harness/scoring.js";
import { inProcessSubject } from "../../harness/subjects/in-process.js";
import { SubjectError } from "../../harness/subjects/subject.js";
import { isPlainRows } from "../../harness/weighting.js";
import { makeDirectory } from "../../harness/directory.js";
import { demo } from "../demo.js";
import { formatWait, MAX_WAIT_MS, newSeed, parseDuration, parseSeed, positiveInt, positiveNumber, profileOption, subjectSpecOf, withoutEmptyDefaults } from "../arguments.js";
import { EXIT, UsageError } from "../errors.js";
import { addScoringOptions, weightingFrom, type ScoringFlags } from "../scoring-options.js";

// `tool-conformance score`: scores one subject against the corpus and writes its reports;
// with no subject, scores the reference and every pitfall mutant (the demo).

/** The most sessions a run opens at once: more only queue on the machine's cores and can outrun a subject's start. */
export const MAX_JOBS = 64;
/** The longest per-request timeout, ms (an hour): the harness's own guard adds 5 s and stays under setTimeout's limit. */
export const MAX_TIMEOUT_MS = 3_600_000;
/** The most cases --fresh generates: each case and its reference answer is held in memory for the run. */
export const MAX_FRESH = 100_000;
/** The most points --gradescope-points gives. */
export const MAX_POINTS = 1_000_000;
/** --max-processes and --cpu-seconds: caps that still mean something. */
export const MAX_PROCESSES = 65_536;
export const MAX_CPU_SECONDS = 86_400;


interface ScoreFlags extends ScoringFlags {
  subject?: string;
  module?: string;
  label?: string;
  profile: ProfileName;
  tier: string[];
  level: Level;
  filter: string[];
  jobs?: string;
  timeout?: string;
  reporter: string[];
  out: string;
  minScore?: string;
  baseline?: string;
  key?: string;
  gradescopePer: "section" | "row";
  gradescopeVisibility?: Visibility;
  gradescopeStdoutVisibility?: Visibility;
  gradescopePoints?: string;
  diagnosis: boolean;
  progress: boolean;
  jsts?: string;
  corpus?: string;
  trustPrivate?: boolean;
  fresh?: string;
  seed?: string;
  sandbox: SandboxMode;
  submission?: string;
  writable?: boolean;
  sandboxBind: string[];
  runtime: string[];
  memory?: string;
  maxProcesses?: string;
  cpuSeconds?: string;
  maxFileSize?: string;
  budget?: string;
  flag: string[];
}

const collect = (value: string, previous: string[]) => [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];

export function register(program: Command): void {
  const command = program
    .command("score")
    .description(
      "score an implementation against the conformance corpus: per section, tier and level, expected against actual for every failing row, and a diagnosis naming the pitfalls that explain the failures. With no subject: the reference and every pitfall mutant (the demo). Exit 0 pass, 1 below --min-score or regressed against --baseline, 2 usage or config error, 3 the subject could not start",
    )
    .argument("[subject]", 'built-in subject: "reference" or "mutant:sNN"')
    .option("--subject <command>", "a command speaking the stdio protocol (conformance/PROTOCOL.md), run through the shell")
    .option("--module <path>", "a JavaScript module exporting the reference's API (compile, Registry, newTool, …), loaded in-process")
    .option("--label <name>", "the subject's name in reports (default: the command, module or built-in name); merge uses it")
    .addOption(profileOption())
    .option("--tier <tiers>", `tiers to score, repeatable or comma-separated: ${TIERS.join(", ")}, or all (default: core, what the spec fixes; the demo: all)`, collect, [])
    .addOption(new Option("--level <level>", "how strictly answers are compared").choices(LEVELS).default("messages"))
    .option("--filter <glob>", "only rows whose id (or section name) matches; * is any text; repeatable", collect, [])
    .option("--jobs <n>", `sessions in parallel, 1 to ${MAX_JOBS}, never more than the rows selected (default: the number of cores, at most ${MAX_JOBS})`)
    .option("--timeout <ms>", `per-request timeout in ms, 1 to ${MAX_TIMEOUT_MS} (an hour) (default 5000 for --subject, 10000 in-process)`)
    .option("--reporter <name>", `output, repeatable: ${REPORTERS.join(", ")}; json=- writes report.jsonl to stdout (default: terminal)`, collect, [])
    .option("--out <dir>", "folder for report files; - writes the JSON lines of the report to stdout, and nothing else", "reports")
    .option("--min-score <percent>", "exit 1 when the score is below this percent (default 100: any row that does not pass fails the run; 0 to always exit 0 once scored)")
    .option("--baseline <report>", "a previous report.jsonl scored with the same profile, level and tiers (else exit 2; its scores are recomputed from its rows, and with --key its signature verified): exit 1 when a row that passed there fails now")
    .option("--key <file>", "sign report.jsonl with HMAC-SHA256 under this key file (keep it out of the subject's reach); merge --key verifies; a --baseline must then be signed with it too")
    .addOption(new Option("--gradescope-per <unit>", "one Gradescope test per section or per row").choices(["section", "row"]).default("section"))
    .addOption(new Option("--gradescope-visibility <when>", "Gradescope test visibility").choices(VISIBILITIES))
    .addOption(new Option("--gradescope-stdout-visibility <when>", "Gradescope stdout visibility").choices(VISIBILITIES))
    .option("--gradescope-points <n>", `points the whole run is worth on Gradescope, above 0 and at most ${MAX_POINTS} (default 100)`)
    .option("--no-diagnosis", "skip the diagnosis (it runs every mutant in-process when the subject fails rows)")
    .option("--no-progress", "no progress bar")
    .option("--jsts <dir>", "also run a JSON-Schema-Test-Suite folder (tests/draft2020-12/*.json): the groups inside the subset, as verdict-level rows")
    .option("--corpus <dir>", "also run your own rows (*.json under DIR, the corpus's format, each file checked by conformance/row.schema.json; ids apart from the corpus's), scored as their own part, \"private\"")
    .option("--trust-private", "score --corpus rows the reference fails as they are written (they encode a choice of your own); without it, such a row is named with the reference's answer and the run stops (exit 2)")
    .option("--fresh <n>", `also score N cases generated for this run (docs/fuzzing.md), their answers from the reference, as their own part, "fresh": a table of the public corpus's answers does not pass them; N from 1 to ${MAX_FRESH} (every case and its answer is held in memory)`)
    .option("--seed <n>", "the seed --fresh generates from, a whole number from -2147483648 to 2147483647: the same seed gives every submission the same cases (default: derived from --key when given, and then never printed; else a new one)")
    .addOption(new Option("--sandbox <mode>", "how a --subject command runs: none (as you, seeing every file you can: trusted code only) or bwrap (a bubblewrap sandbox that sees only --submission, the system's runtimes and a private /tmp, with no network and capped; docs/sandbox.md)").choices(SANDBOX_MODES).default("none"))
    .option("--submission <dir>", "the folder the --subject command runs in; under --sandbox bwrap, the only folder of the machine it sees (default: the current directory)")
    .option("--writable", "under --sandbox bwrap, let the subject write in its --submission folder (default: read-only)")
    .option("--sandbox-bind <path>", "under --sandbox bwrap, also show this folder or file, read-only, at the same path (a runtime installed outside /usr: a pyenv or nvm folder); repeatable", collect, [])
    .option("--runtime <name>", "under --sandbox bwrap, show only what this runtime needs of /usr (python3, node, go, java, or any command on the sandbox's PATH) instead of all of it; repeatable", collect, [])
    .option("--memory <size>", `under --sandbox bwrap, the writable memory of each subject process, e.g. 512M or 2G (default ${formatSize(DEFAULT_LIMITS.memoryBytes).replace(" MiB", "M")})`)
    .option("--max-processes <n>", `under --sandbox bwrap, the processes and threads the subject may run at once, 1 to ${MAX_PROCESSES} (default ${DEFAULT_LIMITS.maxProcesses}; Linux does not apply it to root)`)
    .option("--cpu-seconds <n>", `under --sandbox bwrap, the CPU seconds each subject process may use before it is killed, 1 to ${MAX_CPU_SECONDS} (default ${DEFAULT_LIMITS.cpuSeconds})`)
    .option("--max-file-size <size>", `under --sandbox bwrap, the largest file the subject may write (default ${formatSize(DEFAULT_LIMITS.fileBytes).replace(" MiB", "M")})`)
    .option("--budget <duration>", `the whole run's time limit, e.g. 60s or 5m, at most ${formatWait(MAX_WAIT_MS)}: past it, the rows not answered are errored with that cause and the report is written (default: none)`);
  // grade's own: a flag for the grader (this package found in the submission), kept in the signed report
  command.addOption(new Option("--flag <text>", "a note for the grader, kept in the report's summary (grade sets it)").hideHelp().argParser((value: string, previous: string[] = []) => [...previous, value]).default([]));
  withoutEmptyDefaults(addScoringOptions(command))
    .action(async (positional: string | undefined, flags: ScoreFlags) => {
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
  const shipped = [...loadCorpus(), ...(imported?.rows ?? [])];
  // a grader's own rows count as their own part of the score; their ids must stay apart from the corpus's
  const privateRows = flags.corpus === undefined ? [] : loadPrivateCorpus(flags.corpus, shipped);
  // a grader's row the reference fails is most likely a mistake in the row: told before any student is scored on it
  if (privateRows.length > 0) await checkPrivateRows(privateRows, flags.corpus!, flags.profile, flags.level, flags.trustPrivate === true);
  // generated cases: the same for every subject scored with this seed, a part of their own
  if (flags.seed !== undefined && flags.fresh === undefined) throw new UsageError("--seed says what --fresh N generates from: give --fresh too");
  // with --key and no --seed, the seed comes from the key: the same for every submission and rerun, and never printed
  const keyed = flags.fresh !== undefined && flags.seed === undefined && sign.key !== undefined;
  const fresh = flags.fresh === undefined ? undefined : { count: positiveInt(flags.fresh, "--fresh", MAX_FRESH)!, seed: flags.seed !== undefined ? parseSeed(flags.seed) : keyed ? seedFromKey(sign.key!) : newSeed() };
  const selection: ScoreSubjectOptions = { profile: flags.profile, ...scoring, filters: flags.filter, extraRows: [...(imported?.rows ?? []), ...privateRows], ...(fresh ? { fresh } : {}) };
  // the rows are chosen (and a filter matching none refused) before anything runs or is written
  const { rows, corpus } = await rowsFor(selection);

  if (given === 0) {
    const unsupported = [
      ...(reporters.some((r) => r !== "terminal") ? ["--reporter"] : []),
      ...(minScore !== undefined ? ["--min-score"] : []),
      ...(flags.baseline !== undefined ? ["--baseline"] : []),
    ];
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
  const emit = (report: Report) => emitReports(report, reporters, flags, points, jsonToStdout, sign);
  // before anything is written: a sandbox that cannot be built is a usage error
  const sandbox = subjectSandbox(flags, limits, reporters, jsonToStdout);
  const reportPath = join(flags.out, REPORT_FILES.json);
  if (reporters.includes("json") && !jsonToStdout) {
    try {
      // a whole report already there (the last good run, perhaps the --baseline) is kept until this
      // run's is whole; anything else is replaced by a "started" marker, so a run killed outright
      // leaves "incomplete" rather than a stale file that reads as this run's
      makeDirectory(flags.out);
      if (!verifyReportFile(reportPath).ok) markRunStarted(reportPath, new Date().toISOString());
    } catch (error) {
      throw new UsageError(`cannot write the reports under --out ${flags.out}: ${writeFailure(error)}`);
    }
  }
  const spec = subjectSpecOf(positional, flags, sandbox)!;
  // SIGINT or SIGTERM: the subject is stopped, the rows answered are reported (marked interrupted)
  const interrupt = onInterrupt();
  let report: Report;
  try {
    report = await scoreSubject(spec, {
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
    if (!(error instanceof SubjectStoppedError)) throw error;
    // the subject could not start or kept failing: its whole report all the same, then exit 3
    await emit(error.report);
    throw new SubjectError(noWorkflowCommands(error.message));
  } finally {
    interrupt.done();
  }
  const stopped = report.summary.stopped;
  if (stopped?.interrupted !== undefined) return await reportInterrupted(report, stopped.interrupted, stopped.answered ?? 0, rows.length, reporters, flags, points, jsonToStdout, sign);
  await emit(report);
  // this run's report is whole: an earlier interrupted one beside it is out of date
  if (reporters.includes("json") && !jsonToStdout) rmSync(join(flags.out, INTERRUPTED_REPORT_FILE), { force: true });
  const err = paintFor(process.stderr);

  let code: number = EXIT.ok;
  const total = report.summary.scores.total;
  if (minScore === undefined && total.passed < total.rows) {
    // like a test runner: without a threshold, any row that does not pass fails the run
    // rows the budget left unanswered are no lower score to accept: the advice is the budget's
    const unrun = stopped ? report.rows.filter((r) => r.status === "errored" && r.error?.startsWith(stopped.cause)).length : 0;
    const advice = unrun > 0 ? `${stopped!.cause} with ${unrun} of them unanswered: give a longer --budget, or fewer rows (--filter, --tier)` : "set --min-score to accept a lower score";
    process.stderr.write(`tool-conformance: ${total.rows - total.passed} of ${total.rows} rows did not pass (${advice})\n`);
    code = EXIT.failed;
  }
  if (minScore !== undefined) {
    // the headline: rows passed over rows, or the score under the grader's weighting
    const weighted = report.summary.weighted;
    const exact = weighted ? weighted.percent : total.rows === 0 ? 100 : (total.passed / total.rows) * 100;
    const shown = weighted ? weighted.percent : total.percent;
    if (exact < minScore) {
      process.stderr.write(`tool-conformance: score ${formatPercent(shown)} is below --min-score ${minScore}%\n`);
      code = EXIT.failed;
    } else if (!reporters.includes("terminal") && !reporters.includes("github-actions")) {
      process.stderr.write(`score ${formatPercent(shown)} (--min-score ${minScore}%: ok)\n`);
    }
  }
  if (baseline) code = Math.max(code, checkBaseline(report, baseline, flags.baseline!, err));
  return code;
}

/**
 * Writes the report in every chosen form: files under --out (or report.jsonl to stdout), the
 * terminal summary (to stderr when stdout carries the JSON lines), the GitHub Actions annotations
 * and step summary. A file that cannot be written is a usage error (exit 2).
 */
async function emitReports(report: Report, reporters: ReporterName[], flags: ScoreFlags, points: number | undefined, jsonToStdout: boolean, sign: SignOptions = {}, quiet = false): Promise<string[]> {
  // the XML writer loads only when asked for
  const junit = reporters.includes("junit") ? (await import("../../harness/reporters/junit.js")).renderJUnit : undefined;
  // an interrupted run's report is written beside the last whole one, never over it
  const jsonName = report.summary.stopped?.interrupted !== undefined ? INTERRUPTED_REPORT_FILE : REPORT_FILES.json;
  const reportFile = reporters.includes("json") && !jsonToStdout ? join(flags.out, jsonName) : undefined;
  const written: string[] = [];
  try {
    for (const reporter of reporters) {
      if (reporter === "terminal" || reporter === "github-actions") continue;
      if (reporter === "json" && jsonToStdout) {
        process.stdout.write(formatReport(report, sign));
        continue;
      }
      const file = join(flags.out, reporter === "json" ? jsonName : REPORT_FILES[reporter]);
      if (reporter === "json") writeReport(file, report, sign);
      // a CI runner that prints a report file (cat summary.md) must not obey a line the subject wrote
      else if (reporter === "junit") writeFileAtomic(file, noWorkflowCommands(junit!(report)));
      else if (reporter === "markdown") writeFileAtomic(file, noWorkflowCommands(renderMarkdown(report, reportFile ? { reportFile } : {})));
      else if (reporter === "html") writeFileAtomic(file, noWorkflowCommands(renderHtml(report, reportFile ? { reportFile } : {})));
      else if (reporter === "gradescope") {
        writeFileAtomic(
          file,
          noWorkflowCommands(formatGradescope(report, {
            per: flags.gradescopePer,
            points,
            visibility: flags.gradescopeVisibility,
            stdoutVisibility: flags.gradescopeStdoutVisibility,
          })),
        );
      }
      written.push(file);
    }
    if (reporters.includes("github-actions")) {
      const summary = writeStepSummary(report, process.env, reportFile ? { reportFile } : {});
      if (summary) written.push(`${summary} ($GITHUB_STEP_SUMMARY)`);
    }
  } catch (error) {
    const reason = writeFailure(error);
    throw new UsageError(`cannot write the reports under --out ${flags.out}: ${reason}`);
  }
  const files = written.filter((file) => !file.endsWith("($GITHUB_STEP_SUMMARY)"));
  if (quiet) return written;
  if (reporters.includes("terminal")) (jsonToStdout ? process.stderr : process.stdout).write(renderTerminal(report, { paint: paintFor(jsonToStdout ? process.stderr : process.stdout), files }));
  if (reporters.includes("github-actions")) process.stdout.write(renderGithubActions(report));
  const err = paintFor(process.stderr);
  for (const file of written) process.stderr.write(`${err("dim", "wrote")} ${file}\n`);
  return written;
}

/** Where an interrupted run's report.jsonl goes: beside the last whole report, which it never replaces. */
export const INTERRUPTED_REPORT_FILE = "report.interrupted.jsonl";

/** The exit code of a run ended by a signal: 128 + its number. */
const SIGNAL_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/**
 * Until done() is called: the first SIGINT, SIGTERM or SIGHUP aborts `signal` (its reason the
 * signal's name) and the run winds down; a second one a second or more later ends the process at
 * once (the first one's echo, re-raised by a subject's own handler, is ignored).
 */
function onInterrupt(): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  let first = 0;
  const handlers = Object.keys(SIGNAL_CODES).map((name) => {
    const handler = () => {
      if (!controller.signal.aborted) {
        first = Date.now();
        controller.abort(name);
        return;
      }
      if (Date.now() - first < 1_000) return;
      restoreTerminal();
      process.stderr.write(`tool-conformance: interrupted again (${name}): no report written\n`);
      process.exit(SIGNAL_CODES[name] ?? 130);
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  return { signal: controller.signal, done: () => handlers.forEach(([name, handler]) => process.off(name, handler)) };
}

/** Shows the cursor again (the progress bar hides it) on a terminal. */
function restoreTerminal(): void {
  if (process.stderr.isTTY) process.stderr.write("\x1b[?25h");
}

/** Writes an interrupted run's reports, says so in one line, and returns the signal's exit code. */
async function reportInterrupted(report: Report, signal: string, answered: number, total: number, reporters: ReporterName[], flags: ScoreFlags, points: number | undefined, jsonToStdout: boolean, sign: SignOptions): Promise<number> {
  restoreTerminal();
  const written = await emitReports(report, reporters, flags, points, jsonToStdout, sign, true);
  const kept = reporters.includes("json") && !jsonToStdout && existsSync(join(flags.out, REPORT_FILES.json)) && verifyReportFile(join(flags.out, REPORT_FILES.json)).ok ? `; ${join(flags.out, REPORT_FILES.json)} still holds the last whole run` : "";
  const where = written.length > 0 ? `, reports of them written (${written.join(", ")}), marked interrupted${kept}` : jsonToStdout ? ", their report on stdout, marked interrupted" : "";
  process.stderr.write(`tool-conformance: interrupted (${signal}): ${answered} of ${total} rows answered${where}\n`);
  return SIGNAL_CODES[signal] ?? 130;
}

/** With the report's JSON lines on stdout, nothing else may go there; with --out -, no file either. */
function checkStdoutReporters(reporters: ReporterName[], outIsStdout: boolean): void {
  if (reporters.includes("github-actions")) throw new UsageError("--reporter github-actions writes to stdout, which carries the report's JSON lines here (--out - or --reporter json=-): give --out DIR instead");
  const files = reporters.filter((r) => r !== "terminal" && r !== "json");
  if (outIsStdout && files.length > 0) throw new UsageError(`--out - sends report.jsonl to stdout; ${files.join(", ")} need a folder: give --out DIR with --reporter json=-`);
}

/** The command that scores this subject with these settings; a row's rerun command adds --filter ID. */
function rerunCommand(positional: string | undefined, flags: ScoreFlags, tiers: Tier[]): string {
  const words = ["tool-conformance", "score"];
  if (flags.subject !== undefined) words.push("--subject", shellQuote(withoutFolders(flags.subject)));
  else if (flags.module !== undefined) words.push("--module", shellQuote(flags.module));
  else words.push(shellQuote(positional!));
  if (flags.profile !== "ag02") words.push("--profile", flags.profile);
  if (flags.level !== "messages") words.push("--level", flags.level);
  words.push("--tier", tiers.length === TIERS.length ? "all" : tiers.join(","));
  if (flags.timeout !== undefined) words.push("--timeout", shellQuote(flags.timeout));
  // no --corpus, --jsts, --fresh or --seed: a student reruns a corpus row without the grader's files or seed
  return words.join(" ");
}

/**
 * A subject command as a student runs it from their own folder: every absolute path shown by its
 * file name (`python3 /home/grader/kit/adapter.py /class/s01/toolreg.py` is `python3 adapter.py
 * toolreg.py`), so a report names none of the grader's folders.
 */
export function withoutFolders(command: string): string {
  return command.replace(/(^|[\s=])(['"]?)\/(?:[^\s'"]*\/)?([^\s'"/]+)\2(?=[\s;&|)]|$)/g, "$1$2$3$2");
}

/** The caps given on the command line (undefined: the defaults); each needs --sandbox bwrap. */
function sandboxLimits(flags: ScoreFlags): Partial<Limits> {
  const size = (value: string | undefined, flag: string) => {
    if (value === undefined) return undefined;
    const bytes = parseSize(value);
    if (bytes === undefined) throw new UsageError(`${flag}: ${JSON.stringify(value)} is not a size (e.g. 512M, 2G, 65536)`);
    return bytes;
  };
  const caps: [keyof Limits, string, number | undefined][] = [
    ["memoryBytes", "--memory", size(flags.memory, "--memory")],
    ["maxProcesses", "--max-processes", positiveInt(flags.maxProcesses, "--max-processes", MAX_PROCESSES)],
    ["cpuSeconds", "--cpu-seconds", positiveInt(flags.cpuSeconds, "--cpu-seconds", MAX_CPU_SECONDS)],
    ["fileBytes", "--max-file-size", size(flags.maxFileSize, "--max-file-size")],
  ];
  const limits: Partial<Limits> = Object.fromEntries(caps.map(([cap, , value]) => [cap, value]));
  if (flags.sandbox !== "bwrap") {
    const given = [
      ...caps.filter(([, , value]) => value !== undefined).map(([, flag]) => flag),
      ...(flags.writable ? ["--writable"] : []),
      ...(flags.sandboxBind.length > 0 ? ["--sandbox-bind"] : []),
      ...(flags.runtime.length > 0 ? ["--runtime"] : []),
    ];
    if (given.length > 0) throw new UsageError(`${given.join(", ")} ${given.length === 1 ? "applies" : "apply"} under --sandbox bwrap only (--sandbox none runs the subject as you, without caps)`);
  }
  return limits;
}

/**
 * The sandbox a --subject command runs in. Under bwrap, the report folder is made first so that
 * it can be hidden from the subject (and cannot be replaced by it), with the key, the private
 * corpus, the JSON-Schema-Test-Suite folder and the baseline.
 */
function subjectSandbox(flags: ScoreFlags, limits: Partial<Limits>, reporters: ReporterName[], jsonToStdout: boolean): Sandbox | undefined {
  if (flags.sandbox !== "bwrap") {
    if (flags.submission !== undefined && (flags.subject === undefined || !existsSync(flags.submission) || !statSync(flags.submission).isDirectory())) {
      throw new UsageError(flags.subject === undefined ? "--submission is the folder a --subject command runs in: give --subject" : `--submission ${flags.submission}: no such folder`);
    }
    return undefined;
  }
  if (flags.subject === undefined) throw new UsageError("--sandbox bwrap runs a --subject command; reference, mutants and --module run inside this process and cannot be sandboxed");
  const files = reporters.filter((r) => r !== "terminal" && r !== "github-actions" && !(r === "json" && jsonToStdout));
  if (files.length > 0) {
    try {
      makeDirectory(flags.out);
    } catch (error) {
      throw new UsageError(`cannot write the reports under --out ${flags.out}: ${writeFailure(error)}`);
    }
  }
  const hide = [files.length > 0 ? flags.out : undefined, flags.key, flags.corpus, flags.jsts, flags.baseline].filter((path): path is string => path !== undefined);
  try {
    const sandbox = createSandbox({ mode: "bwrap", writable: flags.writable === true, binds: flags.sandboxBind, runtimes: flags.runtime, hide, limits, ...(flags.submission !== undefined ? { submission: flags.submission } : {}) });
    process.stderr.write(`${sandbox.summary}\n`);
    return sandbox;
  } catch (error) {
    if (error instanceof SandboxError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Runs a grader's own rows against the reference, at the run's level and every tier: each row it
 * does not pass gets one line on stderr with the reference's answer; then, unless `trust`, a usage
 * error (exit 2) stops the run before any subject is scored on them.
 */
async function checkPrivateRows(rows: readonly Row[], dir: string, profile: ProfileName, level: Level, trust: boolean): Promise<void> {
  const { rows: taken } = selectRows(rows, { profile, tiers: [...TIERS], level });
  if (taken.length === 0) return;
  const run = await runRows(inProcessSubject("reference"), taken, { profile, level, tiers: [...TIERS], progress: false, jobs: 1 });
  const wrong = run.results.filter((result) => result.status !== "passed");
  if (wrong.length === 0) return;
  const paint = paintFor(process.stderr);
  for (const result of wrong) {
    const source = taken.find((row) => row.id === result.id)?.source;
    const where = source ? ` (${source})` : "";
    const failing = result.checks.filter((check) => !check.pass);
    const answer =
      failing.length > 0
        ? failing.map((check) => `${check.what}: the row expects ${oneLine(JSON.stringify(check.expected) ?? "nothing")}, the reference answers ${oneLine(JSON.stringify(check.actual) ?? "nothing")}`).join("; ")
        : `the reference ${result.status === "skipped" ? "skips it" : "errors"}: ${oneLine(result.error ?? "no reason given")}`;
    process.stderr.write(noWorkflowCommands(`  ${trust ? paint("yellow", "!") : paint("red", "✗")} --corpus row ${oneLine(result.id)}${where}: the reference fails it: ${answer}`) + "\n");
  }
  const rowsText = `${wrong.length} of ${taken.length} --corpus row${taken.length === 1 ? "" : "s"}`;
  if (trust) {
    process.stderr.write(`tool-conformance: ${rowsText} the reference fails: scored as written (--trust-private)\n`);
    return;
  }
  throw new UsageError(`${rowsText} under ${dir} disagree${wrong.length === 1 ? "s" : ""} with the reference (listed above): fix ${wrong.length === 1 ? "it" : "them"}, or give --trust-private if ${wrong.length === 1 ? "it encodes" : "they encode"} a choice of your own`);
}

/** The --fresh seed a grader's key stands for: HMAC-SHA256 of a fixed label, its first 31 bits. */
export function seedFromKey(key: Uint8Array): number {
  return createHmac("sha256", key).update("tool-conformance fresh seed").digest().readUInt32BE(0) & 0x7fffffff;
}

/** A baseline scored with other settings is not comparable row for row: refused before the run (exit 2). */
function checkBaselineSettings(baseline: Report, path: string, run: ScoreOptions & { profile: ProfileName }): void {
  const b = baseline.header;
  if (b.profile !== run.profile || b.level !== run.level || b.tiers.join() !== run.tiers.join()) {
    throw new UsageError(
      `--baseline ${path} was scored with profile ${b.profile}, level ${b.level}, tiers ${b.tiers.join(",")}; this run uses profile ${run.profile}, level ${run.level}, tiers ${run.tiers.join(",")}: score the baseline with the same settings`,
    );
  }
}

/** Rows that passed in the baseline and do not pass now: regressions. Prints them; exit code. */
function checkBaseline(report: Report, baseline: Report, path: string, paint: Paint): number {
  const before = new Map(baseline.rows.map((row) => [row.id, row]));
  const h = report.header;
  const options = { level: h.level, tiers: h.tiers };
  const regressed = report.rows.filter((row) => {
    const old = before.get(row.id);
    return old !== undefined && passes(old, options) && !passes(row, options);
  });
  const compared = report.rows.filter((row) => before.has(row.id)).length;
  if (regressed.length === 0) {
    process.stderr.write(`baseline ${path}: no regression (${compared} rows compared)\n`);
    return EXIT.ok;
  }
  process.stderr.write(`tool-conformance: ${regressed.length} row${regressed.length === 1 ? "" : "s"} passed in the baseline ${path} and ${regressed.length === 1 ? "fails" : "fail"} now:\n`);
  for (const row of regressed) process.stderr.write(noWorkflowCommands(`  ${paint("red", "✗")} ${oneLine(row.id)} (${row.status}${row.error ? `: ${oneLine(row.error)}` : ""})`) + "\n");
  return EXIT.failed;
}

/** Why a report file could not be written, in words. */
export function writeFailure(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === "EEXIST" || code === "ENOTDIR") return "a file is in the way (it must be a folder)";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EROFS") return "read-only file system";
  if (code === "ENOSPC") return "no space left on the device";
  return error instanceof Error ? error.message : String(error);
}

/** Reads and checks a report for a command (scores recomputed; with a key, the signature verified); a bad one is a usage error (exit 2). */
export function readReportOrExplain(path: string, options: ReadOptions = {}): Report {
  try {
    return readReport(path, options);
  } catch (error) {
    if (error instanceof ReportError) throw new UsageError(error.message);
    throw error;
  }
}

// --- the demo -------------------------------------------------------------------------------

// --- arguments ------------------------------------------------------------------------------

/** `--tier` values: tier names, or `all`; none given is `fallback`. */
export function parseTiers(values: string[], fallback: Tier[]): Tier[] {
  if (values.length === 0) return fallback;
  if (values.includes("all")) return [...TIERS];
  for (const value of values) {
    if (!(TIERS as readonly string[]).includes(value)) throw new UsageError(`--tier: ${JSON.stringify(value)} is not a tier (${TIERS.join(", ")}, or all)`);
  }
  return TIERS.filter((tier) => values.includes(tier));
}

function parseReporters(values: string[], fallback: ReporterName[]): ReporterName[] {
  if (values.length === 0) return fallback;
  for (const value of values) {
    if (!(REPORTERS as readonly string[]).includes(value)) throw new UsageError(`--reporter: ${JSON.stringify(value)} is not a reporter (${REPORTERS.join(", ")}, or json=- for stdout)`);
  }
  return REPORTERS.filter((r) => values.includes(r));
}


function percentArg(value: string): number {
  const n = Number(value.trim().replace(/%$/, ""));
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 100) throw new UsageError(`--min-score: ${JSON.stringify(value)} is not a percent between 0 and 100`);
  return n;
}
