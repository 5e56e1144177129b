import cliProgress from "cli-progress";
import { Option, type Command } from "commander";
import { describe, knownLine } from "../../fuzz/outcome-text.js";
import { readKnown, readSaved, ruleOf, save } from "../../fuzz/files.js";
import { fuzz, type Finding, type FuzzOutcome } from "../../fuzz/fuzz.js";
import { shellQuote } from "../../report/reporters/text.js";
import { paintFor } from "../../report/reporters/terminal.js";
import { LEVELS, type Level, type ProfileName, type Tier } from "../../corpus/rows.js";
import { intInRange, newSeed, parseDuration, parseSeed, profileOption } from "../arguments.js";
import { EXIT, UsageError } from "../errors.js";
import { parseTiers } from "../arguments.js";
import { resolveSubject } from "../../harness/score-subject.js";
import { subjectSpecOf } from "../arguments.js";
import { SANDBOX_MODES } from "../../subjects/sandbox/index.js";
import { corpusOnlyFlags, fuzzMcpCommand, type FuzzMcpFlags } from "./fuzz-mcp.js";

// `tool-conformance fuzz`: differential fuzzing of a subject against the reference. Generated
// cases go to both; each distinct disagreement (by its key: KIND/SYMPTOM[/KEYWORDS]) is shrunk to
// a minimal case and printed as a corpus row, with the seed and path that replay it, until the
// budget ends or --max-findings are found. docs/fuzzing.md explains the generators and the keys.

/** fuzz's flags: those for any subject, and --mcp's (fuzz-mcp.ts). */
interface FuzzFlags extends FuzzMcpFlags {
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
      "differential fuzzing: generated schemas, arguments and registry sequences go to the subject and to the reference; every distinct disagreement (by its key, see --ignore) is shrunk to a minimal case and printed as a ready corpus row with the seed and path that replay it, until --runs, --time or --max-findings ends the search. With --mcp or --mcp-url, an MCP server's own tools get invalid calls only, each proven invalid by the reference before it is sent; a tool that runs (or crashes or hangs) on one is a finding, shrunk to the smallest invalid arguments it still runs on (docs/mcp.md). Exit 0 nothing found (or only findings set aside), 1 a disagreement or a finding, 2 usage error, 3 the subject could not start",
    )
    .argument("[subject]", 'built-in subject: "reference" or "mutant:sNN"')
    .option("--subject <command>", "a command speaking the stdio protocol (conformance/PROTOCOL.md), run through the shell")
    .option("--module <path>", "a JavaScript module exporting the reference's API, loaded in-process")
    .option("--mcp <command>", "an MCP server started by this command (stdio): its tools get invalid calls only (docs/mcp.md, \"Fuzzing a server\")")
    .option("--mcp-url <url>", "an MCP server reached over Streamable HTTP at this URL, fuzzed the same way")
    .addOption(new Option("--mcp-header <header>", 'with --mcp-url, a request header "NAME: VALUE" (a token); repeatable').argParser((value: string, previous: string[] = []) => [...previous, value]).default([]))
    .addOption(new Option("--sandbox <mode>", "how an --mcp command runs: none (as you) or bwrap (no network, its --submission folder only; docs/sandbox.md)").choices(SANDBOX_MODES).default("none"))
    .option("--submission <dir>", "the folder the --mcp command runs in; under --sandbox bwrap, the only folder it sees")
    .option("--sandbox-bind <path>", "under --sandbox bwrap, also show this folder or file, read-only; repeatable", collect, [])
    .option("--runtime <name>", "under --sandbox bwrap, show only what this runtime needs of /usr; repeatable", collect, [])
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
  if (flags.mcp !== undefined || flags.mcpUrl !== undefined || flags.mcpHeader.length > 0) return fuzzServer(positional, flags);
  const spec = subjectSpecOf(positional, flags);
  if (spec === undefined) throw new UsageError("give one subject: a built-in name (reference, mutant:sNN), --subject COMMAND or --module PATH");
  const tiers = parseTiers(flags.tier, ["core"]);
  const seed = flags.seed === undefined ? newSeed() : parseSeed(flags.seed);
  const runs = intInRange(flags.runs, "--runs", RANGES.runs.min, RANGES.runs.max)!;
  const timeMs = parseDuration(flags.time, "--time");
  if (timeMs > RANGES.timeMs.max) throw new UsageError(`--time: ${JSON.stringify(flags.time)} is longer than 24h`);
  const timeoutMs = intInRange(flags.timeout, "--timeout", RANGES.timeout.min, RANGES.timeout.max);
  const maxFindings = intInRange(flags.maxFindings, "--max-findings", RANGES.maxFindings.min, RANGES.maxFindings.max)!;
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

/** fuzz --mcp / --mcp-url: the budget flags as for any subject; the corpus's own flags do not apply. */
async function fuzzServer(positional: string | undefined, flags: FuzzFlags): Promise<number> {
  const others = [...corpusOnlyFlags(flags, positional), flags.subject !== undefined && "--subject", flags.module !== undefined && "--module"].filter((flag): flag is string => typeof flag === "string");
  if (others.length > 0) throw new UsageError(`${others.join(", ")} ${others.length === 1 ? "does" : "do"} not apply to an MCP server: its tools' own schemas give the calls`);
  const runs = intInRange(flags.runs, "--runs", RANGES.runs.min, RANGES.runs.max)!;
  const timeMs = parseDuration(flags.time, "--time");
  if (timeMs > RANGES.timeMs.max) throw new UsageError(`--time: ${JSON.stringify(flags.time)} is longer than 24h`);
  const timeoutMs = intInRange(flags.timeout, "--timeout", RANGES.timeout.min, RANGES.timeout.max);
  return fuzzMcpCommand(flags, {
    seed: flags.seed === undefined ? newSeed() : parseSeed(flags.seed),
    runs,
    timeMs,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    maxFindings: intInRange(flags.maxFindings, "--max-findings", RANGES.maxFindings.min, RANGES.maxFindings.max)!,
    ignore: (flags.ignore ?? []).map((text) => ruleOf(text, "--ignore")),
    progress: startProgress(flags.progress && !flags.json, runs, "calls"),
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

interface Progress {
  update(cases: number, shrinks: number, findings: number): void;
  stop(): void;
}

function startProgress(wanted: boolean, total: number, unit = "cases"): Progress {
  if (!wanted || process.stderr.isTTY !== true || process.env.CI) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `  fuzzing [{bar}] {value}/{total} ${unit}{found}{phase}`, hideCursor: true, clearOnComplete: true, fps: 5 },
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
