import { accessSync, constants } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Option, type Command } from "commander";
import { CLASS_FILES, gradeAll, gradeTable, GradeUsageError, listSubmissions, preflight, progressLine, type Outcome } from "../../grade/grade.js";
import type { BuildSandbox } from "../../grade/process.js";
import { workCopies, type WorkCopies } from "../../grade/workcopy.js";
import { parseTemplate, PLACEHOLDERS, TemplateError, type Template } from "../../grade/template.js";
import { readKeyFile, writeFileAtomic } from "../../harness/report.js";
import { parseSize, type SandboxMode } from "../../harness/sandbox/index.js";
import { noWorkflowCommands, oneLine } from "../../harness/reporters/text.js";
import { parseDuration, positiveInt } from "../arguments.js";
import { EXIT, UsageError } from "../errors.js";
import { toCsv, toMarkdown } from "../../harness/class-table.js";
import { REPORTERS } from "../../harness/reporters/names.js";
import { writeFailure } from "./score.js";
import { makeDirectory } from "../../harness/directory.js";

// `tool-conformance grade SUBMISSIONS --subject CMD [--build CMD]`: a class in one command. Each
// submission is built and scored in child processes of its own (see src/grade/), so a hostile one
// costs only its own line; the class table is merge's.

/**
 * The options of `score` that grade passes through to every submission's score, by name. Each is
 * registered on grade with score's own flags, choices and help, only if score has it, so a
 * scoring option added to score is one name here (or none, if already listed).
 */
export const PASSED_TO_SCORE = [
  "profile",
  "tier",
  "level",
  "filter",
  "timeout",
  "jsts",
  "corpus",
  "diagnosis",
  "key",
  "sandbox",
  "sandbox-bind",
  "runtime",
  "memory",
  "max-processes",
  "cpu-seconds",
  "max-file-size",
  "budget",
  "fresh",
  "seed",
  "gradescope-per",
  "gradescope-visibility",
  "gradescope-stdout-visibility",
  "gradescope-points",
  "scoring",
  "weights",
  "fresh-weight",
] as const;

const MAIN = fileURLToPath(new URL("../main.js", import.meta.url));
const DEFAULT_BUILD_TIMEOUT = "5m";
const DEFAULT_SCORE_TIMEOUT = "10m";

interface GradeFlags {
  subject: string;
  build?: string;
  out: string;
  parallel?: string;
  buildTimeout: string;
  scoreTimeout: string;
  reporter: string[];
  force?: boolean;
  only?: string[];
  buildDisk: string;
  buildFiles: string;
  key?: string;
  // score's options that the build's sandbox follows too
  sandbox?: SandboxMode;
  sandboxBind?: string[];
  runtime?: string[];
  memory?: string;
  maxProcesses?: string;
  maxFileSize?: string;
  corpus?: string;
  jsts?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];

