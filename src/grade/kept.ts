import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PACKAGE_ROOT } from "../corpus/load.js";
import { verifyReportFile } from "../report/read-report.js";
import type { Report, ReportHeader } from "../report/report.js";
import { oneLine } from "../report/reporters/text.js";
import { REPORT_FILE, SETTINGS_FILE, summaryOf, type GradeOptions, type Submission } from "./grading.js";

// Which report stands for a submission: one kept from an earlier run only when it is whole,
// verified, not spoilt on the grader's side, and graded from the same files with the same settings.

/**
 * A report whose run was spoilt on the grader's side (a spawn that failed for want of processes
 * or memory, a sandbox that could not be set up): not the student's score. It is not kept, and a
 * rerun grades the submission again.
 */
export function harnessFailure(report: Report): string | undefined {
  // only what the grader's own code recorded (the operating system's errno, bwrap's status):
  // never words in a row's error or stderr, which the subject writes
  const fault = report.summary.stopped?.graderFault ?? report.rows.find((row) => row.graderFault !== undefined)?.graderFault;
  return fault === undefined ? undefined : oneLine(fault);
}

/** What a report must share with today's run to be kept: the settings that change the rows, their verdicts or the score. */
function settingsOf(header: ReportHeader): string {
  return JSON.stringify([header.profile, header.level, header.tiers, header.filters, header.corpus, header.scoring ?? null]);
}

/** A submission's folder is hashed up to this many files. */
const MAX_HASHED_FILES = 50_000;

/**
 * The SHA-256 of what a folder (or file) holds: every file's path, size and bytes, and every
 * symlink's target, in sorted order. What decides that a kept report graded these very files.
 */
export function contentHash(path: string): string {
  const hash = createHash("sha256");
  const visit = (at: string, name: string, depth: number, count: { files: number }) => {
    let stat;
    try {
      stat = lstatSync(at);
    } catch {
      hash.update(`missing ${name}\0`);
      return;
    }
    if (stat.isSymbolicLink()) hash.update(`link ${name} ${readlinkSync(at)}\0`);
    else if (stat.isFile()) {
      if (++count.files > MAX_HASHED_FILES) return;
      hash.update(`file ${name} ${stat.size}\0`);
      hash.update(readFileSync(at));
    } else if (stat.isDirectory() && depth < 64) {
      hash.update(`dir ${name}\0`);
      for (const entry of readdirSync(at).sort()) visit(join(at, entry), name === "" ? entry : `${name}/${entry}`, depth + 1, count);
    }
  };
  visit(path, "", 0, { files: 0 });
  return hash.digest("hex");
}

/** The files other than the submission that decide its score: the corpus, and a --corpus, --weights or --jsts named in the scoring options. */
export function gradingInputs(scoreArgs: readonly string[]): string {
  const named = scoreArgs.flatMap((word) => {
    const match = /^--(corpus|weights|jsts)=(.*)$/.exec(word);
    return match && match[2] !== "default" ? [resolve(match[2]!)] : [];
  });
  return JSON.stringify([join(PACKAGE_ROOT, "conformance", "corpus"), ...named].map((path) => contentHash(path)));
}

/** The report a submission already has, if it can be kept: whole, verified, its own, scored with these settings. */
export function keptReport(submission: Submission, options: Pick<GradeOptions, "out" | "key" | "subject" | "build" | "scoreArgs" | "sandbox">, expected: ReportHeader, inputs = gradingInputs(options.scoreArgs)): Report | undefined {
  const path = join(options.out, submission.name, REPORT_FILE);
  if (!existsSync(path)) return undefined;
  const verified = verifyReportFile(path, options.key ? { key: options.key } : {});
  if (!verified.ok || harnessFailure(verified.report) !== undefined) return undefined;
  const header = verified.report.header;
  if (header.subject.label !== submission.name || settingsOf(header) !== settingsOf(expected)) return undefined;
  let recorded: SettingsRecord;
  try {
    recorded = JSON.parse(readFileSync(join(options.out, submission.name, SETTINGS_FILE), "utf8")) as SettingsRecord;
  } catch {
    return undefined;
  }
  const today = settingsRecord(submission, options, [], inputs);
  const { files, ...settings } = recorded;
  if (!Array.isArray(files) || JSON.stringify(settings) !== JSON.stringify({ ...today, files: undefined })) return undefined;
  // the files as graded: before the build, or after it (a build run in place leaves its output there)
  return files.includes(contentHash(submission.dir)) ? summaryOf(verified.report) : undefined;
}

/** What a submission was graded with (its grade.json): its commands, the scoring options, the corpus and other inputs, and the hashes of its files. */
export interface SettingsRecord {
  subject: string;
  build: string | null;
  sandbox: string | null;
  score: string[];
  inputs: string;
  files: string[] | undefined;
}

export function settingsRecord(submission: Submission, options: Pick<GradeOptions, "subject" | "build" | "scoreArgs" | "sandbox">, files: string[], inputs: string): SettingsRecord {
  const values = { dir: submission.dir, name: submission.name };
  return { subject: options.subject.fill(values), build: options.build?.fill(values) ?? null, sandbox: options.sandbox?.mode ?? null, score: options.scoreArgs, inputs, files };
}

export function writeSettings(folder: string, record: SettingsRecord): void {
  writeFileSync(join(folder, SETTINGS_FILE), JSON.stringify(record, null, 2) + "\n");
}
