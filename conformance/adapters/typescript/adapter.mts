// A stdio adapter for tool-conformance (conformance/PROTOCOL.md, version 1), for a TypeScript
// or JavaScript module with the reference's API. No dependencies (not even @types/node); Node 20+.
//
//   npx tsx adapter.mts ./src/index.ts         or, compiled:   node adapter.mjs ./dist/index.js
//
// An .mts file compiles to an ES module (.mjs) wherever it sits, in or out of a package.
// One JSON request a line on stdin, one reply a line on stdout; logs go to stderr, and so does
// whatever the module prints (console.log is safe: it shows in the report).
//
// Every call into the module is awaited: a synchronous and an asynchronous implementation (or a
// wrapper of a framework whose methods return promises) are served alike.
//
// What the module throws is its answer. compile and register refuse by throwing, except for the
// errors a bug throws (crashed, below); anything validateJSON, names, definitions or call throw is a
// crash. A crash is replied {"threw": "Type: message"}: the row fails, it is not errored.

/** A value, or a promise of it: what each method of the module may return. */
type Maybe<T> = T | Promise<T>;
/** What the module under test exports (the reference's API, the part the protocol needs). */
interface Implementation {
  compile(schemaText: string): Maybe<{ validateJSON(text: string): Maybe<{ path: string; message: string }[]> }>;
  Registry: new (options?: { timeoutMs?: number }) => Maybe<RegistryLike>;
  newTool(name: string, description: string, schemaText: string | undefined, fn: (args: string, signal: Signal) => Promise<string>): Maybe<unknown>;
  ToolError: new (message: string) => Error;
  /** Optional, for the report: the implementation's name, version and language. */
  NAME?: string;
  VERSION?: string;
  LANGUAGE?: string;
}
interface RegistryLike {
  register(tool: unknown): Maybe<Error | undefined>; // or throws
  names(): Maybe<string[]>;
  definitions(): Maybe<{ name: string; description?: string; parameters: unknown }[]>;
  call(call: { id: string; name: string; arguments: string }): Maybe<{ callId: string; name: string; content: string; isError: boolean; message(): Maybe<unknown> }>;
}
type Behavior = { kind: "echo" } | { kind: "reply" | "fail"; text: string } | { kind: "panic"; value: unknown } | { kind: "sleep"; ms: number; text: string } | { kind: "hang" };
type Request = { seq: number; cmd: string; [field: string]: any };

// The few Node globals and modules used, declared here so that no @types/node is needed.
interface Signal {
  addEventListener(type: "abort", listener: () => void): void;
}
declare const process: {
  argv: string[];
  stdin: unknown;
  stdout: { write(text: string, done?: () => void): boolean };
  stderr: { write(text: string): boolean };
  exit(code: number): never;
};
declare function setTimeout(done: () => void, ms: number): unknown;
declare function clearTimeout(timer: unknown): void;
/** A Node module, imported by a name the compiler does not resolve: typed by what is used of it. */
const builtin = (name: string): Promise<any> => import(name);
const { createInterface } = (await builtin("node:readline")) as { createInterface(options: { input: unknown; crlfDelay: number }): AsyncIterable<string> };
const { pathToFileURL } = (await builtin("node:url")) as { pathToFileURL(path: string): { href: string } };

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: adapter MODULE (the file that exports compile, Registry, newTool, ToolError)\n");
  process.exit(2);
}
// The replies keep the real stdout; what the module writes to stdout (console.log, process.stdout.write),
// at import or in a call, goes to stderr: it is its output in the report, never a line of the protocol.
const reply = process.stdout.write.bind(process.stdout) as (text: string, done?: () => void) => boolean;
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
const impl = (await import(pathToFileURL(file).href)) as Implementation;
let registry = await new impl.Registry();
let runs: Record<string, string[]> = {};

/** Resolves after ms, or rejects when the call is cancelled (its timeout). */
const sleep = (ms: number, signal: Signal) =>
  new Promise<void>((done, fail) => {
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    signal.addEventListener("abort", () => (clearTimeout(timer), fail(new Error("cancelled"))));
  });