export function register(program: Command): void {
  const score = program.commands.find((c) => c.name() === "score");
  if (!score) throw new Error("register score before grade: grade passes score's options through");
  const placeholders = PLACEHOLDERS.map((p) => `{${p}}`).join(" and ");
  const command = program
    .command("grade")
    .summary("grade a class in one command: build and score every submission in a child process of its own, then the class table (resumable)")
    .description(
      `grade a class in one command: every subfolder of SUBMISSIONS is one submission; for each, --build runs in its folder, then score runs in a child process of its own, with its reports and logs under --out/NAME; then class.csv and class.md (merge's table) under --out, one line per submission: a build that fails, a subject that cannot start, a crash or a timeout is a line with score 0 and its reason. In --subject and --build, ${placeholders} stand for the submission's folder (absolute) and its folder name, each replaced by a word the shell reads back exactly (write them bare, or inside quotes; {{ and }} are literal braces). Resumable: a submission whose report.jsonl is already whole, verified and scored with the same settings is kept; run the same command again after an interruption to grade the rest; --force redoes all. Exit 0 every submission graded (whatever the scores), 1 some submissions have no report (build failed, timed out, the score run died: their lines say why, and a rerun retries them), 2 usage error, 130 interrupted`,
    )
    .argument("<submissions>", "the folder holding one subfolder per submission (hidden folders are skipped)")
    .requiredOption("--subject <command>", `the command that serves a submission over the stdio protocol, run through the shell in the submission's folder, where ${placeholders} stand for it (e.g. "python3 /path/to/adapter.py {dir}/toolreg.py")`)
    .option("--build <command>", `a command run through the shell in each submission's folder before it is scored (e.g. "make"); its output goes to --out/NAME/build.log. A build that fails or times out scores 0`)
    .option("--out <dir>", "folder for the class table (class.csv, class.md) and a folder per submission (report.jsonl, build.log, score.log); must not be inside SUBMISSIONS", "grades")
    .option("--parallel <n>", "submissions graded at once (default: the number of cores); each score gets --jobs cores ÷ N, at least 1")
    .option("--build-timeout <duration>", `time limit of one build: 90s, 5m, 1500ms (a bare number is seconds); the build's whole process group is killed`, DEFAULT_BUILD_TIMEOUT)
    .option("--score-timeout <duration>", `time limit of one submission's score, startup and every row included (--timeout is per request)`, DEFAULT_SCORE_TIMEOUT)
    .option("--reporter <name>", `more reports per submission beside report.jsonl, repeatable: ${REPORTERS.filter((r) => !["terminal", "json", "github-actions"].includes(r)).join(", ")}`, collect, [])
    .option("--force", "grade every submission again, even those already graded")
    .option("--only <name...>", "grade again only these submissions (folder names), whatever they hold; every other keeps the report it has", (value: string, previous: string[] = []) => [...previous, value])
    .option("--build-disk <size>", "under --sandbox bwrap, each submission is built and scored in a copy of its folder whose total size is capped at this: 256M, 1G (as root, a tmpfs; docs/sandbox.md)", "256M")
    .option("--build-files <n>", "under --sandbox bwrap, the most files and folders the build's copy may hold", "20000");
  const passed: Option[] = [];
  for (const option of score.options) {
    const name = option.long?.replace(/^--(no-)?/, "");
    if (!name || !(PASSED_TO_SCORE as readonly string[]).includes(name)) continue;
    const copy = new Option(option.flags, `${option.description}${name === "sandbox" ? "; the build runs in it too, with the submission's folder writable" : ""} (passed to score)`);
    if (option.argChoices) copy.choices(option.argChoices);
    else if (option.parseArg) {
      const parse = option.parseArg;
      copy.argParser((value: string, previous: unknown) => parse(value, previous ?? []));
    }
    command.addOption(copy);
    passed.push(copy);
  }
  command.action(async (submissions: string, flags: GradeFlags, self: Command) => {
    process.exitCode = await gradeCommand(submissions, flags, forwarded(self, passed));
  });
}

/** The options given on the command line that go to score, as words (`--tier=core`). */
function forwarded(command: Command, options: readonly Option[]): string[] {
  const words: string[] = [];
  for (const option of options) {
    const key = option.attributeName();
    if (command.getOptionValueSource(key) !== "cli") continue;
    const value: unknown = command.getOptionValue(key);
    if (option.negate || !(option.required || option.optional)) words.push(option.long!);
    else for (const v of Array.isArray(value) ? value : [value]) words.push(`${option.long!}=${String(v)}`);
  }
  return words;
}

