import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import cliProgress from "cli-progress";
import { Option, type Command } from "commander";
import { parseRule, type Rule } from "../../fuzz/findings.js";
import { fuzz, type Finding, type FuzzOutcome } from "../../fuzz/fuzz.js";
import { CorpusError, loadCorpus } from "../../harness/corpus.js";
import { firstFailure } from "../../harness/outcome.js";
import { writeFileAtomic } from "../../harness/report.js";
import { noWorkflowCommands, shellQuote } from "../../harness/reporters/text.js";
import { paintFor } from "../../harness/reporters/terminal.js";
import { LEVELS, type Level, type ProfileName, type Row, type Tier } from "../../harness/rows.js";
import { newSeed, parseDuration, parseSeed, profileOption } from "../arguments.js";
import { EXIT, UsageError } from "../errors.js";
import { parseTiers, writeFailure } from "./score.js";
import { resolveSubject } from "../../harness/score-subject.js";
import { subjectSpecOf } from "../arguments.js";

// `tool-conformance fuzz`: differential fuzzing of a subject against the reference. Generated
// cases go to both; each distinct disagreement (by its key: KIND/SYMPTOM[/KEYWORDS]) is shrunk to
// a minimal case and printed as a corpus row, with the seed and path that replay it, until the
// budget ends or --max-findings are found. docs/fuzzing.md explains the generators and the keys.

interface FuzzFlags {
  subject?: string;
  module?: string;
  profile: ProfileName;
  tier: string[];
  level: Level;
  seed?: string;
  path?: string;
  runs: string;
  time: string;
  timeout?: string;
  maxFindings: string;
  ignore?: string[];
  known?: string;
  save?: string;
  json: boolean;
  progress: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];
// a rule's keyword list has commas of its own: --ignore is repeated, never split
const repeat = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** The ranges of the numeric options (their help says them too). */
const RANGES = {
  runs: { min: 1, max: 100_000_000 },
  maxFindings: { min: 1, max: 1_000 },
  timeout: { min: 1, max: 3_600_000 },
  timeMs: { min: 1, max: 24 * 3_600_000 },
} as const;

const IGNORE_HELP =
  "set aside findings whose key RULE matches (repeatable): they are counted, not reported, and do not make the exit code 1. A finding's key is KIND/SYMPTOM[/KEYWORDS]: KIND is validate, compile or registry; SYMPTOM what the subject did (accepts or refuses what the reference refuses or accepts, refuses-schema, paths, messages; for registry cases register-accepts, call-refuses, call-runs, call-content, definitions, … docs/fuzzing.md lists them); KEYWORDS, for validate and compile cases, the keywords left in the shrunk schema, sorted, joined by commas: compile/accepts/format, validate/refuses/minimum, registry/definitions. RULE matches a key when it is the key, or its first part or two (compile, validate/refuses), or a keyword alone (format) that KEYWORDS lists; a KEYWORDS part in RULE must be the whole list, in any order; * stands for any one part (*/accepts)";

/** A generated row's key is not stored in it (the row format has no field for it): --known runs the rows to learn them. */
const KNOWN_HELP =
  "set aside the findings of an earlier run (repeat the run with the same FILE to explore beyond them). FILE is one of: a JSON array of corpus rows, as --save writes it (each row is run against the subject first; the key of every row it still fails is set aside, a row it now passes sets nothing aside); an earlier run's --json output (its findings' keys); or a text file of RULEs as for --ignore, one a line (# starts a comment)";

