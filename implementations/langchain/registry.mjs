// The seed's contract (ag.02: Compile, ValidateJSON, a tool Registry) on top of LangChain.js
// (@langchain/core), the way LangChain's users build tools and its agents run them.
//
//   node .build/typescript/adapter.mjs ./langchain/registry.mjs        (from implementations/)
//
// Served by the TypeScript adapter template, unchanged (conformance/adapters/typescript/adapter.mts).
//
// What LangChain provides, used as it is:
//   - the tool object: `tool(fn, {name, description, schema})` from @langchain/core/tools, with the
//     parsed JSON Schema as `schema` (LangChain accepts a JSON Schema as well as a zod one);
//   - argument validation: `tool.invoke(toolCall)` validates before running the function
//     (StructuredTool.call: @cfworker/json-schema's `validate(input, schema)` with its defaults,
//     draft 2019-09 and short circuit; for a tool without a schema or whose schema accepts only
//     strings, `tool()` builds a DynamicTool whose input is checked by LangChain's own zod schema);
//     a failure throws ToolInputParsingException;
//   - the answer: `invoke` with a ToolCall returns a ToolMessage (its content, tool_call_id, status);
//   - the raw call's parsing: `parseToolCall` (@langchain/core/output_parsers/openai_tools), what
//     LangChain's OpenAI integration does with a provider's {id, function: {name, arguments}};
//   - the definitions: `convertToOpenAITool(tool).function` ({name, description, parameters}), what
//     LangChain sends to a model;
//   - timeouts: the RunnableConfig `timeout` option of invoke (an AbortSignal the tool sees).
// What LangChain does not provide, so the glue has it:
//   - a registry: LangChain's agents take a plain list of tools (createAgent / ToolNode look a tool
//     up by name with `tools.find`). The glue keeps a Map, refuses a duplicate name (a list would
//     silently run the first), and sorts names and definitions by code point as the seed asks. It
//     does NOT check names against ^[A-Za-z0-9_-]{1,64}$ nor refuse non-object parameters:
//     LangChain does neither, so those rows show LangChain as it is.
//   - turning a failed invoke into a ToolMessage: that is the `langchain` package's ToolNode (the
//     agent of createAgent), not installed here; `agentToolMessage` below does what its runTool and
//     defaultHandleToolErrors do (langchain v1, libs/langchain/src/agents/nodes/ToolNode.ts).
//   - the seed's Result: content = the ToolMessage's content; isError = the agent took its error
//     path; the message's content gets `error: ` only if LangChain's text does not start with it.
import { checkSubset, compareCodePoints, compareErrors, installedVersion, STRICT } from "../js-glue/glue.mjs";
import { tool as lcTool, ToolInputParsingException } from "@langchain/core/tools";
import { ToolMessage } from "@langchain/core/messages";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { parseToolCall } from "@langchain/core/output_parsers/openai_tools";
import { isInteropZodSchema, interopSafeParseAsync } from "@langchain/core/utils/types";
// The exact function StructuredTool.call runs on a JSON Schema tool's input: LangChain's own
// dependency (node_modules/@langchain/core/dist/tools/index.js: `import { validate } from "@cfworker/json-schema"`).
import { validate } from "@cfworker/json-schema";

export const NAME = "langchain";
export const LANGUAGE = "javascript";
// @langchain/core's installed version, read at run time (js-glue/glue.mjs).
export const VERSION = installedVersion("@langchain/core", "@langchain/core/tools");

// STRICT_SUBSET=1 (js-glue/glue.mjs): LangChain accepts any JSON Schema (cfworker implements most of
// draft 2019-09, and ignores `format`); a careful user refuses what the seed does not support first.

/** A schema text as LangChain's `schema` field: parsed. No text, blank or `null` means no schema (LangChain then builds a DynamicTool). */
function parseSchema(schemaText) {
  if (schemaText === undefined || schemaText.trim() === "" || schemaText.trim() === "null") return undefined;
  const schema = JSON.parse(schemaText); // not JSON: the refusal is JSON.parse's SyntaxError
  if (STRICT) checkSubset(schema);
  return schema;
}

/** A LangChain tool around the adapter's fn(argsText, signal). */
function buildTool(name, description, schema, fn) {
  return lcTool(
    // LangChain hands the function the parsed (and, for a zod schema, transformed) input, never the
    // model's text; the adapter's behaviours take text, so the input is re-serialized here: a string
    // input (a DynamicTool's) as is, anything else as compact JSON. So a tool sees `3` for `3.0` and
    // loses the model's spacing: that is LangChain's call path, which keeps no raw text.
    async (input, config) => fn(typeof input === "string" ? input : (JSON.stringify(input) ?? ""), config?.signal ?? new AbortController().signal),
    { name, description, schema },
  );
}

// ---- compile / validate ---------------------------------------------------------------------