async function gradeCommand(root: string, flags: GradeFlags, scoreArgs: string[]): Promise<number> {
  const subject = template(flags.subject, "--subject");
  const build = flags.build === undefined ? undefined : template(flags.build, "--build");
  const cores = availableParallelism();
  const parallel = flags.parallel === undefined ? cores : positiveInt(flags.parallel, "--parallel")!;
  const buildTimeoutMs = parseDuration(flags.buildTimeout, "--build-timeout");
  const scoreTimeoutMs = parseDuration(flags.scoreTimeout, "--score-timeout");
  const unknown = flags.reporter.filter((r) => !(REPORTERS as readonly string[]).includes(r) || r === "terminal" || r === "github-actions");
  if (unknown.length) throw new UsageError(`--reporter: ${unknown.map((r) => JSON.stringify(r)).join(", ")} is not a report file (json, junit, gradescope, markdown, html)`);
  // every submission must get the same generated cases, and so must a rerun: a seed derived from the
  // key (which no student sees), or one the grader gives
  if (scoreArgs.some((w) => w.startsWith("--fresh=")) && !scoreArgs.some((w) => w.startsWith("--seed=") || w.startsWith("--key="))) {
    throw new UsageError("--fresh needs --key (its seed is derived from the key and never printed) or --seed with grade: every submission, and every rerun, must be scored on the same generated cases");
  }
  const buildBytes = parseSize(flags.buildDisk);
  if (buildBytes === undefined) throw new UsageError(`--build-disk: ${JSON.stringify(flags.buildDisk)} is not a size (e.g. 256M, 1G)`);
  const copyCaps = { bytes: buildBytes, files: positiveInt(flags.buildFiles, "--build-files")! };
  const submissions = await asUsage(() => listSubmissions(root, flags.out));
  const unknownOnly = (flags.only ?? []).filter((name) => !submissions.some((s) => s.name === name));
  if (unknownOnly.length) throw new UsageError(`--only: no submission named ${unknownOnly.map((n) => JSON.stringify(n)).join(", ")} in ${root}`);
  if (flags.only && flags.force) throw new UsageError("--only and --force: give one (--only regrades the submissions it names, --force all of them)");
  try {
    makeDirectory(flags.out);
    accessSync(flags.out, constants.W_OK);
  } catch (error) {
    throw new UsageError(`cannot write the grades under --out ${flags.out}: ${writeFailure(error)}`);
  }
  // read once: a bad key stops the grade before anything runs
  const key = flags.key === undefined ? undefined : readKeyFile(flags.key);
  const say = (line: string) => process.stderr.write(noWorkflowCommands(line) + "\n");

  // score checks every scoring option once, before any submission, in its own words
  const expected = await asUsage(() => preflight({ main: MAIN, scoreArgs, ...(key ? { key } : {}) }, submissions[0]!));
  const atOnce = Math.min(parallel, submissions.length);
  const jobs = Math.max(1, Math.floor(cores / atOnce));
  say(`grading ${submissions.length} submission${submissions.length === 1 ? "" : "s"} from ${oneLine(root)} into ${oneLine(flags.out)}: ${atOnce} at a time, score --jobs ${jobs} each`);

  // a sandboxed build runs in a capped copy of each submission
  let copies: WorkCopies | undefined;
  if (flags.sandbox === "bwrap") {
    copies = workCopies(copyCaps);
    const made = copies;
    process.on("exit", () => made.close());
    say(copies.kind === "tmpfs" ? `each submission is built and scored in a copy of its folder, capped at ${flags.buildDisk} and ${flags.buildFiles} files (tmpfs)` : `each submission is built and scored in a copy of its folder, NOT capped in size (no tmpfs can be mounted by this user): only --max-file-size holds per file`);
  }
  const started = Date.now();
  let finished = 0;
  const width = Math.min(24, Math.max(...submissions.map((s) => oneLine(s.name).length)));
  const stop = onInterrupt((signal) => {
    say(`tool-conformance: interrupted (${signal}): ${finished} of ${submissions.length} submissions done; run the same command again to grade the rest`);
  });
  let outcomes: Outcome[];
  try {
    outcomes = await gradeAll(
      {
        submissions,
        out: flags.out,
        subject,
        ...(build ? { build } : {}),
        buildTimeoutMs,
        scoreTimeoutMs,
        parallel,
        jobs,
        scoreArgs,
        reporters: flags.reporter,
        force: flags.force === true,
        ...(flags.only ? { only: flags.only } : {}),
        ...(flags.sandbox !== undefined ? { sandbox: buildSandbox(flags, buildTimeoutMs) } : {}),
        ...(copies ? { copies } : {}),
        ...(key ? { key } : {}),
        main: MAIN,
      },
      expected,
      (outcome) => say(progressLine(outcome, ++finished, submissions.length, width)),
    );
  } finally {
    stop();
    copies?.close();
  }

  const table = gradeTable(outcomes);
  const csv = join(flags.out, CLASS_FILES[0]);
  const md = join(flags.out, CLASS_FILES[1]);
  try {
    writeFileAtomic(csv, toCsv(table));
    writeFileAtomic(md, toMarkdown(table));
  } catch (error) {
    throw new UsageError(`cannot write the class table under --out ${flags.out}: ${writeFailure(error)}`);
  }
  process.stdout.write(toMarkdown(table));

  const failed = outcomes.filter((o) => o.status === "failed");
  const kept = outcomes.filter((o) => o.status === "kept").length;
  const stopped = outcomes.filter((o) => o.status !== "failed" && o.report.summary.stopped).length;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const parts = [`${outcomes.length - failed.length} of ${outcomes.length} graded in ${seconds} s`];
  if (kept) parts.push(`${kept} kept from an earlier run`);
  if (stopped) parts.push(`${stopped} whose subject could not start or kept failing (score from the rows answered)`);
  say(`${parts.join("; ")}`);
  say(`wrote ${csv}\nwrote ${md}`);
  if (failed.length === 0) return EXIT.ok;
  say(`tool-conformance: ${failed.length} submission${failed.length === 1 ? " has" : "s have"} no report (score 0 in the class table): ${[...new Set(failed.map((o) => kindOf(o.reason)))].join(", ")}; run the same command again to retry ${failed.length === 1 ? "it" : "them"}`);
  return EXIT.failed;
}