export function register(program: Command): void {
  program
    .command("fuzz")
    .description(
      "differential fuzzing: generated schemas, arguments and registry sequences go to the subject and to the reference; every distinct disagreement (by its key, see --ignore) is shrunk to a minimal case and printed as a ready corpus row with the seed and path that replay it, until --runs, --time or --max-findings ends the search. Exit 0 nothing found (or only findings set aside), 1 a disagreement, 2 usage error, 3 the subject could not start",
    )
    .argument("[subject]", 'built-in subject: "reference" or "mutant:sNN"')
    .option("--subject <command>", "a command speaking the stdio protocol (conformance/PROTOCOL.md), run through the shell")
    .option("--module <path>", "a JavaScript module exporting the reference's API, loaded in-process")
    .addOption(profileOption())
    .option("--tier <tiers>", "tiers compared: core (default: only what the spec fixes, in the domain every honest implementation handles); hardening widens the generators (numbers beyond float64, lone surrogates, duplicate keys, RE2-only patterns, timeouts)", collect, [])
    .addOption(new Option("--level <level>", "how strictly answers are compared").choices(LEVELS).default("messages"))
    .option("--seed <n>", "the random seed (default: a new one, printed so the run can be replayed)")
    .option("--path <path>", "replay one case of a previous run: give its --seed and the path it printed")
    .option("--runs <n>", `at most this many generated cases, ${RANGES.runs.min} to ${RANGES.runs.max}`, "10000")
    .option("--time <duration>", "stop generating after this long, 1ms to 24h: 30s, 2m, 500ms (a finding being shrunk is finished)", "60s")
    .option("--timeout <ms>", `per-request timeout in ms, ${RANGES.timeout.min} to ${RANGES.timeout.max} (default 5000 for --subject, 10000 in-process)`)
    .option("--max-findings <n>", `stop after this many distinct findings, ${RANGES.maxFindings.min} to ${RANGES.maxFindings.max} (1: stop at the first)`, "10")
    .option("--ignore <rule>", IGNORE_HELP, repeat)
    .option("--known <file>", KNOWN_HELP)
    .option("--save <file>", "append each finding, as a corpus row, to this JSON file (created if missing; a row whose id is already there is not added again)")
    .option("--json", "print the outcome as one JSON object on stdout instead of text", false)
    .option("--no-progress", "no progress bar")
    .action(async (positional: string | undefined, flags: FuzzFlags) => {
      process.exitCode = await fuzzCommand(positional, flags);
    });
}