async function toolOf(spec: { name: string; description: string; parameters: string | null; behavior: Behavior }): Promise<unknown> {
  const b = spec.behavior;
  return impl.newTool(spec.name, spec.description, spec.parameters ?? undefined, async (args, signal) => {
    (runs[spec.name] ??= []).push(args);
    if (b.kind === "echo") return args;
    if (b.kind === "reply") return b.text;
    if (b.kind === "fail") throw new impl.ToolError(b.text);
    if (b.kind === "panic") throw typeof b.value === "string" ? new Error(b.value) : b.value;
    await sleep(b.kind === "sleep" ? b.ms : Infinity, signal);
    return b.kind === "sleep" ? b.text : "";
  });
}

const refusal = (error: unknown) => ({ ok: false, error: error instanceof Error ? error.message : String(error) });
/** What compile or register throw when they crash rather than refuse: a stack overflow, a bug. */
const crashed = (error: unknown) => error instanceof RangeError || error instanceof TypeError || error instanceof ReferenceError;
/** The reply to a crash inside the implementation: its type and message, one line, never a stack. */
const threw = (error: unknown) => ({ threw: (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split("\n")[0] });

async function handle(req: Request): Promise<object> {
  switch (req.cmd) {
    case "start":
      return { ready: true, version: 1, implementation: { name: impl.NAME ?? "my-implementation", language: impl.LANGUAGE ?? "typescript", version: impl.VERSION ?? "0.0.0" }, profiles: ["ag02"], capabilities: ["validate", "registry", "concurrency"] };
    case "compile":
    case "validate": {
      let schema;
      try {
        schema = await impl.compile(req.schema);
      } catch (error) {
        return crashed(error) ? threw(error) : refusal(error);
      }
      if (req.cmd === "compile") return { ok: true };
      try {
        const errors = await schema.validateJSON(req.instance);
        return { ok: true, errors: errors.map((e) => ({ path: e.path, message: e.message })) };
      } catch (error) {
        return threw(error);
      }
    }
    case "registry":
      registry = await new impl.Registry(req.timeoutMs === undefined ? {} : { timeoutMs: req.timeoutMs });
      return { ok: true };
    case "register":
    case "names":
    case "definitions":
      return registryRequest(req);
    case "call":
      runs = {};
      return { ...(await registryRequest(req)), runs };
    case "concurrently":
      // every request started before any is awaited, as a parallel agent loop would
      runs = {};
      return { replies: await Promise.all(req.requests.map((r: Request) => registryRequest(r))), runs };
    case "stop":
      return { ok: true };
    default:
      return { errored: true, message: `unknown command ${JSON.stringify(req.cmd)}` };
  }
}

/** A register, names, definitions or call request's reply, without runs. */
async function registryRequest(req: Request): Promise<object> {
  if (req.cmd === "register") {
    try {
      const error = await registry.register(await toolOf(req.tool));
      return error ? refusal(error) : { ok: true };
    } catch (error) {
      return crashed(error) ? threw(error) : refusal(error);
    }
  }
  try {
    if (req.cmd === "names") return { names: await registry.names() };
    if (req.cmd === "definitions") return { definitions: await registry.definitions() };
    const r = await registry.call(req.call);
    return { result: { callId: r.callId, name: r.name, content: r.content, isError: r.isError }, message: await r.message() };
  } catch (error) {
    return threw(error); // names, definitions and call never throw
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  let req: Request | undefined;
  let answer: object;
  try {
    req = JSON.parse(line) as Request;
    answer = await handle(req);
  } catch (error) {
    answer = { errored: true, message: error instanceof Error ? error.message : String(error) };
  }
  reply(JSON.stringify({ seq: req?.seq ?? null, ...answer }) + "\n");
  if (req?.cmd === "stop") break;
}
reply("", () => process.exit(0));