/** cfworker's "X does not match schema" summaries, each restating an error reported below it at the child. */
const SUMMARIES = new Set(["properties", "items", "additionalProperties", "prefixItems", "allOf", "$ref", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems", "dependentSchemas", "if", "then", "else"]);
/** An error from inside an anyOf branch (keywordLocation .../anyOf/N/...): cfworker reports the anyOf failure itself too. */
const insideAnyOfBranch = (keywordLocation) => /\/anyOf\/\d+\//.test(keywordLocation);

/** cfworker's instanceLocation (`#/tags/1`, URI-encoded JSON Pointer) as segments, indexes told apart by walking the value. */
function segmentsOf(instanceLocation, instance) {
  const tokens = instanceLocation.replace(/^#/, "").split("/").slice(1).map((t) => decodeURIComponent(t).replace(/~1/g, "/").replace(/~0/g, "~"));
  const segments = [];
  let value = instance;
  for (const token of tokens) {
    const index = Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(token);
    segments.push(index ? Number(token) : token);
    value = value == null ? undefined : value[index ? Number(token) : token];
  }
  return { segments, value };
}
const renderPath = (segments) => "$" + segments.map((s) => (typeof s === "number" ? `[${s}]` : `.${s}`)).join("");

/**
 * cfworker's errors (LangChain's tool validation) as the seed's. Summaries and anyOf-branch errors are
 * dropped (they restate the real error; LangChain itself shows the model none of them, see call below).
 * Only the four worked-example messages are worded the seed's way, each from cfworker's own error data
 * (its keyword, its text's quoted names, the value at its instance location); every other message is
 * cfworker's text, unchanged.
 */
function cfworkerErrors(errors, instance) {
  const out = [];
  for (const e of errors) {
    if (SUMMARIES.has(e.keyword) || insideAnyOfBranch(e.keywordLocation)) continue;
    const { segments, value } = segmentsOf(e.instanceLocation, instance);
    let message = e.error;
    let m;
    if (e.keyword === "false" && typeof segments.at(-1) === "string") {
      // additionalProperties: false: cfworker reports the extra property as a false schema at the property; the seed at the object.
      message = `unexpected property ${JSON.stringify(segments.pop())}`;
    } else if (e.keyword === "required" && (m = /required property "(.*)"\.$/.exec(e.error))) {
      message = `missing required property ${JSON.stringify(m[1])}`;
    } else if (e.keyword === "type" && (m = /^Instance type "(\w+)" is invalid\. Expected (.*)\.$/.exec(e.error))) {
      message = `expected ${[...m[2].matchAll(/"(\w+)"/g)].map((x) => x[1]).join(" or ")}, got ${m[1]}`;
    } else if (e.keyword === "enum" && (m = /^Instance does not match any of (.*)\.$/.exec(e.error))) {
      message = `${JSON.stringify(value)} is not one of ${m[1]}`;
    }
    out.push({ path: renderPath(segments), message });
  }
  return out;
}

/** zod issues (LangChain's own zod schema of a DynamicTool) as the seed's errors: path arrays rendered, zod's message. */
const zodErrors = (error) => (error?.issues ?? [{ path: [], message: String(error?.message ?? error) }]).map((i) => ({ path: renderPath(i.path), message: i.message }));

/**
 * Compile: what LangChain does with a schema before the first call: parse the text and build the tool
 * with it (`tool()` reads it to choose DynamicTool or DynamicStructuredTool). LangChain has no other
 * check, so almost every parsed schema is accepted.
 */
export function compile(schemaText) {
  const schema = JSON.parse(schemaText);
  if (STRICT) checkSubset(schema);
  const t = buildTool("compile", "", schema, async () => "");
  return {
    /**
     * ValidateJSON: the validation StructuredTool.call runs on the tool's input (dist/tools/index.js),
     * called the same way, so the verdict is LangChain's; the errors are the validator's own data
     * (LangChain's exception keeps only "Received tool input did not match expected schema").
     * Text that does not parse is one error at $: LangChain validates parsed values only.
     */
    async validateJSON(text) {
      let value;
      try {
        value = JSON.parse(text);
      } catch (error) {
        return [{ path: "$", message: `invalid JSON: ${error.message}` }];
      }
      let errors;
      if (isInteropZodSchema(t.schema)) {
        // A DynamicTool (no schema, or a strings-only one): Tool.call wraps a string or null input as {input}, then zod.
        const input = typeof value === "string" || value == null ? { input: value } : value;
        const result = await interopSafeParseAsync(t.schema, input);
        errors = result.success ? [] : zodErrors(result.error);
      } else {
        const result = validate(value, t.schema); // cfworker's defaults, exactly as LangChain calls it
        errors = result.valid ? [] : cfworkerErrors(result.errors, value);
      }
      return errors.sort(compareErrors); // the seed's order: by path, then message
    },
  };
}

// ---- tools and registry -----------------------------------------------------------------------

/** What a tool throws to fail on purpose. LangChain has no such distinction: its agent treats every throw alike. */
export class ToolError extends Error {
  name = "ToolError";
}

/** New(name, description, schema, fn): a LangChain tool. A schema text that does not parse throws (Register's refusal). */
export function newTool(name, description, schemaText, fn) {
  return buildTool(name, description, parseSchema(schemaText), fn);
}

class Result {
  constructor(callId, name, toolMessage, isError) {
    // content: the ToolMessage's content, LangChain's text (a string: every tool here returns one)
    const content = typeof toolMessage.content === "string" ? toolMessage.content : JSON.stringify(toolMessage.content);
    Object.assign(this, { callId, name, content, isError, toolMessage });
  }
  /** The ToolMessage as the seed's message: role tool, its tool_call_id, `error: ` added only if missing. */
  message() {
    const content = this.isError && !this.content.startsWith("error: ") ? `error: ${this.content}` : this.content;
    return { role: "tool", tool_call_id: this.toolMessage.tool_call_id, content };
  }
}

/**
 * What langchain v1's agent (createAgent's ToolNode, runTool + defaultHandleToolErrors) answers for a
 * call whose tool threw. Reproduced because the `langchain` package is not installed; the texts are
 * its own: a ToolInputParsingException becomes its ToolInvocationError, whose message carries the
 * exception's stack (LangChain's choice, against the seed's "never the stack trace"); any other error
 * becomes `${error}\n Please fix your mistakes.`. Neither ToolMessage gets status "error" there.
 */
function agentToolMessage(error, toolCall) {
  if (error instanceof ToolInputParsingException) {
    // The agent puts the whole stack in the text. Its frames name files of the machine it runs on,
    // so the glue keeps the stack's first line and marks where the frames were: the text is then the
    // same on every machine (the public table is compared in CI), and still shows that a stack is sent.
    const stack = error instanceof Error ? `${String(error.stack).split("\n")[0]}\n    at … (the stack's frames)` : String(error);
    const content = `Error invoking tool '${toolCall.name}' with kwargs ${JSON.stringify(toolCall.args)} with error: ${stack}\n Please fix the error and try again.`;
    return new ToolMessage({ content, tool_call_id: toolCall.id, name: toolCall.name });
  }
  return new ToolMessage({ content: `${error}\n Please fix your mistakes.`, tool_call_id: toolCall.id, name: toolCall.name });
}

export class Registry {
  #tools = new Map(); // name -> LangChain tool. JS runs one piece of code at a time: no lock needed.
  #timeoutMs;
  constructor(options = {}) {
    this.#timeoutMs = options.timeoutMs; // undefined: no timeout (LangChain's default)
  }

  /** Glue: LangChain has no registry. A duplicate name is refused; nothing else is checked (LangChain checks nothing). */
  register(t) {
    if (this.#tools.has(t.name)) return new Error(`tool ${JSON.stringify(t.name)} is already registered`);
    this.#tools.set(t.name, t);
    return undefined;
  }

  names() {
    return [...this.#tools.keys()].sort(compareCodePoints);
  }

  /** What LangChain sends a model: convertToOpenAITool(tool).function, in name order, fresh copies. */
  definitions() {
    return this.names().map((name) => {
      const { function: f } = convertToOpenAITool(this.#tools.get(name));
      return structuredClone({ name: f.name, description: f.description ?? "", parameters: f.parameters });
    });
  }

  /** A provider's raw call, through LangChain's parse, its agent's lookup, invoke and error handling. Never throws. */
  async call(call) {
    // 1. The raw call as LangChain's OpenAI integration reads it. Text that is not JSON (empty text
    //    included: LangChain does not read "" as {}) throws; LangChain then files it under the AI
    //    message's invalid_tool_calls with that error text, and its agent never answers it. The seed
    //    must answer, so the glue answers with LangChain's error text.
    let toolCall;
    try {
      toolCall = parseToolCall({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }, { returnId: true });
    } catch (error) {
      const message = new ToolMessage({ content: String(error?.message ?? error), tool_call_id: call.id, name: call.name, status: "error" });
      return new Result(call.id, call.name, message, true);
    }
    // 2. ToolNode's lookup: an unknown name is a ToolMessage with status "error" and LangChain's text.
    const t = this.#tools.get(toolCall.name);
    if (!t) {
      const content = `Error: ${toolCall.name} is not a valid tool, try one of [${[...this.#tools.keys()].join(", ")}].`;
      return new Result(call.id, call.name, new ToolMessage({ content, tool_call_id: call.id, name: call.name, status: "error" }), true);
    }
    // 3. invoke with the ToolCall, as ToolNode does; LangChain's `timeout` option cancels it.
    try {
      const config = this.#timeoutMs === undefined ? {} : { timeout: this.#timeoutMs };
      const output = await t.invoke({ ...toolCall, type: "tool_call" }, config);
      const message = ToolMessage.isInstance(output) ? output : new ToolMessage({ name: t.name, content: typeof output === "string" ? output : JSON.stringify(output), tool_call_id: call.id });
      return new Result(call.id, call.name, message, message.status === "error");
    } catch (error) {
      // 4. The agent's error path: isError is true because the agent took it (its message has no status).
      return new Result(call.id, call.name, agentToolMessage(error, toolCall), true);
    }
  }
}
