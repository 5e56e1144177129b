import { Option, type Command } from "commander";
import type { BuildSandbox } from "../../grade/process.js";
import { parseTemplate, PLACEHOLDERS, TemplateError, type Template } from "../../grade/template.js";
import { REPORTERS } from "../../report/reporters/names.js";
import { parseSize, type SandboxMode } from "../../subjects/sandbox/index.js";
import { UsageError } from "../errors.js";

// grade's options, score's passed through among them, and what is made of them before a grade starts.

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

const DEFAULT_BUILD_TIMEOUT = "5m";
const DEFAULT_SCORE_TIMEOUT = "10m";

export interface GradeFlags {
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

/** The grade command with its options, score's passed-through ones among them (returned apart). */
export function gradeCommandOf(program: Command): { command: Command; passed: Option[] } {
  const score = program.commands.find((c) => c.name() === "score");
  if (!score) throw new Error("register score before grade: grade passes score's options through");
  const placeholders = PLACEHOLDERS.map((p) => `{${p}}`).join(" and ");
  const command = program
    .command("grade")
    .summary("grade a class in one command: build and score every submission in a child process of its own, then the class table (resumable)")
    .description(
      `grade a class in one command: every subfolder of SUBMISSIONS is one submission; for each, --build runs in its folder, then score runs in a child process of its own, with its reports and logs under --out/NAME; then class.csv and class.md (merge's table) under --out, one line per submission: a build that fails, a subject that cannot start, a crash or a timeout is a line with score 0 and its reason. In --subject and --build, ${placeholders} stand for the submission's folder (absolute) and its folder name, each replaced by a word the shell reads back exactly (write them bare, or inside quotes; {{ and }} are literal braces). Resumable: a submission whose report.jsonl is already whole, verified and scored with the same settings is kept; run the same command again after an interruption to grade the rest; --force redoes all. Exit 0 every submission built and graded (whatever the scores), 1 some builds failed (each the student's 0%, with a report) or some submissions have no report (a build or score timed out, the score run died: their lines say why, and a rerun retries them), 2 usage error, 130 interrupted`,
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
  return { command, passed };
}

/** The options given on the command line that go to score, as words (`--tier=core`). */
export function forwarded(command: Command, options: readonly Option[]): string[] {
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

/** The kind of a failure, for the summary line: `build failed`, `timed out`, `no report`. */
export function kindOf(reason: string): string {
  return /^[^:(]+/.exec(reason)?.[0]?.trim() ?? reason;
}

/**
 * The build's sandbox: score's, with the same binds and caps (checked by score first), the CPU cap
 * no shorter than the build's time limit, and the grader's files (grades, key, corpus) hidden.
 */
export function buildSandbox(flags: GradeFlags, buildTimeoutMs: number): BuildSandbox {
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

export function template(source: string, flag: string): Template {
  if (source.trim() === "") throw new UsageError(`${flag}: the command is empty`);
  try {
    return parseTemplate(source, flag);
  } catch (error) {
    if (error instanceof TemplateError) throw new UsageError(error.message);
    throw error;
  }
}
