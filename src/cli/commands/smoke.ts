import { InvalidArgumentError, type Command } from "commander";
import type { Body } from "../../harness/protocol.js";
import { PROTOCOL_VERSION } from "../../harness/protocol.js";
import type { ProfileName } from "../../harness/rows.js";
import { profileOption } from "../arguments.js";
import { stdioSubject } from "../../harness/subjects/stdio.js";
import { describeImplementation, SubjectError, type Session } from "../../harness/subjects/subject.js";
import { EXIT } from "../errors.js";

// `smoke --subject "COMMAND"`: the first thing an adapter author runs. In about a second it
// checks that the adapter speaks the protocol (handshake, one compile, one validate, one
// registry round) and says precisely what is wrong when it does not.

const WEATHER = JSON.stringify({
  type: "object",
  properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", minimum: 1, maximum: 7 }, unit: { enum: ["c", "f"] } },
  required: ["city"],
  additionalProperties: false,
});
const WORKED_EXAMPLE = '{"days": "3", "unit": "kelvin", "country": "FR"}';
/** The lesson's own example: `{"a": {"b": [1, 2, "x"]}}` fails at /a/b/2. */
const LESSON_SCHEMA = JSON.stringify({ type: "object", properties: { a: { type: "object", properties: { b: { type: "array", items: { type: "number" } } } } } });
const LESSON_EXAMPLE = '{"a": {"b": [1, 2, "x"]}}';
/** What smoke asks each profile to validate, and the error paths it expects. */
const EXAMPLES: Record<ProfileName, { schema: string; instance: string; paths: string[]; what: string }> = {
  ag02: { schema: WEATHER, instance: WORKED_EXAMPLE, paths: ["$", "$", "$.days", "$.unit"], what: "the worked example gives its four errors, at the right paths, in order" },
  lesson: { schema: LESSON_SCHEMA, instance: LESSON_EXAMPLE, paths: ["/a/b/2"], what: "the lesson's example fails at /a/b/2" },
};
const VALID_CALL = '{"city":"Paris","days":3}';

interface Options {
  subject: string;
  profile: ProfileName;
  timeout: number;
  startTimeout: number;
}

export function register(program: Command): void {
  program
    .command("smoke")
    .description("check in a second that an adapter speaks the protocol: handshake, one compile, one validate, one registry round (exit 0 ok, 1 it answered wrongly, 3 it could not start)")
    .requiredOption("--subject <command>", 'the adapter\'s command line, run through the shell (e.g. "python3 adapter.py")')
    .addOption(profileOption("the profile to ask for: ag02 (default) or lesson (pointer is its older name)"))
    .option("--timeout <ms>", "how long to wait for each reply", milliseconds, 2000)
    .option("--start-timeout <ms>", "how long to wait for the process to start and answer the handshake", milliseconds, 10_000)
    .action(async (options: Options) => {
      process.exitCode = await smoke(options, (line) => process.stdout.write(line + "\n"));
    });
}

