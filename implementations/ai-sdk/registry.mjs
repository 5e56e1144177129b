// The seed's contract (ag.02: Tool, Registry, Compile/ValidateJSON) on top of the Vercel AI SDK
// (npm `ai`), written the way its users write tools:
//
//   const tools = { get_weather: tool({ description, inputSchema: jsonSchema(schema), execute }) };
//   await generateText({ model, tools, prompt });
//
// and run the way an agent runs them: each call goes through `generateText` with a mock language
// model (MockLanguageModelV3 from `ai/test`, the one this version exports) whose response is the
// model's tool call, argument text included, so the SDK parses the text, validates it, executes the
// tool and builds the tool message exactly as in an agent step. Served over the harness protocol by
// the TypeScript template, unchanged:
//   node .build/typescript/adapter.mjs ./ai-sdk/registry.mjs   (from implementations/)
//
// What validates on this path (checked in node_modules/ai 6.0.x and @ai-sdk/provider-utils):
//   doParseToolCall: blank text -> safeValidateTypes({value: {}}), else safeParseJSON({text, schema}):
//   secure-json-parse (refuses malformed text and "__proto__"/"constructor.prototype" keys), then
//   safeValidateTypes, which calls the schema's `validate` if it has one. `jsonSchema(obj)` without
//   the `validate` option has none: the SDK then validates NOTHING; the JSON Schema is only sent to
//   the model. That is the library as it is, and what this glue keeps (no validate function added).
import { checkSubset, installedVersion, STRICT } from "../js-glue/glue.mjs";
import { generateText, tool, jsonSchema } from "ai";
import { MockLanguageModelV3 } from "ai/test";
// The AI SDK's own utility package (a dependency of `ai`, part of the SDK): the very parse +
// validation doParseToolCall runs on a tool call's text, used here for the compile/validate rows.
import { safeParseJSON } from "@ai-sdk/provider-utils";

export const NAME = "ai";
export const LANGUAGE = "javascript";
/** The installed `ai` version, read from its package.json at run time (never hard-coded). */
export const VERSION = installedVersion("ai");

/** What a tool throws to fail on purpose. The SDK turns any throw of `execute` into a tool-error. */
export class ToolError extends Error {}

// ---- STRICT_SUBSET=1 (checkSubset, js-glue/glue.mjs): the one check a user of jsonSchema() would add (off by default) ------------
// jsonSchema() accepts any value and checks nothing; a user who wants the seed's "refuse what you do
// not implement" walks the schema before handing it over. Off by default: the table shows the
// library as it is. (It refuses keywords; it adds no validator, so arguments stay unchecked.)

// ---- compile / validate: jsonSchema() and the SDK's parse of a tool call's text ------------------
export function compile(schemaText) {
  // a user's compile step: JSON.parse the text (its error is the refusal), then jsonSchema(), which
  // takes any value as it is
  const json = JSON.parse(schemaText);
  if (STRICT) checkSubset(json);
  const schema = jsonSchema(json);
  return {
    async validateJSON(text) {
      // safeParseJSON: secure JSON parse, then safeValidateTypes against the schema (which, without
      // a validate function, accepts every value)
      const r = await safeParseJSON({ text, schema });
      // the SDK's errors carry no location: every one is at the root, `$`, with the SDK's message
      return r.success ? [] : [{ path: "$", message: r.error.message }];
    },
  };
}

// ---- tools and the registry --------------------------------------------------------------------
/** A tool as AI SDK users write one: tool({description, inputSchema: jsonSchema(...), execute}).
 *  Schema text is JSON.parse'd (the SDK takes a parsed schema); blank text, "null" and no schema are
 *  read as {"type": "object"} (the seed's reading of a missing schema). */
export function newTool(name, description, schemaText, fn) {
  const parsed = schemaText === undefined || schemaText.trim() === "" ? null : JSON.parse(schemaText);
  const json = parsed === null ? { type: "object" } : parsed;
  if (STRICT) checkSubset(json);
  return {
    name,
    tool: tool({
      description,
      inputSchema: jsonSchema(json),
      // execute receives the SDK's parsed input, not the model's text: the tool's text is its
      // JSON serialization (key order kept, whitespace and number spellings not)
      execute: async (input, { abortSignal }) => String(await fn(JSON.stringify(input), abortSignal ?? new AbortController().signal)),
    }),
  };
}

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };

/** The AI SDK has no registry: an agent holds a ToolSet, a plain object from name to tool, and
 *  passes it to every generateText. So: register adds the tool under its name (no name check, and a
 *  second tool of a name replaces the first, as an object key does); names and definitions are what
 *  the SDK sends to the model. Each register makes a new object (never mutating one a call in flight
 *  holds), so concurrent calls and registrations need no lock in single-threaded JS. */
export class Registry {
  #tools = {};
  #timeoutMs;

  constructor(options = {}) {
    // timeoutMs: the generateText call's abortSignal (AbortSignal.timeout), the way an agent cuts a
    // step off; the SDK hands that signal to execute. None given: no deadline (the SDK has none).
    this.#timeoutMs = options.timeoutMs;
  }

  register(t) {
    // a computed key in an object literal: "__proto__" stays an own property, as in a literal ToolSet
    this.#tools = { ...this.#tools, [t.name]: t.tool };
  }

  /** The `tools` of the model call the SDK makes (LanguageModelV3CallOptions), in the SDK's order. */
  async #sent() {
    const model = new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] }) });
    await generateText({ model, tools: this.#tools, prompt: "list your tools" });
    return (model.doGenerateCalls[0].tools ?? []).filter((t) => t.type === "function");
  }

  async names() {
    return (await this.#sent()).map((t) => t.name);
  }

  async definitions() {
    return (await this.#sent()).map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.inputSchema }));
  }

  async call({ id, name, arguments: text }) {
    // the model's response: one tool call, its argument text as the model wrote it
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({ content: [{ type: "tool-call", toolCallId: id, toolName: name, input: text }], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] }),
    });
    const r = await generateText({ model, tools: this.#tools, prompt: "call the tool", ...(this.#timeoutMs === undefined ? {} : { abortSignal: AbortSignal.timeout(this.#timeoutMs) }) });
    // The tool message the SDK would send back to the model for this call (one step, default
    // stopWhen stepCountIs(1)): output {type: "text" | "json", value} or {type: "error-text" |
    // "error-json", value} for a tool-error (invalid input, unknown tool, execute threw).
    const part = r.response.messages.filter((m) => m.role === "tool").flatMap((m) => m.content).find((p) => p.type === "tool-result" && p.toolCallId === id);
    if (!part) throw new Error(`the SDK produced no tool result for call ${id}`); // a crash: reported as threw
    const out = part.output;
    const isError = out.type.startsWith("error");
    const content = typeof out.value === "string" ? out.value : JSON.stringify(out.value);
    return {
      callId: id,
      name,
      content,
      isError,
      // the SDK's error texts carry no "error: " prefix: the glue adds it when missing
      message: () => ({ role: "tool", tool_call_id: id, content: isError && !content.startsWith("error: ") ? `error: ${content}` : content }),
    };
  }
}
