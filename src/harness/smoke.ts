import type { Body, ConcurrentBody } from "../subjects/protocol.js";
import { explainBatchReply } from "../subjects/protocol-schemas.js";
import { sameJson } from "../run/run-row.js";
import { ProtocolError } from "../subjects/subject.js";
import { PROTOCOL_VERSION } from "../subjects/protocol.js";
import type { ProfileName } from "../corpus/rows.js";
import { stdioSubject } from "../subjects/stdio.js";
import { describeImplementation, SubjectError, type Session } from "../subjects/subject.js";
import { EXIT } from "../errors.js";

// `smoke --subject "COMMAND"`: the first thing an adapter author runs. In about a second it
// checks that the adapter speaks the protocol: every command its capabilities promise is sent once
// (handshake, compile, validate; registry, register, names, definitions, call; concurrently; the
// lesson's get and validate by name), each reply is held to its schema in conformance/protocol/,
// and a broken one is named with what is wrong in it. Last, it probes the
// adapter's crash handling: a compile, a validate and a call nested 100000 deep, which a naive
// implementation crashes on. A normal answer or `threw` keeps the protocol (`threw` is a warning:
// the implementation's own wrong answer); a process that dies or an errored reply there is a FAIL.

const WEATHER = JSON.stringify({
  type: "object",
  properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", minimum: 1, maximum: 7 }, unit: { enum: ["c", "f"] } },
  required: ["city"],
  additionalProperties: false,
});
/** The same tool in the lesson's eight keywords only (no minimum, maximum, additionalProperties: those are not the lesson's). */
const LESSON_WEATHER = JSON.stringify({
  type: "object",
  properties: { city: { type: "string", minLength: 1, pattern: "^[A-Z]" }, days: { type: "integer" }, unit: { enum: ["c", "f"] }, tags: { type: "array", items: { type: "string", maxLength: 8 } } },
  required: ["city"],
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
/** How deep the crash probes nest: past any recursion limit (Python's is 1000; a JavaScript stack overflows well before). */
const DEEP = 100_000;
const DEEP_SCHEMA = `${'{"items":'.repeat(DEEP)}{}${"}".repeat(DEEP)}`;
const DEEP_ARGUMENT = `${"[".repeat(DEEP)}${"]".repeat(DEEP)}`;
/** What a crash probe's FAIL adds: how an adapter should answer a crash inside the implementation. */
const THREW_HINT =
  'a crash inside your implementation is its answer: recover (Go) or catch around the call into it and reply {"seq": N, "threw": "Type: message"} (PROTOCOL.md, threw); an errored reply or a dead process is the adapter failing';

export interface SmokeOptions {
  subject: string;
  profile: ProfileName;
  timeout: number;
  startTimeout: number;
}

/** Runs the smoke check, printing one line per step; resolves to the exit code. */
export async function smoke(options: SmokeOptions, print: (line: string) => void): Promise<number> {
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
  /**
   * Sends one request; prints FAIL (protocol broken: the session's schema check, or a ProtocolError
   * from `judge`) or warn lines (answer differs from the spec). Returns the reply if it kept the protocol.
   */
  const step: Step = async (name, body, judge, probe) => {
    const fail = (error: unknown) => {
      failed = true;
      print(`FAIL  ${name.padEnd(9)} ${probe ? `${probe.what}: ` : ""}${error instanceof Error ? error.message : String(error)}`);
      if (probe) print(`      ${probe.hint}`);
      const stderr = (error as { stderr?: unknown }).stderr;
      printStderr(typeof stderr === "string" ? stderr : session.stderrTail?.(), print);
      return undefined;
    };
    let reply: Record<string, unknown>;
    let notes: string[];
    try {
      reply = await session.send(body);
    } catch (error) {
      return fail(error);
    }
    try {
      notes = judge(reply);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      return fail(error);
    }
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
    const records = hello.capabilities.includes("records");
    let registered: string | undefined;
    if (!hasRegistry && !records) print('skip  registry  the subject does not announce the "registry" capability');
    else if (!failed) registered = await registryRound(step, ok, { lesson, records: lesson && records, concurrency: hello.capabilities.includes("concurrency") });
    if (lesson && !records && !failed) print('skip  records   the subject does not announce the "records" capability (register with record fields, get, validate by name): the lesson profile\'s registry rows need it');
    // last: a probe that kills a careless adapter leaves nothing after it untested
    if (!failed) await crashProbes(step, ok, hasValidate, registered);
  } finally {
    await session.close();
  }

  const ms = Math.round(performance.now() - started);
  if (failed) {
    print(`smoke: the subject answered wrongly: see FAIL above (exit ${EXIT.failed}, ${ms} ms)`);
    return EXIT.failed;
  }
  if (warned) {
    // it speaks the protocol, and answered wrongly all the same: 1, as the help says
    print(`smoke: the subject speaks protocol ${PROTOCOL_VERSION} and answered wrongly: see warn above, and run score for the details (exit ${EXIT.failed}, ${ms} ms)`);
    return EXIT.failed;
  }
  print(`smoke: ok: the subject speaks protocol ${PROTOCOL_VERSION} (${ms} ms)`);
  return EXIT.ok;
}

/** A crash probe: what it sends, and the hint its FAIL prints. */
interface Probe {
  what: string;
  hint: string;
}

type Step = (name: string, body: Body, judge: (reply: Record<string, unknown>) => string[], probe?: Probe) => Promise<{ reply: Record<string, unknown>; clean: boolean } | undefined>;

/**
 * Requests nested 100000 deep, which a naive implementation crashes on (Python's json.loads raises
 * RecursionError, a recursive JavaScript validator overflows its stack). Any answer keeps the
 * protocol: a normal one is ok, `threw` a warning (the implementation's wrong answer, its row
 * fails). A dead process or an errored reply is a FAIL: the adapter does not catch around the call.
 */
async function crashProbes(step: Step, ok: (name: string, text: string) => void, validate: boolean, registered: string | undefined): Promise<void> {
  const probe = (what: string): Probe => ({ what, hint: THREW_HINT });
  const crash = (what: string, reply: Record<string, unknown>) =>
    typeof reply.threw === "string" ? [`${what}: the implementation threw ${JSON.stringify(reply.threw.slice(0, 200))}: a wrong answer (its row fails), correctly reported`] : [];
  const answered = (name: string, what: string, done: { clean: boolean } | undefined, how: string) => {
    if (done?.clean) ok(name, `${what}: ${how}, no crash`);
  };
  if (validate) {
    const schema = `a schema nested ${DEEP} deep`;
    const compiled = await step("compile", { cmd: "compile", schema: DEEP_SCHEMA }, (reply) => crash(schema, reply), probe(schema));
    answered("compile", schema, compiled, compiled?.reply.ok === true ? "accepted" : "refused");
    if (!compiled) return;
    const argument = `an argument nested ${DEEP} deep`;
    const validated = await step("validate", { cmd: "validate", schema: '{"type":"object"}', instance: DEEP_ARGUMENT }, (reply) => crash(argument, reply), probe(argument));
    answered("validate", argument, validated, "answered");
    if (!validated) return;
  }
  if (registered !== undefined) {
    const call = `a call whose arguments nest ${DEEP} deep`;
    const called = await step("call", { cmd: "call", call: { id: "call_deep", name: registered, arguments: DEEP_ARGUMENT } }, (reply) => crash(call, reply), probe(call));
    answered("call", call, called, "answered with a Result");
  }
}

/** What the registry round may send: the lesson's tool, its record fields (get, validate by name: the lesson's alone), and `concurrently`. */
interface RegistryOptions {
  lesson: boolean;
  records: boolean;
  concurrency: boolean;
}

/**
 * A fresh registry, one tool registered, read back by names and definitions (and, with records, by
 * get and validate by name), one valid call: the tool runs once with the exact bytes; then, with
 * concurrency, a batch of calls, names and definitions at once. Resolves to the tool's name if it
 * was registered and the round kept the protocol.
 */
async function registryRound(step: Step, ok: (name: string, text: string) => void, options: RegistryOptions): Promise<string | undefined> {
  if (!(await step("registry", { cmd: "registry" }, () => []))) return undefined;
  const schema = options.lesson ? LESSON_WEATHER : WEATHER;
  const spec = options.lesson ? { name: "weather.current", description: "Current weather for a city" } : { name: "get_weather", description: "Get the weather forecast for a city" };
  const fields = options.records ? { idempotent: true, timeoutMs: 2500, handler: "async" as const } : {};
  const tool = { ...spec, parameters: schema, behavior: { kind: "echo" as const }, ...fields };
  const registered = await step("register", { cmd: "register", tool }, (reply) => (reply.ok === true ? [] : [`a tool named ${JSON.stringify(tool.name)} was refused: ${String(reply.error)}`]));
  if (!registered) return undefined;
  // a refused tool (warned above) leaves the registry empty
  const kept = registered.reply.ok === true ? [tool] : [];
  const listed = await step("names", { cmd: "names" }, (reply) => {
    if (typeof reply.threw === "string") return [`Names threw: ${reply.threw}`];
    const names = reply.names as string[];
    const wanted = kept.map((t) => t.name);
    return sameList(names, wanted) ? [] : [`names should be ${JSON.stringify(wanted)}, got ${JSON.stringify(names)}`];
  });
  if (listed?.clean) ok("names", "the tools registered, no more, no fewer");
  if (!listed) return undefined;
  const wanted = kept.map((t) => ({ name: t.name, description: t.description, parameters: JSON.parse(schema) as unknown }));
  const defined = await step("definitions", { cmd: "definitions" }, (reply) => {
    if (typeof reply.threw === "string") return [`Definitions threw: ${reply.threw}`];
    const definitions = reply.definitions; // a missing description already read as "" (the stdio subject)
    return sameJson(definitions, wanted) ? [] : [`definitions should be ${JSON.stringify(wanted)}, got ${JSON.stringify(definitions)}`];
  });
  if (defined?.clean) ok("definitions", "its name, description and parameters as registered");
  if (!defined) return undefined;
  if (options.records && !(await recordsChecks(step, ok, tool))) return undefined;
  const called = await step("call", { cmd: "call", call: { id: "call_1", name: tool.name, arguments: VALID_CALL } }, (reply) => {
    if (typeof reply.threw === "string") return [`Call itself panicked or threw (it must return a Result): ${reply.threw}`];
    const result = reply.result as { isError: boolean; content: string; callId: string };
    const runs = (reply.runs as Record<string, string[]>)[tool.name] ?? [];
    const notes: string[] = [];
    if (result.isError) notes.push(`a valid call failed: ${result.content}`);
    else if (result.content !== VALID_CALL) notes.push(`the echo tool should answer its argument bytes ${JSON.stringify(VALID_CALL)}, got ${JSON.stringify(result.content)}`);
    if (!sameList(runs, [VALID_CALL])) notes.push(`the tool should run once with ${JSON.stringify(VALID_CALL)}; runs reports ${JSON.stringify(runs)}`);
    if (result.callId !== "call_1") notes.push(`the result answers call id ${JSON.stringify(result.callId)}, not "call_1"`);
    return notes;
  });
  if (called?.clean) ok("registry", "registry, register, call: the tool ran once with the exact argument bytes");
  if (!called) return undefined;
  if (options.concurrency && !(await batchRound(step, ok, tool.name))) return undefined;
  return registered.reply.ok === true ? tool.name : undefined;
}

/** Three calls, names and definitions at once: each reply as its command's alone, each call run once. Resolves to whether it kept the protocol. */
async function batchRound(step: Step, ok: (name: string, text: string) => void, name: string): Promise<boolean> {
  const calls = ['{"city":"Oslo"}', '{"city":"Lima"}', '{"city":"Pune"}'];
  const requests: ConcurrentBody[] = [...calls.map((args, i) => ({ cmd: "call" as const, call: { id: `call_c${i}`, name, arguments: args } })), { cmd: "names" }, { cmd: "definitions" }];
  const batch = await step("parallel", { cmd: "concurrently", requests }, (reply) => {
    const replies = reply.replies as unknown[];
    if (replies.length !== requests.length) throw new ProtocolError(`the reply to "concurrently" has ${replies.length} replies to ${requests.length} requests`);
    const broken = requests.flatMap((request, i) => explainBatchReply(request.cmd, replies[i]).map((problem) => `reply ${i + 1} (${request.cmd}) ${problem}`));
    if (broken.length > 0) throw new ProtocolError(`the reply to "concurrently" breaks the protocol: ${broken.join("; ")}`);
    const runs = ((reply.runs as Record<string, string[]>)[name] ?? []).slice().sort();
    return sameList(runs, calls.slice().sort()) ? [] : [`three calls at once should run the tool once each; runs reports ${JSON.stringify(runs)}`];
  });
  if (batch?.clean) ok("parallel", "three calls, names and definitions at once: each call ran once with its own arguments");
  return batch !== undefined;
}

/** The lesson's records: the tool read back with get, every field as registered; validate by name. Resolves to whether both kept the protocol. */
async function recordsChecks(step: Step, ok: (name: string, text: string) => void, tool: { name: string; description: string }): Promise<boolean> {
  const got = await step("get", { cmd: "get", name: tool.name }, (reply) => {
    if (reply.found !== true) return [`get(${JSON.stringify(tool.name)}) raised: ${String(reply.error)}`];
    const record = reply.record as Record<string, unknown>;
    const wanted = { name: tool.name, description: tool.description, idempotent: true, timeoutMs: 2500, handler: "async" };
    const differ = Object.entries(wanted).filter(([field, value]) => record[field] !== value);
    return differ.map(([field, value]) => `get returns ${field} ${JSON.stringify(record[field])}, registered as ${JSON.stringify(value)}`);
  });
  if (got?.clean) ok("get", "the record comes back with every field as registered");
  if (!got) return false;
  const validated = await step("validate", { cmd: "validate", tool: tool.name, instance: '{"city": 42}' }, (reply) => {
    if (reply.ok !== true) return [`validate(${JSON.stringify(tool.name)}, …) raised: ${String(reply.error)}`];
    const errors = reply.errors as { path: string; expectedType?: string | null }[];
    return errors.length === 1 && errors[0]!.path === "/city" && errors[0]!.expectedType === "string"
      ? []
      : [`{"city": 42} should give one error at /city with expected_type string, got ${JSON.stringify(errors)}`];
  });
  if (validated?.clean) ok("validate", "validate by name: /city, with expected_type string");
  return validated !== undefined;
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