async function fuzzCommand(positional: string | undefined, flags: FuzzFlags): Promise<number> {
  const spec = subjectSpecOf(positional, flags);
  if (spec === undefined) throw new UsageError("give one subject: a built-in name (reference, mutant:sNN), --subject COMMAND or --module PATH");
  const tiers = parseTiers(flags.tier, ["core"]);
  const seed = flags.seed === undefined ? newSeed() : parseSeed(flags.seed);
  const runs = intInRange(flags.runs, "--runs", RANGES.runs)!;
  const timeMs = parseDuration(flags.time, "--time");
  if (timeMs > RANGES.timeMs.max) throw new UsageError(`--time: ${JSON.stringify(flags.time)} is longer than 24h`);
  const timeoutMs = intInRange(flags.timeout, "--timeout", RANGES.timeout);
  const maxFindings = intInRange(flags.maxFindings, "--max-findings", RANGES.maxFindings)!;
  const ignore = (flags.ignore ?? []).map((text) => ruleOf(text, "--ignore"));
  if (flags.path !== undefined && !/^\d+(:\d+)*$/.test(flags.path)) throw new UsageError(`--path: ${JSON.stringify(flags.path)} is not a path printed by fuzz (numbers separated by colons)`);
  if (flags.path !== undefined && flags.seed === undefined) throw new UsageError("--path replays a case of a previous run: give that run's --seed too");
  const known = flags.known === undefined ? { rows: [], rules: [] } : readKnown(flags.known);
  if (flags.save !== undefined) readSaved(flags.save); // a file that cannot take the rows should stop the run before it starts

  const { subject, guardMs } = await resolveSubject(spec, flags.profile, timeoutMs);
  const err = paintFor(process.stderr);
  if (!flags.json) process.stderr.write(`${err("bold", "fuzz")} ${subject.label} · profile ${flags.profile} · tiers ${tiers.join(",")} · level ${flags.level} · seed ${seed}\n`);
  const progress = startProgress(flags.progress && !flags.json, runs);
  let outcome: FuzzOutcome;
  try {
    outcome = await fuzz(subject, {
      profile: flags.profile,
      tiers,
      level: flags.level,
      seed,
      ...(flags.path !== undefined ? { path: flags.path } : {}),
      runs,
      timeMs,
      requestTimeoutMs: guardMs,
      maxFindings,
      ignore: [...ignore, ...known.rules],
      known: known.rows,
      onCase: ({ cases, shrinks, findings }) => progress.update(cases, shrinks, findings),
    });
  } finally {
    progress.stop();
  }
  const replay = (finding: Finding) => replayCommand(positional, flags, tiers, seed, finding);
  if (flags.json) {
    const findings = outcome.findings.map((finding) => ({ ...finding, replay: replay(finding) }));
    process.stdout.write(
      JSON.stringify({
        seed,
        cases: outcome.cases,
        ms: outcome.ms,
        interrupted: outcome.interrupted,
        stopped: outcome.stopped,
        findings,
        ...(findings[0] ? { finding: findings[0] } : {}),
        setAside: outcome.setAside,
        knownKeys: outcome.knownKeys,
      }) + "\n",
    );
  } else {
    if (flags.known !== undefined) process.stderr.write(`${err("dim", `--known ${flags.known}:`)} ${knownLine(known, outcome.knownKeys)}\n`);
    process.stdout.write(describe(outcome, { level: flags.level, tiers, maxFindings }, replay));
  }
  if (outcome.findings.length > 0 && flags.save !== undefined) {
    const added = save(flags.save, outcome.findings.map((f) => f.row));
    process.stderr.write(`${err("dim", `appended ${added} row${added === 1 ? "" : "s"} to`)} ${flags.save}${added < outcome.findings.length ? err("dim", ` (${outcome.findings.length - added} already there)`) : ""}\n`);
  }
  return outcome.findings.length > 0 ? EXIT.failed : EXIT.ok;
}

/** A whole number in a range; undefined stays undefined (the option was not given). */
function intInRange(value: string | undefined, flag: string, range: { min: number; max: number }): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || n < range.min || n > range.max) throw new UsageError(`${flag}: ${JSON.stringify(value)} is not a whole number from ${range.min} to ${range.max}`);
  return n;
}

function ruleOf(text: string, where: string): Rule {
  try {
    return parseRule(text);
  } catch (error) {
    throw new UsageError(`${where}: ${(error as Error).message}; a rule is KIND[/SYMPTOM[/KEYWORDS]] (compile/accepts/format) or a keyword (format): see fuzz --help`);
  }
}

interface Known {
  rows: Row[];
  rules: Rule[];
}

