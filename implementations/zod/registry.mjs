// The seed's contract (ag.02: Compile, ValidateJSON, a tool Registry) on top of zod 4 alone.
//
//   node .build/typescript/adapter.mjs ./zod/registry.mjs        (from implementations/)
//
// Served by the TypeScript adapter template, unchanged (conformance/adapters/typescript/adapter.mts).
//
// What is zod's: compile is `z.fromJSONSchema(schema)` (it throws on what it cannot express: that
// throw is the refusal), validation is `.safeParse(value)` and its issues (path arrays, codes,
// messages). What is glue (zod has no tool registry): JSON text parsing, rendering issue paths as
// the seed's `$` paths, the four worked-example messages worded the seed's way from the issue data,
// sorting, and a small registry written from the seed's section 2.3 / 4.
import { checkSubset, compareCodePoints, compareErrors, installedVersion, STRICT } from "../js-glue/glue.mjs";
import { z } from "zod";

export const NAME = "zod";
export const LANGUAGE = "javascript";
// The installed zod's version, read at run time (js-glue/glue.mjs).
export const VERSION = installedVersion("zod");

// STRICT_SUBSET=1 (js-glue/glue.mjs): zod's fromJSONSchema accepts keywords outside the subset
// (format, oneOf, $ref, not, ...) and enforces some of them; a careful user refuses them first.

/** zod's path array rendered as the seed's path: lossless, keys `.name`, indexes `[i]`. */
const renderPath = (segments) => "$" + segments.map((s) => (typeof s === "number" ? `[${s}]` : `.${String(s)}`)).join("");

/** The received value's JSON type (null, boolean, number, string, array, object), as zod's own message names it. */
const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
/** zod's `expected` names for the seed's type names ("int" is zod's integer). */
const ZOD_TYPE = { int: "integer", number: "number", string: "string", boolean: "boolean", array: "array", object: "object", null: "null" };

/**
 * One zod issue as the seed's errors. Only the four messages the seed's worked example spells out are
 * worded the seed's way, each from the issue's own data (code, expected, keys, values, input: zod reports
 * the input with `reportInput: true`); every other message is zod's `message`, unchanged.
 */
function errorsOf(issue) {
  const path = issue.path;
  // required: zod reports a missing property as invalid_type at the property, its input undefined
  // (no JSON value is undefined). The seed reports it at the object: the path's last key is the name.
  if (issue.code === "invalid_type" && issue.input === undefined && typeof path.at(-1) === "string") {
    return [{ path: renderPath(path.slice(0, -1)), message: `missing required property ${JSON.stringify(path.at(-1))}` }];
  }
  // type: zod's `expected` and the received value's JSON type; a zod type the seed has no name for keeps zod's message.
  if (issue.code === "invalid_type" && issue.input !== undefined && issue.expected in ZOD_TYPE) {
    return [{ path: renderPath(path), message: `expected ${ZOD_TYPE[issue.expected]}, got ${jsonType(issue.input)}` }];
  }
  // additionalProperties: false: one unrecognized_keys issue lists every extra key; the seed has one error per key.
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({ path: renderPath(path), message: `unexpected property ${JSON.stringify(key)}` }));
  }
  // enum: invalid_value carries the allowed values and (reportInput) the value.
  if (issue.code === "invalid_value" && Array.isArray(issue.values) && issue.input !== undefined) {
    return [{ path: renderPath(path), message: `${JSON.stringify(issue.input)} is not one of ${JSON.stringify(issue.values)}` }];
  }
  return [{ path: renderPath(path), message: issue.message }];
}

/** Compile(raw): parse the text, then zod's fromJSONSchema. Any throw is the refusal. */
export function compile(schemaText) {
  const schema = JSON.parse(schemaText); // not JSON: refused with JSON.parse's SyntaxError message
  if (STRICT) checkSubset(schema);
  const type = z.fromJSONSchema(schema);
  return {
    schema,
    /** ValidateJSON(raw): parse (text that does not parse is one error at $, as the seed says), then safeParse. */
    validateJSON(text) {
      let value;
      try {
        value = JSON.parse(text);
      } catch (error) {
        return [{ path: "$", message: `invalid JSON: ${error.message}` }];
      }
      const result = type.safeParse(value, { reportInput: true });
      if (result.success) return [];
      // Sorted by path then message: the seed's rule (zod's issue order is its own walk).
      return result.error.issues.flatMap(errorsOf).sort(compareErrors);
    },
  };
}

