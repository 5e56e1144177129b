// The seed's registry (sections 2.3 and 4), for the implementations whose library validates but
// has no registry (zod/, tv4/): written from the seed, every argument checked by the library's own
// compile. Copying one of those folders, copy this one beside it.
import { compareCodePoints } from "./glue.mjs";

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

class TimeoutError extends Error {}

/** The Registry class over `compile(schemaText) → { schema, validateJSON(text) → [{path, message}] }`, the library's. */
export function registryOver(compile) {
  return class Registry {
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
  };
}
