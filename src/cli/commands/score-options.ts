import { Option, type Command } from "commander";
import { LEVELS, TIERS, type Level, type ProfileName } from "../../corpus/rows.js";
import { REPORTERS } from "../../report/reporters/names.js";
import { VISIBILITIES, type Visibility } from "../../report/reporters/gradescope.js";
import { DEFAULT_LIMITS, formatSize, SANDBOX_MODES } from "../../subjects/sandbox/index.js";
import { formatWait, MAX_WAIT_MS, profileOption, withoutEmptyDefaults } from "../arguments.js";
import { MAX_CPU_SECONDS, MAX_PROCESSES, type SandboxFlags } from "../sandbox-options.js";
import { addScoringOptions, type ScoringFlags } from "../scoring-options.js";

// score's options: what each flag means, its range and its default (grade passes most of them through).

/** The most sessions a run opens at once: more only queue on the machine's cores and can outrun a subject's start. */
export const MAX_JOBS = 64;
/** The longest per-request timeout, ms (an hour): the harness's own guard adds 5 s and stays under setTimeout's limit. */
export const MAX_TIMEOUT_MS = 3_600_000;
/** The most cases --fresh generates: each case and its reference answer is held in memory for the run. */
export const MAX_FRESH = 100_000;
/** The most points --gradescope-points gives. */
export const MAX_POINTS = 1_000_000;


export interface ScoreFlags extends ScoringFlags, SandboxFlags {
  subject?: string;
  module?: string;
  label?: string;
  rerunBuild?: string;
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
  budget?: string;
  flag: string[];
  mcp?: string;
  mcpUrl?: string;
  mcpHeader: string[];
  mcpRun: string[];
  attempt?: string;
}

const collect = (value: string, previous: string[]) => [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];

/** The command with every option of score (the description, arguments and action are score.ts's). */
export function addScoreOptions(command: Command): Command {
  command
    .option("--subject <command>", "a command speaking the stdio protocol (conformance/PROTOCOL.md), run through the shell")
    .option("--module <path>", "a JavaScript module exporting the reference's API (compile, Registry, newTool, …), loaded in-process")
    .option("--mcp <command>", "an MCP server started by this command (stdio), scored with no adapter: only invalid arguments are sent (docs/mcp.md)")
    .option("--mcp-url <url>", "an MCP server reached over Streamable HTTP at this URL, scored with no adapter (docs/mcp.md)")
    .option("--mcp-run <tools>", "with --mcp or --mcp-url, only read-only tools (comma-separated, repeatable): these also get VALID calls, that run them, checking the acceptance side (3.0 an integer, inclusive bounds, lengths in code points, unanchored patterns, enum by value) as rows mcp-accept/TOOL/…; no other tool ever gets one, and annotations (readOnlyHint) are never trusted", collect, [])
    .addOption(new Option("--mcp-header <header>", 'with --mcp-url, a request header "NAME: VALUE" (a token); repeatable').argParser((value: string, previous: string[] = []) => [...previous, value]).default([]))
    .option("--label <name>", "the subject's name in reports (default: the command, module or built-in name); merge uses it")
    .option("--rerun-build <command>", "how the subject is built, put before each failing row's rerun command (`BUILD && tool-conformance score …`, absolute paths shown by their file names); grade gives its --build")
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
  // grade's own: the submission's content hash, so that each version of it gets generated cases of its own
  command.addOption(new Option("--attempt <hash>", "with --key and --fresh, what the seed is drawn from besides the key (grade sets it)").hideHelp());
  return withoutEmptyDefaults(addScoringOptions(command));
}