/** The kind of a failure, for the summary line: `build failed`, `timed out`, `no report`. */
function kindOf(reason: string): string {
  return /^[^:(]+/.exec(reason)?.[0]?.trim() ?? reason;
}

/**
 * The build's sandbox: score's, with the same binds and caps (checked by score first), the CPU cap
 * no shorter than the build's time limit, and the grader's files (grades, key, corpus) hidden.
 */
function buildSandbox(flags: GradeFlags, buildTimeoutMs: number): BuildSandbox {
  const count = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  const size = (value: string | undefined) => (value === undefined ? undefined : parseSize(value));
  const limits = { memoryBytes: size(flags.memory), fileBytes: size(flags.maxFileSize), maxProcesses: count(flags.maxProcesses), cpuSeconds: Math.ceil(buildTimeoutMs / 1000) };
  return {
    mode: flags.sandbox!,
    binds: flags.sandboxBind ?? [],
    runtimes: flags.runtime ?? [],
    hide: [flags.out, flags.key, flags.corpus, flags.jsts].filter((path): path is string => path !== undefined),
    limits: Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)),
  };
}

function template(source: string, flag: string): Template {
  if (source.trim() === "") throw new UsageError(`${flag}: the command is empty`);
  try {
    return parseTemplate(source, flag);
  } catch (error) {
    if (error instanceof TemplateError) throw new UsageError(error.message);
    throw error;
  }
}

/** Runs `run`; the grade module's usage errors become the CLI's (exit 2, one line). */
async function asUsage<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof GradeUsageError) throw new UsageError(error.message);
    throw error;
  }
}

/** Until the returned function is called: a signal prints `say`'s line and ends the grade (128 + the signal's number). */
function onInterrupt(say: (signal: NodeJS.Signals) => void): () => void {
  const codes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
  const handlers = (Object.keys(codes) as (keyof typeof codes)[]).map((signal) => {
    // the supervisors see this process's end (their stdin closes) and end their commands
    const handler = () => {
      say(signal);
      process.exit(codes[signal]);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return () => handlers.forEach(([signal, handler]) => process.off(signal, handler));
}
