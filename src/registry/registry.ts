import { compareCodePoints } from "../json/value.js";
import { compile, SchemaError, type Schema, type ValidationError } from "../schema/compile.js";
import { messages } from "../schema/messages.js";
import { compareErrors, renderPath, type PathStyle } from "../schema/path.js";
import { DOTTED_NAME_PATTERN, NAME_PATTERN } from "./names.js";
import { Result } from "./result.js";
import { parametersText, ToolError, type Tool } from "./tool.js";
import type { ToolCall, ToolDef } from "./wire.js";

export type Profile = "ag02" | "pointer";

export interface RegistryOptions {
  /** A call whose tool has not finished by then fails and its signal aborts. Default 30 s. */
  timeoutMs?: number;
  /** `ag02` (default) or `pointer`: JSON Pointer paths, registration-order names, dotted names. */
  profile?: Profile;
}

export interface RegisterOptions {
  /** Pointer profile only: replace a tool of the same name instead of refusing it. */
  override?: boolean;
}

interface Entry {
  readonly tool: Tool;
  readonly schema: Schema;
  readonly description: string;
  readonly parametersText: string;
}

/** The tools an agent can call. Safe for concurrent calls; `call` never throws or rejects. */
export class Registry {
  private readonly entries = new Map<string, Entry>();
  private readonly timeoutMs: number;
  private readonly profile: Profile;

  constructor(options: RegistryOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.profile = options.profile ?? "ag02";
  }

  /** Adds a tool, or returns why it cannot be added (the registry is then unchanged). */
  register(tool: Tool, options: RegisterOptions = {}): Error | undefined {
    const { name, description } = tool.definition();
    const pattern = this.profile === "pointer" ? DOTTED_NAME_PATTERN : NAME_PATTERN;
    if (typeof name !== "string" || !pattern.test(name)) return new Error(messages.badName(String(name), pattern.source));
    const replacing = this.profile === "pointer" && options.override === true;
    if (this.entries.has(name) && !replacing) return new Error(messages.duplicateTool(name));
    const text = parametersText(tool);
    let schema: Schema;
    try {
      schema = compile(text);
    } catch (error) {
      if (error instanceof SchemaError) return new Error(messages.badParameters(name, error.message));
      throw error;
    }
    if (!declaresObject(text)) return new Error(messages.notObjectParameters(name));
    this.entries.set(name, { tool, schema, description: String(description ?? ""), parametersText: text });
    return undefined;
  }

  /** Registers every tool, throwing on the first that cannot be added (for setup code). */
  mustRegister(...tools: Tool[]): this {
    for (const tool of tools) {
      const error = this.register(tool);
      if (error) throw error;
    }
    return this;
  }

  get(name: string): Tool | undefined {
    return this.entries.get(name)?.tool;
  }

  /** Tool names, sorted (the pointer profile keeps registration order). */
  names(): string[] {
    const names = [...this.entries.keys()];
    return this.profile === "pointer" ? names : names.sort(compareCodePoints);
  }

  /** Definitions sorted by name, so the prompt is the same bytes on every run. Fresh copies each time. */
  definitions(): ToolDef[] {
    return [...this.entries.keys()].sort(compareCodePoints).map((name) => {
      const entry = this.entries.get(name)!;
      return { name, description: entry.description, parameters: JSON.parse(entry.parametersText) };
    });
  }

  /** Validates and runs one call. Always resolves to a Result; every failure is an error result. */
  async call(call: ToolCall): Promise<Result> {
    const fail = (content: string) => new Result(call.id, call.name, content, true);
    const entry = this.entries.get(call.name);
    if (!entry) return fail(messages.unknownTool(call.name, this.names().sort(compareCodePoints)));
    // some providers send "" for a call without parameters
    const text = typeof call.arguments === "string" ? call.arguments : "";
    const args = text.trim() === "" ? "{}" : text;
    const errors = entry.schema.validateJSON(args);
    if (errors.length > 0) return fail(messages.invalidArguments(call.name, this.render(errors)));
    const outcome = await runGuarded(entry.tool, args, this.timeoutMs);
    switch (outcome.kind) {
      case "ok":
        return new Result(call.id, call.name, outcome.content, false);
      case "error":
        return fail(messages.toolFailed(call.name, outcome.reason));
      case "panic":
        return fail(messages.toolPanicked(call.name, outcome.reason));
      case "timeout":
        return fail(messages.toolTimedOut(call.name, this.timeoutMs));
    }
  }

  private render(errors: ValidationError[]): string[] {
    const style: PathStyle = this.profile === "pointer" ? "pointer" : "dollar";
    return errors
      .map((error) => ({ path: renderPath(error.segments, style), message: error.message }))
      .sort(compareErrors)
      .map((error) => `${error.path}: ${error.message}`);
  }
}

type Outcome =
  | { kind: "ok"; content: string }
  | { kind: "error" | "panic"; reason: string }
  | { kind: "timeout" };

/** Runs the tool so that nothing it does (throw, reject, hang) escapes: the recover around Execute. */
async function runGuarded(tool: Tool, args: string, timeoutMs: number): Promise<Outcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), timeoutMs);
  });
  const run = (async (): Promise<Outcome> => {
    try {
      const content = await tool.execute(args, controller.signal);
      return { kind: "ok", content: String(content) };
    } catch (thrown) {
      if (thrown instanceof ToolError) return { kind: "error", reason: thrown.message };
      return { kind: "panic", reason: describeThrown(thrown) };
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/** A thrown value as text for the model: an error's message, never its stack. */
export function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) return String(thrown.message);
    if (typeof thrown === "string") return thrown;
    return JSON.stringify(thrown) ?? String(thrown);
  } catch {
    // a value whose message or JSON form itself throws
    return Object.prototype.toString.call(thrown);
  }
}

/** Whether the parameters schema declares `"type": "object"` at its root. */
function declaresObject(schemaText: string): boolean {
  const parsed: unknown = JSON.parse(schemaText);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: compile() has already refused any root that is not an object
  return typeof parsed === "object" && parsed !== null && (parsed as Record<string, unknown>).type === "object";
}