/** Runs the smoke check, printing one line per step; resolves to the exit code. */
export async function smoke(options: Options, print: (line: string) => void): Promise<number> {
  const started = performance.now();
  const subject = stdioSubject(options.subject, { timeoutMs: options.timeout, startTimeoutMs: options.startTimeout, maxRestarts: 0 });
  let session: Session;
  try {
    session = await subject.open(options.profile);
  } catch (error) {
    if (!(error instanceof SubjectError)) throw error;
    print(`FAIL  start     ${error.message}`);
    printStderr(error.stderr, print);
    print(`smoke: the subject could not start (exit ${EXIT.subject})`);
    return EXIT.subject;
  }
  const hello = session.hello;
  print(
    `ok    start     ${describeImplementation(hello.implementation)}, protocol ${PROTOCOL_VERSION}, profiles ${hello.profiles.join(", ")}, capabilities ${hello.capabilities.join(", ") || "none"}`,
  );
  const lesson = options.profile === "lesson";
  let failed = false;
  let warned = false;
  /** Sends one request; prints FAIL (protocol broken) or warn lines (answer differs from the spec). Returns the reply if it kept the protocol. */
  const step: Step = async (name, body, judge) => {
    let reply: Record<string, unknown>;
    try {
      reply = await session.send(body);
    } catch (error) {
      failed = true;
      print(`FAIL  ${name.padEnd(9)} ${error instanceof Error ? error.message : String(error)}`);
      const stderr = (error as { stderr?: unknown }).stderr;
      printStderr(typeof stderr === "string" ? stderr : session.stderrTail?.(), print);
      return undefined;
    }
    const notes = judge(reply);
    warned ||= notes.length > 0;
    for (const note of notes) print(`warn  ${name.padEnd(9)} ${note}`);
    return { reply, clean: notes.length === 0 };
  };
  const ok = (name: string, text: string) => print(`ok    ${name.padEnd(9)} ${text}`);

  try {
    const hasValidate = hello.capabilities.includes("validate");
    const hasRegistry = hello.capabilities.includes("registry");
    if (!hasValidate && !hasRegistry) {
      failed = true;
      print('FAIL  start     the subject announces neither the "validate" nor the "registry" capability: there is nothing to score');
    }
    if (hasValidate) {
      const example = EXAMPLES[options.profile];
      const compiled = await step("compile", { cmd: "compile", schema: example.schema }, (reply) =>
        reply.ok === true ? [] : [`the ${lesson ? "lesson's example" : "seed's get_weather"} schema was refused: ${String(reply.error)}`],
      );
      if (compiled?.clean) ok("compile", `the ${lesson ? "lesson's example" : "seed's get_weather"} schema compiles`);
      if (compiled) {
        const validated = await step("validate", { cmd: "validate", schema: example.schema, instance: example.instance }, (reply) => {
          if (reply.ok !== true) return [`the schema was refused: ${String(reply.error)}`];
          const paths = (reply.errors as { path: string }[]).map((e) => e.path);
          return sameList(paths, example.paths) ? [] : [`${example.instance} should give errors at ${JSON.stringify(example.paths)}, got ${JSON.stringify(paths)} (run score for the details)`];
        });
        if (validated?.clean) ok("validate", example.what);
      }
    } else {
      print('skip  validate  the subject does not announce the "validate" capability');
    }
    if (!hasRegistry) print('skip  registry  the subject does not announce the "registry" capability');
    else if (!failed && !lesson) await registryRound(step, ok, hello.capabilities.includes("concurrency"));
    if (lesson && !failed) {
      if (hello.capabilities.includes("records")) await recordsRound(step, ok);
      else print('skip  records   the subject does not announce the "records" capability (register with record fields, get, validate by name): the lesson profile\'s registry rows need it');
    }
  } finally {
    await session.close();
  }

  const ms = Math.round(performance.now() - started);
  if (failed) {
    print(`smoke: the subject answered wrongly: see FAIL above (exit ${EXIT.failed}, ${ms} ms)`);
    return EXIT.failed;
  }
  print(`smoke: ok: the subject speaks protocol ${PROTOCOL_VERSION}${warned ? "; its answers differ from the spec (warn above): run score" : ""} (${ms} ms)`);
  return EXIT.ok;
}

type Step = (name: string, body: Body, judge: (reply: Record<string, unknown>) => string[]) => Promise<{ reply: Record<string, unknown>; clean: boolean } | undefined>;

