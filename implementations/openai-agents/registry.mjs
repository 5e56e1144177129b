// The seed's contract (ag.02: Tool, Registry, Compile/ValidateJSON) on top of the OpenAI Agents SDK
// for JavaScript (npm `@openai/agents-core`), written the way its users write tools:
//
//   const getWeather = tool({ name, description, parameters: jsonSchema, strict: false, execute });
//   const agent = new Agent({ name, model, tools: [getWeather] });
//   await new Runner().run(agent, input);
//
// and run the way an agent runs them: each call is a Runner.run of an Agent whose model is a fake
// Model of this file (no provider, no API key, no network) answering the run's first turn with the
// model's function call, argument text as the model wrote it; the SDK resolves the tool, parses the
// text, executes the tool and builds the function_call_result exactly as in an agent turn, and the
// fake model reads that result in the next turn's input, where the real model would. Served over the
// harness protocol by the TypeScript template, unchanged:
//   node .build/typescript/adapter.mjs ./openai-agents/registry.mjs   (from implementations/)
//
// What validates on this path (read in node_modules/@openai/agents-core/dist, 0.14.x):
//   tool() with a plain JSON Schema object and `strict: false` keeps the schema as it is and parses a
//   call's text with JSON.parse, nothing else (utils/tools.mjs, getSchemaAndParserFromInputType): the
//   schema is only sent to the model. `strict: true` (the default) instead rewrites the schema to
//   OpenAI's strict subset (every property required, optional ones made nullable,
//   additionalProperties forced to false; a typeless schema with properties is refused) and drops
//   the nulls of optional properties from the parsed value: still no validation, and a schema that
//   means something else. So `strict: false` is what a user with an arbitrary JSON Schema must use.
import { checkSubset, installedVersion, STRICT } from "../js-glue/glue.mjs";
import { Agent, Runner, setTracingDisabled, tool, Usage } from "@openai/agents-core";

// Tracing off, before anything runs. The SDK's switch (also OPENAI_AGENTS_DISABLE_TRACING=1); the
// core package's only exporter writes to the console, and none may run here. The Runner below is
// also built with tracingDisabled.
setTracingDisabled(true);

export const NAME = "@openai/agents-core";
export const LANGUAGE = "javascript";
/** The installed SDK's version, read from its package.json at run time (never hard-coded). */
export const VERSION = installedVersion("@openai/agents-core");

/** What a tool throws to fail on purpose. The SDK catches every throw of `execute` alike. */
export class ToolError extends Error {}

// ---- STRICT_SUBSET=1 (checkSubset, js-glue/glue.mjs): off by default ------------------------------
// tool() takes any object as a schema and checks nothing; a user who wants the seed's "refuse what
// you do not implement" walks the schema first. It refuses keywords; it adds no validator.

/** A schema text as the SDK takes it (parsed): blank, "null" and none mean {"type": "object"}. */
function parametersOf(schemaText) {
  const parsed = schemaText === undefined || schemaText.trim() === "" ? null : JSON.parse(schemaText);
  return parsed === null ? { type: "object" } : parsed;
}

/** A FunctionTool as users write one. `execute` gets the SDK's parsed input, not the model's text:
 *  the tool's text is its JSON serialization (key order kept, whitespace and number spellings not).
 *  timeoutMs is tool()'s own option; the SDK aborts details.signal when it passes. */
function functionTool(name, description, parameters, fn, timeoutMs) {
  return tool({
    name,
    description,
    parameters,
    strict: false, // see the head of this file
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute: async (input, _context, details) => String(await fn(JSON.stringify(input), details?.signal ?? new AbortController().signal)),
  });
}

// ---- the fake model and one agent turn ----------------------------------------------------------
const runner = new Runner({ tracingDisabled: true });

/** A Model (the SDK's interface: getResponse, getStreamedResponse): first turn, the given output
 *  items; every later turn, a final assistant message. It keeps every request the SDK sent it. */
class FakeModel {
  requests = [];
  constructor(firstTurn) {
    this.firstTurn = firstTurn;
  }
  async getResponse(request) {
    this.requests.push(request);
    const output = this.requests.length === 1 && this.firstTurn.length > 0 ? this.firstTurn : [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] }];
    return { usage: new Usage(), output, responseId: `response_${this.requests.length}` };
  }
  async *getStreamedResponse() {
    throw new Error("the fake model does not stream: runs here are not streamed");
  }
}

