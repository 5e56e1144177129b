import { accessSync, constants } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { CLASS_FILES, gradeAll, gradeTable, GradeUsageError, listSubmissions, preflight, progressLine, type Outcome } from "../../grade/grade.js";
import { workCopies, type WorkCopies } from "../../grade/workcopy.js";
import { readKeyFile } from "../../report/format-report.js";
import { writeFileAtomic } from "../../report/directory.js";
import { parseSize } from "../../subjects/sandbox/index.js";
import { noWorkflowCommands, oneLine } from "../../report/reporters/text.js";
import { parseDuration, positiveInt } from "../arguments.js";
import { EXIT, UsageError } from "../errors.js";
import { buildFailed, toCsv, toMarkdown } from "../../report/class-table.js";
import { REPORTERS } from "../../report/reporters/names.js";
import { buildSandbox, forwarded, gradeCommandOf, kindOf, template, type GradeFlags } from "./grade-options.js";
import { writeFailure } from "../arguments.js";
import { makeDirectory } from "../../report/directory.js";

// `tool-conformance grade SUBMISSIONS --subject CMD [--build CMD]`: a class in one command. Each
// submission is built and scored in child processes of its own (see src/grade/), so a hostile one
// costs only its own line; the class table is merge's.

const MAIN = fileURLToPath(new URL("../main.js", import.meta.url));
export function register(program: Command): void {
  const { command, passed } = gradeCommandOf(program);
  command.action(async (submissions: string, flags: GradeFlags, self: Command) => {
    process.exitCode = await gradeCommand(submissions, flags, forwarded(self, passed));
  });
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
  const stopped = outcomes.filter((o) => o.status !== "failed" && o.report.summary.stopped && !buildFailed(o.report)).length;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const parts = [`${outcomes.length - failed.length} of ${outcomes.length} graded in ${seconds} s`];
  if (kept) parts.push(`${kept} kept from an earlier run`);
  if (stopped) parts.push(`${stopped} whose subject could not start or kept failing (score from the rows answered)`);
  say(`${parts.join("; ")}`);
  say(`wrote ${csv}\nwrote ${md}`);
  // a build that failed is the student's 0% with a report; still an exit a script can gate on
  const unbuilt = outcomes.filter((o) => o.status !== "failed" && buildFailed(o.report)).map((o) => o.name);
  if (unbuilt.length > 0) say(`tool-conformance: ${unbuilt.length === outcomes.length ? "every build failed" : `${unbuilt.length} of ${outcomes.length} builds failed`} (score 0, the build's log in ${unbuilt.length === 1 ? "its report" : "their reports"}): ${unbuilt.map(oneLine).join(", ")}`);
  if (failed.length === 0) return unbuilt.length > 0 ? EXIT.failed : EXIT.ok;
  say(`tool-conformance: ${failed.length} submission${failed.length === 1 ? " has" : "s have"} no report (score 0 in the class table): ${[...new Set(failed.map((o) => kindOf(o.reason)))].join(", ")}; run the same command again to retry ${failed.length === 1 ? "it" : "them"}`);
  return EXIT.failed;
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