/** A fresh registry, one tool registered, one valid call: the tool runs once with the exact bytes. */
async function registryRound(step: Step, ok: (name: string, text: string) => void, concurrency: boolean): Promise<void> {
  if (!(await step("registry", { cmd: "registry" }, () => []))) return;
  const registered = await step(
    "register",
    { cmd: "register", tool: { name: "get_weather", description: "Get the weather forecast for a city", parameters: WEATHER, behavior: { kind: "echo" } } },
    (reply) => (reply.ok === true ? [] : [`the seed's get_weather tool was refused: ${String(reply.error)}`]),
  );
  if (!registered) return;
  const called = await step("call", { cmd: "call", call: { id: "call_1", name: "get_weather", arguments: VALID_CALL } }, (reply) => {
    if (typeof reply.threw === "string") return [`Call itself panicked or threw (it must return a Result): ${reply.threw}`];
    const result = reply.result as { isError: boolean; content: string; callId: string };
    const runs = (reply.runs as Record<string, string[]>).get_weather ?? [];
    const notes: string[] = [];
    if (result.isError) notes.push(`a valid call failed: ${result.content}`);
    else if (result.content !== VALID_CALL) notes.push(`the echo tool should answer its argument bytes ${JSON.stringify(VALID_CALL)}, got ${JSON.stringify(result.content)}`);
    if (!sameList(runs, [VALID_CALL])) notes.push(`the tool should run once with ${JSON.stringify(VALID_CALL)}; runs reports ${JSON.stringify(runs)}`);
    if (result.callId !== "call_1") notes.push(`the result answers call id ${JSON.stringify(result.callId)}, not "call_1"`);
    return notes;
  });
  if (called?.clean) ok("registry", "registry, register, call: the tool ran once with the exact argument bytes");
  if (!concurrency) return;
  const calls = ["{\"city\":\"Oslo\"}", "{\"city\":\"Lima\"}", "{\"city\":\"Pune\"}"];
  const batch = await step("parallel", { cmd: "concurrently", requests: calls.map((args, i) => ({ cmd: "call" as const, call: { id: `call_c${i}`, name: "get_weather", arguments: args } })) }, (reply) => {
    const replies = reply.replies as Record<string, unknown>[];
    if (replies.length !== calls.length) return [`${calls.length} requests got ${replies.length} replies`];
    const runs = ((reply.runs as Record<string, string[]>).get_weather ?? []).slice().sort();
    return sameList(runs, calls.slice().sort()) ? [] : [`three calls at once should run the tool once each; runs reports ${JSON.stringify(runs)}`];
  });
  if (batch?.clean) ok("parallel", "three calls at once: each ran once with its own arguments");
}

/** The lesson's registry: a record registered with its fields, read back with get, validate by name. */
async function recordsRound(step: Step, ok: (name: string, text: string) => void): Promise<void> {
  if (!(await step("registry", { cmd: "registry" }, () => []))) return;
  const tool = { name: "weather.current", description: "Current weather for a city", parameters: WEATHER, behavior: { kind: "echo" as const }, idempotent: true, timeoutMs: 2500, handler: "async" as const };
  const registered = await step("register", { cmd: "register", tool }, (reply) => (reply.ok === true ? [] : [`a tool named "weather.current" was refused: ${String(reply.error)}`]));
  if (!registered) return;
  const got = await step("get", { cmd: "get", name: "weather.current" }, (reply) => {
    if (reply.found !== true) return [`get("weather.current") raised: ${String(reply.error)}`];
    const record = reply.record as Record<string, unknown>;
    const wanted = { name: tool.name, description: tool.description, idempotent: true, timeoutMs: 2500, handler: "async" };
    const differ = Object.entries(wanted).filter(([field, value]) => record[field] !== value);
    return differ.map(([field, value]) => `get returns ${field} ${JSON.stringify(record[field])}, registered as ${JSON.stringify(value)}`);
  });
  if (got?.clean) ok("get", "the record comes back with every field as registered");
  const validated = await step("validate", { cmd: "validate", tool: "weather.current", instance: '{"city": 42}' }, (reply) => {
    if (reply.ok !== true) return [`validate("weather.current", …) raised: ${String(reply.error)}`];
    const errors = reply.errors as { path: string; expectedType?: string | null }[];
    return errors.length === 1 && errors[0]!.path === "/city" && errors[0]!.expectedType === "string"
      ? []
      : [`{"city": 42} should give one error at /city with expected_type string, got ${JSON.stringify(errors)}`];
  });
  if (validated?.clean) ok("validate", "validate by name: /city, with expected_type string");
}

function printStderr(stderr: string | undefined, print: (line: string) => void): void {
  const lines = (stderr ?? "").trimEnd().split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0) return;
  print("      the subject's stderr ends with:");
  for (const line of lines.slice(-8)) print(`      | ${line}`);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function milliseconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number of milliseconds");
  return n;
}