/** What a tool returns to fail on purpose (the seed's `return "", err`). Anything else thrown is a panic. */
export class ToolError extends Error {
  name = "ToolError";
}

/** New(name, description, schema, fn): a tool; a missing schema is compiled as {"type":"object"} at Register. */
export function newTool(name, description, schemaText, fn) {
  return { name, description: description ?? "", schemaText, fn };
}

const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

class Result {
  constructor(callId, name, content, isError) {
    Object.assign(this, { callId, name, content, isError });
  }
  /** The tool message answering the call: role tool, the call's id, content prefixed `error: ` on failure. */
  message() {
    return { role: "tool", tool_call_id: this.callId, content: this.isError ? `error: ${this.content}` : this.content };
  }
}

/** A thrown value as one line of text, never a stack trace (for the model's context). */
const describe = (value) => (value instanceof Error ? value.message : typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)));

export class Registry {
  #tools = new Map(); // name -> {tool, compiled, parameters}; JS runs one piece of code at a time, so no lock is needed
  #timeoutMs;
  constructor(options = {}) {
    this.#timeoutMs = options.timeoutMs; // undefined: no deadline
  }

  /** Register(t): name checked, duplicates refused, parameters compiled (blank or missing: {"type":"object"}) and an object schema. */
  register(tool) {
    if (typeof tool.name !== "string" || !NAME_PATTERN.test(tool.name)) return new Error(`invalid tool name ${JSON.stringify(tool.name)}: must match ${NAME_PATTERN.source}`);
    if (this.#tools.has(tool.name)) return new Error(`tool ${JSON.stringify(tool.name)} is already registered`);
    const text = tool.schemaText === undefined || tool.schemaText.trim() === "" || tool.schemaText.trim() === "null" ? '{"type":"object"}' : tool.schemaText;
    let compiled;
    try {
      compiled = compile(text);
    } catch (error) {
      return new Error(`tool ${JSON.stringify(tool.name)}: invalid parameters: ${describe(error)}`);
    }
    const s = compiled.schema;
    if (typeof s !== "object" || s === null || Array.isArray(s) || s.type !== "object") return new Error(`tool ${JSON.stringify(tool.name)}: parameters must have "type": "object"`);
    this.#tools.set(tool.name, { tool, compiled, parameters: text });
    return undefined;
  }

  names() {
    return [...this.#tools.keys()].sort(compareCodePoints);
  }

  /** Definitions sorted by name; parameters a fresh parse of the registered text each time. */
  definitions() {
    return this.names().map((name) => {
      const { tool, parameters } = this.#tools.get(name);
      return { name, description: tool.description, parameters: JSON.parse(parameters) };
    });
  }

  /** Call never throws: every failure is an error Result. */
  async call(call) {
    const fail = (content) => new Result(call.id, call.name, content, true);
    const entry = this.#tools.get(call.name);
    if (!entry) return fail(`unknown tool ${JSON.stringify(call.name)} (available: ${this.names().join(", ") || "none"})`);
    const args = typeof call.arguments !== "string" || call.arguments.trim() === "" ? "{}" : call.arguments; // empty means {}
    let errors;
    try {
      errors = entry.compiled.validateJSON(args);
    } catch (error) {
      return fail(`validating arguments for ${call.name} failed: ${describe(error)}`);
    }
    if (errors.length > 0) return fail([`invalid arguments for ${call.name}:`, ...errors.map((e) => `${e.path}: ${e.message}`)].join("\n"));
    const controller = new AbortController();
    let timer;
    try {
      const run = Promise.resolve().then(() => entry.tool.fn(args, controller.signal));
      const deadline =
        this.#timeoutMs === undefined
          ? new Promise(() => {})
          : new Promise((_, reject) => {
              timer = setTimeout(() => {
                controller.abort();
                reject(new TimeoutError());
              }, this.#timeoutMs);
            });
      const content = await Promise.race([run, deadline]);
      return new Result(call.id, call.name, String(content), false);
    } catch (error) {
      if (error instanceof TimeoutError) return fail(`tool ${call.name} timed out after ${this.#timeoutMs}ms`);
      if (error instanceof ToolError) return fail(`tool ${call.name} failed: ${error.message}`);
      return fail(`tool ${call.name} panicked: ${describe(error)}`); // recovered; no stack trace
    } finally {
      clearTimeout(timer);
    }
  }
}

class TimeoutError extends Error {}