/** One Runner.run of an agent holding `tools`, its model answering first with `firstTurn`. */
async function turn(tools, firstTurn) {
  const model = new FakeModel(firstTurn);
  const agent = new Agent({ name: "agent", instructions: "Use the tools.", model, tools });
  await runner.run(agent, "go");
  return model.requests;
}

/** The function tools the SDK sends to the model (ModelRequest.tools), in the SDK's order. */
async function sentTools(tools) {
  const [first] = await turn(tools, []);
  return first.tools.filter((t) => t.type === "function");
}

/** The model's function call run as an agent turn: the function_call_result the SDK gives the model. */
async function callThrough(tools, id, name, text) {
  const requests = await turn(tools, [{ type: "function_call", callId: id, name, arguments: text, status: "completed" }]);
  const item = requests.slice(1).flatMap((r) => (Array.isArray(r.input) ? r.input : [])).find((i) => i.type === "function_call_result" && i.callId === id);
  if (!item) throw new Error(`the SDK gave the model no function_call_result for call ${id}`); // reported as threw
  const out = item.output;
  return typeof out === "string" ? out : out?.type === "text" ? out.text : JSON.stringify(out);
}

// ---- compile / validate: what the SDK lets through to `execute` ---------------------------------
export function compile(schemaText) {
  // a user's compile step: JSON.parse the text (its error is the refusal), then tool(), which
  // refuses a schema that is not an object (UserError) and keeps any object as it is
  const json = JSON.parse(schemaText);
  if (STRICT) checkSubset(json);
  functionTool("validate", "", json, async () => "ok");
  return {
    async validateJSON(text) {
      // the call path: the arguments are valid when the SDK runs the tool on them; otherwise the
      // function_call_result the model would read is the one error, at the root (no location)
      let reached = false;
      const probe = functionTool("validate", "", json, async () => ((reached = true), "ok"));
      const content = await callThrough([probe], "validate_call", "validate", text);
      return reached ? [] : [{ path: "$", message: content }];
    },
  };
}

// ---- tools and the registry --------------------------------------------------------------------
/** New(name, description, schema, fn). The FunctionTool is made at register, where the registry's
 *  call timeout is known (tool()'s timeoutMs); the schema text is parsed there too. */
export function newTool(name, description, schemaText, fn) {
  return { name, description: description ?? "", schemaText, fn };
}

/** The SDK has no registry: an agent holds a list of tools, `new Agent({tools})`. So register
 *  appends tool(...) to that list: tool() maps the name (every character outside [a-zA-Z0-9] becomes
 *  `_`; an empty name falls back to the execute function's name) and refuses only a schema that is
 *  not an object; two tools of one name are both kept, and the Runner decides at each turn
 *  (toolNameCollisionPolicy "warn", its default: a warning, and only the last is exposed and called).
 *  Names and definitions are what the SDK sends to the model. Each register makes a new list (never
 *  mutating one a run in flight holds), so concurrent calls need no lock in single-threaded JS. */
export class Registry {
  #tools = [];
  #timeoutMs;

  constructor(options = {}) {
    // timeoutMs: tool()'s own per-tool timeout (its default timeoutBehavior "error_as_result": the
    // model reads "Tool 'NAME' timed out after Nms."). None given: no deadline (the SDK sets none).
    this.#timeoutMs = options.timeoutMs;
  }

  register(t) {
    const parameters = parametersOf(t.schemaText); // not JSON: refused with JSON.parse's message
    if (STRICT) checkSubset(parameters);
    this.#tools = [...this.#tools, functionTool(t.name, t.description, parameters, t.fn, this.#timeoutMs)];
  }

  async names() {
    return (await sentTools(this.#tools)).map((t) => t.name);
  }

  async definitions() {
    return (await sentTools(this.#tools)).map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.parameters }));
  }

  async call({ id, name, arguments: text }) {
    // Runner.run's defaults: an unknown name throws ModelBehaviorError out of run() (its
    // toolNotFoundBehavior "raise_error"): the adapter reports that as threw.
    const content = await callThrough(this.#tools, id, name, text);
    // The function_call_result the SDK builds carries no failure mark: invalid JSON, a tool that
    // threw and a timeout are each a text with status "completed", like any output. So the Result
    // is never an error, and its message is the SDK's text as the model reads it.
    return { callId: id, name, content, isError: false, message: () => ({ role: "tool", tool_call_id: id, content }) };
  }
}
