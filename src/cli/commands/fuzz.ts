import { existsSync, readFileSync } from "node:fs";
import cliProgress from "cli-progress";
import { Option, type Command } from "commander";
import { GENERATED_NOT_LESSON_CORE } from "../../fuzz/fresh.js";
import { fuzz, type Finding, type FuzzOutcome } from "../../fuzz/fuzz.js";
import { firstFailure } from "../../harness/outcome.js";
import { writeFileAtomic } from "../../harness/report.js";
import { noWorkflowCommands, shellQuote } from "../../harness/reporters/text.js";
import { paintFor } from "../../harness/reporters/terminal.js";
import { LEVELS, type Level, type ProfileName, type Row, type Tier } from "../../harness/rows.js";
import { newSeed, parseDuration, parseSeed, positiveInt, profileOption } from "../arguments.js";
import { EXIT, UsageError } from "../errors.js";
import { parseTiers, resolveSubject, writeFailure } from "./score.js";

// `tool-conformance fuzz`: differential fuzzing of a subject against the reference. Generated
// cases go to both; the first disagreement is shrunk to a minimal case and printed as a corpus
// row, with the seed and path that replay it. docs/fuzzing.md explains the generators.

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
  save?: string;
  json: boolean;
  progress: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];

export function register(program: Command): void {
  program
    .command("fuzz")
    .description(
      "differential fuzzing: generated schemas, arguments and registry sequences go to the subject and to the reference; the first disagreement is shrunk to a minimal case and printed as a ready corpus row with the seed and path that replay it. Exit 0 nothing found, 1 a disagreement, 2 usage error, 3 the subject could not start",
    )
    .argument("[subject]", 'built-in subject: "reference" or "mutant:sNN"')
    .option("--subject <command>", "a command speaking the stdio protocol (conformance/PROTOCOL.md), run through the shell")
    .option("--module <path>", "a JavaScript module exporting the reference's API, loaded in-process")
    .addOption(profileOption())
    .option("--tier <tiers>", "tiers compared: core (default: only what the spec fixes, in the domain every honest implementation handles); hardening widens the generators (numbers beyond float64, lone surrogates, duplicate keys, RE2-only patterns, timeouts)", collect, [])
    .addOption(new Option("--level <level>", "how strictly answers are compared").choices(LEVELS).default("messages"))
    .option("--seed <n>", "the random seed (default: a new one, printed so the run can be replayed)")
    .option("--path <path>", "replay one case of a previous run: give its --seed and the path it printed")
    .option("--runs <n>", "at most this many generated cases", "10000")
    .option("--time <duration>", "stop generating after this long: 30s, 2m, 500ms", "60s")
    .option("--timeout <ms>", "per-request timeout in ms (default 5000 for --subject, 10000 in-process)")
    .option("--save <file>", "append the found case, as a corpus row, to this JSON file (created if missing)")
    .option("--json", "print the outcome as one JSON object on stdout instead of text", false)
    .option("--no-progress", "no progress bar")
    .action(async (positional: string | undefined, flags: FuzzFlags) => {
      process.exitCode = await fuzzCommand(positional, flags);
    });
}

async function fuzzCommand(positional: string | undefined, flags: FuzzFlags): Promise<number> {
  const given = [positional !== undefined, flags.subject !== undefined, flags.module !== undefined].filter(Boolean).length;
  if (given !== 1) throw new UsageError("give one subject: a built-in name (reference, mutant:sNN), --subject COMMAND or --module PATH");
  const tiers = parseTiers(flags.tier, ["core"]);
  if (flags.profile === "lesson" && tiers.join() === "core") throw new UsageError(GENERATED_NOT_LESSON_CORE);
  const seed = flags.seed === undefined ? newSeed() : parseSeed(flags.seed);
  const runs = positiveInt(flags.runs, "--runs")!;
  const timeMs = parseDuration(flags.time, "--time");
  const timeoutMs = positiveInt(flags.timeout, "--timeout");
  if (flags.path !== undefined && !/^\d+(:\d+)*$/.test(flags.path)) throw new UsageError(`--path: ${JSON.stringify(flags.path)} is not a path printed by fuzz (numbers separated by colons)`);
  if (flags.path !== undefined && flags.seed === undefined) throw new UsageError("--path replays a case of a previous run: give that run's --seed too");
  if (flags.save !== undefined) readSaved(flags.save); // a file that cannot take the row should stop the run before it starts

  const { subject, guardMs } = await resolveSubject(positional, flags, timeoutMs);
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
      onCase: ({ cases, shrinks }) => progress.update(cases, shrinks),
    });
  } finally {
    progress.stop();
  }
  const replay = replayCommand(positional, flags, tiers, seed, outcome.finding);
  if (flags.json) {
    process.stdout.write(JSON.stringify({ seed, cases: outcome.cases, ms: outcome.ms, interrupted: outcome.interrupted, ...(outcome.finding ? { finding: { ...outcome.finding, replay } } : {}) }) + "\n");
  } else {
    process.stdout.write(describe(outcome, { level: flags.level, tiers }, replay));
  }
  if (outcome.finding && flags.save !== undefined) {
    save(flags.save, outcome.finding.row);
    process.stderr.write(`${err("dim", "appended the row to")} ${flags.save}\n`);
  }
  return outcome.finding ? EXIT.failed : EXIT.ok;
}