/** --known FILE: corpus rows (--save), an earlier --json output, or rules one a line. */
function readKnown(file: string): Known {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`--known ${file}: ${(error as { code?: string }).code === "ENOENT" ? "no such file" : `cannot read: ${writeFailure(error)}`}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // not JSON: rules, one a line
    const rules = text
      .split("\n")
      .map((line, i) => [line.replace(/#.*/, "").trim(), i + 1] as const)
      .filter(([line]) => line !== "")
      .map(([line, n]) => ruleOf(line, `--known ${file}:${n}`));
    return { rows: [], rules };
  }
  if (Array.isArray(value)) return { rows: knownRows(file, value), rules: [] };
  const findings = (value as { findings?: unknown } | null)?.findings;
  if (Array.isArray(findings) && findings.every((f) => typeof (f as { key?: unknown } | null)?.key === "string")) {
    return { rows: [], rules: findings.map((f, i) => ruleOf((f as { key: string }).key, `--known ${file}: finding ${i + 1}`)) };
  }
  throw new UsageError(`--known ${file}: neither corpus rows (a JSON array, as --save writes) nor the --json output of fuzz (an object with "findings")`);
}

/** The rows of a --known file, each checked by the corpus's row schema (a row saved twice counts once). */
function knownRows(file: string, rows: unknown[]): Row[] {
  const byId = new Map<string, unknown>();
  for (const row of rows) byId.set(String((row as { id?: unknown } | null)?.id), row);
  const dir = mkdtempSync(join(tmpdir(), "tc-known-"));
  try {
    const name = basename(file).endsWith(".json") ? basename(file) : `${basename(file)}.json`;
    writeFileSync(join(dir, name), JSON.stringify([...byId.values()]));
    return loadCorpus(dir, { prefix: dirname(file) });
  } catch (error) {
    if (error instanceof CorpusError) throw new UsageError(`--known: ${error.message.split("\n")[0]}`);
    throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function knownLine(known: Known, keys: string[]): string {
  if (known.rows.length === 0) return `${known.rules.length} rule${known.rules.length === 1 ? "" : "s"} set aside`;
  const still = keys.length > 0 ? `, set aside: ${keys.join(" ")}` : "";
  return `${known.rows.length} row${known.rows.length === 1 ? "" : "s"}; the subject still fails ${keys.length} key${keys.length === 1 ? "" : "s"}${still}`;
}

/** The outcome in words: nothing found, or each finding: the case, what differed, how to replay it, and the row. */
function describe(outcome: FuzzOutcome, scoring: { level: Level; tiers: Tier[]; maxFindings: number }, replay: (finding: Finding) => string): string {
  const paint = paintFor(process.stdout);
  const seconds = (outcome.ms / 1000).toFixed(1);
  const rate = Math.round(outcome.cases / Math.max(outcome.ms / 1000, 0.001));
  const stop = { runs: "", time: " (stopped by --time)", findings: ` (stopped at --max-findings ${scoring.maxFindings})`, replay: " (a replay)" }[outcome.stopped];
  const aside = outcome.setAside.map(({ key, cases }) => `  set aside (--ignore, --known): ${key} in ${cases} case${cases === 1 ? "" : "s"}`);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (outcome.findings.length === 0) {
    const none = outcome.setAside.length > 0 ? "no new disagreement" : "no disagreement";
    return [`${paint("green", "✓")} ${none} with the reference in ${plural(outcome.cases, "case")}, ${seconds} s (${rate}/s)${stop}`, ...aside, ""].join("\n");
  }
  const lines = [`${paint("red", "✗")} ${plural(outcome.findings.length, "distinct disagreement")} with the reference in ${plural(outcome.cases, "case")}, ${seconds} s (${rate}/s)${stop}`];
  if (aside.length > 0) lines.push(...aside);
  for (const [i, f] of outcome.findings.entries()) {
    const more = f.seen > 1 ? `, and ${plural(f.seen - 1, "more case")} since` : "";
    lines.push("", `${paint("bold", `${i + 1}. ${f.key}`)}: after ${plural(f.after, "case")}${more}; shrunk in ${f.shrinks} steps to:`, "");
    lines.push(...caseLines(f.row).map((line) => `    ${line}`), "");
    if (f.status === "errored") lines.push(`  errored: ${f.error ?? "(no reason)"}`);
    else if (f.status === "passed") lines.push("  (the subject passes this case when it is run again: its answers change from run to run)");
    else {
      const check = firstFailure({ checks: f.checks } as Parameters<typeof firstFailure>[0], scoring);
      if (check) {
        lines.push(`  ${check.what}`);
        lines.push(`    expected: ${JSON.stringify(check.expected)}`);
        lines.push(`    actual:   ${JSON.stringify(check.actual)}`);
        if (check.note) lines.push(`    (${check.note})`);
      }
    }
    lines.push("", `  replay: ${replay(f)}`, "", `  as a corpus row (write its "why", then add it under conformance/corpus/${f.row.section}/ or pass it with --save):`, "");
    lines.push(`  ${JSON.stringify(f.row)}`);
  }
  if (outcome.stopped !== "replay") lines.push("", `  to look beyond ${outcome.findings.length > 1 ? "these" : "it"}: --ignore KEY (--ignore ${outcome.findings[0]!.key}), or --save FILE now and --known FILE next time`);
  lines.push("");
  return noWorkflowCommands(lines.join("\n")) + "\n";
}

/** The case in a few readable lines. */
function caseLines(row: Row): string[] {
  if (row.kind === "validate") return [`schema:   ${JSON.stringify(row.schema)}`, `argument: ${typeof row.instance === "string" ? row.instance : JSON.stringify(row.instance)}`];
  if (row.kind === "compile") return [`schema:   ${JSON.stringify(row.schema)} (the reference refuses it)`];
  return row.steps.map((step, i) => {
    const n = `${i + 1}.`;
    switch (step.op) {
      case "register":
        return `${n} register ${JSON.stringify(step.tool.name)} parameters ${step.tool.parametersText ?? "(none)"} ${JSON.stringify(step.tool.behavior)}`;
      case "call":
        return `${n} call ${JSON.stringify(step.call.name)} with ${JSON.stringify(step.call.arguments)}`;
      default:
        return `${n} ${step.op}`;
    }
  });
}

function replayCommand(positional: string | undefined, flags: FuzzFlags, tiers: Tier[], seed: number, finding: Finding): string {
  const words = ["tool-conformance", "fuzz"];
  if (flags.subject !== undefined) words.push("--subject", shellQuote(flags.subject));
  else if (flags.module !== undefined) words.push("--module", shellQuote(flags.module));
  else words.push(shellQuote(positional!));
  if (flags.profile !== "ag02") words.push("--profile", flags.profile);
  if (tiers.join() !== "core") words.push("--tier", tiers.join(","));
  if (flags.level !== "messages") words.push("--level", flags.level);
  words.push("--seed", String(seed));
  words.push("--path", finding.path);
  return words.join(" ");
}

/** The rows already in a --save file: a JSON array, or nothing yet. */
function readSaved(file: string): unknown[] {
  if (!existsSync(file)) return [];
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`--save ${file}: ${error instanceof SyntaxError ? "not JSON" : writeFailure(error)}; give a corpus file (a JSON array of rows) or a new file`);
  }
  if (!Array.isArray(value)) throw new UsageError(`--save ${file}: not a corpus file (a JSON array of rows)`);
  return value;
}

/** Appends rows in the corpus's layout, one row a line; a row whose id is already there is not added again. Returns how many were added. */
function save(file: string, found: Row[]): number {
  const rows = readSaved(file);
  const ids = new Set(rows.map((row) => (row as { id?: unknown } | null)?.id));
  const added = found.filter((row) => !ids.has(row.id));
  try {
    writeFileAtomic(file, `[\n${[...rows, ...added].map((r) => `  ${JSON.stringify(r)}`).join(",\n")}\n]\n`);
  } catch (error) {
    throw new UsageError(`--save ${file}: cannot write: ${writeFailure(error)}`);
  }
  return added.length;
}

interface Progress {
  update(cases: number, shrinks: number, findings: number): void;
  stop(): void;
}

function startProgress(wanted: boolean, total: number): Progress {
  if (!wanted || process.stderr.isTTY !== true || process.env.CI) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: "  fuzzing [{bar}] {value}/{total} cases{found}{phase}", hideCursor: true, clearOnComplete: true, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { found: "", phase: "" });
  return {
    update(cases, shrinks, findings) {
      bar.update(cases, { found: findings > 0 ? ` · ${findings} found` : "", phase: shrinks > 0 ? ` · shrinking (${shrinks})` : "" });
    },
    stop() {
      bar.stop();
    },
  };
}
