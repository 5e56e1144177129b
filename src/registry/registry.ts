import { compareCodePoints } from "../json/value.js";
import { compile, isLesson, SchemaError, type Profile, type Schema, type ValidationError } from "../schema/compile.js";
import { messages } from "../schema/messages.js";
import { formatPointer, sortErrors } from "../schema/path.js";
import { DOTTED_NAME_PATTERN, NAME_PATTERN } from "./names.js";
import { Result } from "./result.js";
import { handlerKindOf, parametersText, ToolError, type HandlerKind, type Tool } from "./tool.js";
import type { ToolCall, ToolDef } from "./wire.js";

export type { Profile };

export interface RegistryOptions {
  /** A call whose tool has not finished by then fails and its signal aborts. Default 30 s. */
  timeoutMs?: number;
  /**
   * `ag02` (default) or `lesson` (`pointer` is its former name): JSON Pointer paths, registration-order
   * names, dotted names, override, the lesson's schema dialect (see compile).
   */
  profile?: Profile;
}

export interface RegisterOptions {
  /** Lesson profile only: replace a tool of the same name instead of refusing it. */
  override?: boolean;
  /** Kept in the tool's record (the lesson's `idempotent`, for a dispatcher's retries). Default false. */
  idempotent?: boolean;
  /** Kept in the tool's record (the lesson's `timeout_ms`, a dispatcher's per-tool timeout): a non-negative integer, or null (default). */
  timeoutMs?: number | null;
}

/** What `get` returns: the lesson's ToolRecord, with the schema as a JSON value. */
export interface ToolRecord {
  name: string;
  description: string;
  /** The parameters schema as registered, parsed; `{"type":"object"}` for a tool without one. */
  schema: unknown;
  idempotent: boolean;
  timeoutMs: number | null;
  handler: HandlerKind;
}

/** `get` or `validate` on a name that is not registered. */
export class LookupError extends Error {
  override name = "LookupError";
}

interface Entry {
  readonly tool: Tool;
  readonly schema: Schema;
  readonly description: string;
  readonly parametersText: string;
  readonly idempotent: boolean;
  readonly timeoutMs: number | null;
  readonly handler: HandlerKind;
}

/** The tools an agent can call. Safe for concurrent calls; `call` never throws or rejects. */
export class Registry {
  private readonly entries = new Map<string, Entry>();
  private readonly timeoutMs: number;
  private readonly profile: Profile | undefined;
  private readonly lesson: boolean;

  constructor(options: RegistryOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.profile = options.profile;
    this.lesson = isLesson(options.profile);
  }

  /** Adds a tool, or returns why it cannot be added (the registry is then unchanged). */
  register(tool: Tool, options: RegisterOptions = {}): Error | undefined {
    const { name, description } = tool.definition();
    const pattern = this.lesson ? DOTTED_NAME_PATTERN : NAME_PATTERN;
    if (typeof name !== "string" || !pattern.test(name)) return new Error(messages.badName(String(name), pattern.source));
    const replacing = this.lesson && options.override === true;
    if (this.entries.has(name) && !replacing) return new Error(messages.duplicateTool(name));
    const text = parametersText(tool);
    let schema: Schema;
    try {
      schema = compile(text, { profile: this.profile });
    } catch (error) {
      if (error instanceof SchemaError) return new Error(messages.badParameters(name, error.message));
      throw error;
    }
    if (!declaresObject(text)) return new Error(messages.notObjectParameters(name));
    const { idempotent = false, timeoutMs = null } = options;
    if (typeof idempotent !== "boolean") return new Error(messages.invalidRecord(name, "idempotent must be a boolean"));
    if (timeoutMs !== null && !(Number.isSafeInteger(timeoutMs) && timeoutMs >= 0)) {
      return new Error(messages.invalidRecord(name, "timeoutMs must be a non-negative integer or null"));
    }
    const handler = handlerKindOf(tool.execute);
    this.entries.set(name, { tool, schema, description: String(description ?? ""), parametersText: text, idempotent, timeoutMs, handler });
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

  /** The tool's record (a fresh copy each time); throws a LookupError for a name that is not registered. */
  get(name: string): ToolRecord {
    const entry = this.entry(name);
    const { description, idempotent, timeoutMs, handler } = entry;
    return { name, description, schema: JSON.parse(entry.parametersText), idempotent, timeoutMs, handler };
  }

  /** Validates argument text against the tool's schema (errors as Schema.validateJSON); throws a LookupError for a name that is not registered. */
  validate(name: string, argumentsText: string): ValidationError[] {
    return this.entry(name).schema.validateJSON(argumentsText);
  }

  private entry(name: string): Entry {
    const entry = this.entries.get(name);
    if (!entry) throw new LookupError(messages.unknownTool(name, this.names().sort(compareCodePoints)));
    return entry;
  }

  /** Tool names, sorted (the lesson profile keeps registration order). */
  names(): string[] {
    const names = [...this.entries.keys()];
    return this.lesson ? names : names.sort(compareCodePoints);
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
    // validate sorted them by their $-paths; pointer paths sort otherwise
    if (!this.lesson) return errors.map(String);
    const rendered = errors.map((error) => ({ path: formatPointer(error.segments), message: error.message }));
    return sortErrors(rendered).map((error) => `${error.path}: ${error.message}`);
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