/** The outcome in words: nothing found, or the case, what differed, how to replay it, and the row. */
function describe(outcome: FuzzOutcome, scoring: { level: Level; tiers: Tier[] }, replay: string): string {
  const paint = paintFor(process.stdout);
  const seconds = (outcome.ms / 1000).toFixed(1);
  const rate = Math.round(outcome.cases / Math.max(outcome.ms / 1000, 0.001));
  if (!outcome.finding) {
    const stop = outcome.interrupted ? " (stopped by --time)" : "";
    return `${paint("green", "✓")} no disagreement with the reference in ${outcome.cases} cases, ${seconds} s (${rate}/s)${stop}\n`;
  }
  const f = outcome.finding;
  const lines = [`${paint("red", "✗")} the subject disagrees with the reference after ${outcome.cases} cases (${seconds} s); shrunk in ${f.shrinks} steps to:`, ""];
  lines.push(...caseLines(f.row).map((line) => `    ${line}`), "");
  if (f.status === "errored") lines.push(`  errored: ${f.error ?? "(no reason)"}`);
  else {
    const check = firstFailure({ checks: f.checks } as Parameters<typeof firstFailure>[0], scoring);
    if (check) {
      lines.push(`  ${check.what}`);
      lines.push(`    expected: ${JSON.stringify(check.expected)}`);
      lines.push(`    actual:   ${JSON.stringify(check.actual)}`);
      if (check.note) lines.push(`    (${check.note})`);
    }
  }
  lines.push("", `  replay: ${replay}`, "", `  as a corpus row (write its "why", then add it under conformance/corpus/${f.row.section}/ or pass it with --save):`, "");
  lines.push(`  ${JSON.stringify(f.row)}`, "");
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

function replayCommand(positional: string | undefined, flags: FuzzFlags, tiers: Tier[], seed: number, finding: Finding | undefined): string {
  const words = ["tool-conformance", "fuzz"];
  if (flags.subject !== undefined) words.push("--subject", shellQuote(flags.subject));
  else if (flags.module !== undefined) words.push("--module", shellQuote(flags.module));
  else words.push(shellQuote(positional!));
  if (flags.profile !== "ag02") words.push("--profile", flags.profile);
  if (tiers.join() !== "core") words.push("--tier", tiers.join(","));
  if (flags.level !== "messages") words.push("--level", flags.level);
  words.push("--seed", String(seed));
  if (finding) words.push("--path", finding.path);
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

/** Appends a row in the corpus's layout: one row a line. */
function save(file: string, row: Row): void {
  const rows = [...readSaved(file), row];
  try {
    writeFileAtomic(file, `[\n${rows.map((r) => `  ${JSON.stringify(r)}`).join(",\n")}\n]\n`);
  } catch (error) {
    throw new UsageError(`--save ${file}: cannot write: ${writeFailure(error)}`);
  }
}

interface Progress {
  update(cases: number, shrinks: number): void;
  stop(): void;
}

function startProgress(wanted: boolean, total: number): Progress {
  if (!wanted || process.stderr.isTTY !== true || process.env.CI) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: "  fuzzing [{bar}] {value}/{total} cases {phase}", hideCursor: true, clearOnComplete: true, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { phase: "" });
  return {
    update(cases, shrinks) {
      bar.update(cases, { phase: shrinks > 0 ? `· found one, shrinking (${shrinks})` : "" });
    },
    stop() {
      bar.stop();
    },
  };
}
