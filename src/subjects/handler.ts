import type * as Reference from "../index.js";
import type { Behavior, ConcurrentBody, Request, StartReply, ToolSpec } from "./protocol.js";
import { PROTOCOL_VERSION } from "./protocol.js";
import { sortErrors } from "../schema/path.js";

/** The reference's public API; mutants are copies of it and export the same. */
export type ReferenceApi = typeof Reference;

export interface HandlerOptions {
  name: string;
  version?: string;
  /** Default typescript (the reference, the mutants). */
  language?: string;
}

/**
 * Answers protocol requests with an implementation of the reference's API: the
 * TypeScript adapter, used in-process and behind `tool-conformance adapter`.
 */
export function createHandler(api: ReferenceApi, options: HandlerOptions) {
  let profile: Reference.Profile = "ag02";
  let lesson = false;
  let registry = new api.Registry();
  let runs: Record<string, string[]> = {};

  const toolOf = (spec: ToolSpec): Reference.Tool => {
    const run = (args: string, signal: AbortSignal) => {
      (runs[spec.name] ??= []).push(args);
      return perform(spec.behavior, args, signal, api.ToolError);
    };
    // the lesson's records tell a synchronous handler from an asynchronous one
    const fn =
      spec.handler === "async"
        ? async (args: string, signal: AbortSignal) => run(args, signal)
        : function handler(args: string, signal: AbortSignal) {
            return run(args, signal);
          };
    return api.newTool(spec.name, spec.description, spec.parameters ?? undefined, fn);
  };

  /**
   * A registry request's reply, without runs. Anything the implementation throws (register refuses
   * by returning its error; names, definitions and call never throw) is answered `threw`, as the
   * protocol says: an answer, and a wrong one.
   */
  const registryRequest = async (request: ConcurrentBody): Promise<Record<string, unknown>> => {
    try {
      switch (request.cmd) {
        case "register": {
          const { idempotent, timeoutMs } = request.tool;
          const error = registry.register(toolOf(request.tool), {
            override: request.override,
            ...(idempotent !== undefined ? { idempotent } : {}),
            ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          });
          return error ? { ok: false, error: error.message } : { ok: true };
        }
        case "names":
          return { names: registry.names() };
        case "definitions":
          return { definitions: registry.definitions() };
        case "call": {
          const result = await registry.call(request.call);
          return {
            result: { callId: result.callId, name: result.name, content: result.content, isError: result.isError },
            message: result.message(),
          };
        }
      }
    } catch (thrown) {
      return { threw: thrownText(thrown) };
    }
  };

  /** Compiles schema text: the schema, or the reply for a refusal (SchemaError) or a crash (anything else thrown). */
  const compileOrReply = (schema: string): { schema: Reference.Schema } | { reply: Record<string, unknown> } => {
    try {
      return { schema: api.compile(schema, { profile }) };
    } catch (error) {
      return { reply: refuses(error, api.SchemaError) ? { ok: false, error: errorText(error) } : { threw: thrownText(error) } };
    }
  };

  return async function handle(request: Request): Promise<Record<string, unknown>> {
    switch (request.cmd) {
      case "start": {
        lesson = request.profile === "lesson" || request.profile === "pointer";
        profile = lesson ? "lesson" : "ag02";
        const reply: StartReply = {
          ready: true,
          version: PROTOCOL_VERSION,
          implementation: { name: options.name, language: options.language ?? "typescript", version: options.version },
          profiles: ["ag02", "lesson", "pointer"],
          capabilities: ["validate", "registry", "concurrency", "records"],
        };
        return { ...reply };
      }
      case "compile": {
        const compiled = compileOrReply(request.schema);
        return "reply" in compiled ? compiled.reply : { ok: true };
      }
      case "validate": {
        let errors: readonly Reference.ValidationError[];
        if ("tool" in request) {
          try {
            errors = registry.validate(request.tool, request.instance);
          } catch (error) {
            // no tool of that name: the lesson's validate raises a LookupError; anything else is a crash
            return refuses(error, api.LookupError) ? { ok: false, error: errorText(error) } : { threw: thrownText(error) };
          }
        } else {
          const compiled = compileOrReply(request.schema);
          if ("reply" in compiled) return compiled.reply;
          try {
            errors = compiled.schema.validateJSON(request.instance);
          } catch (error) {
            return { threw: thrownText(error) };
          }
        }
        const style = lesson ? "pointer" : "dollar";
        const rendered = errors.map((e) => ({ path: pathOf(api, e, style), message: e.message, ...(lesson && e.expectedType !== undefined ? { expectedType: e.expectedType } : {}) }));
        // the lesson profile sorts by its own rendering
        if (lesson) sortErrors(rendered);
        return { ok: true, errors: rendered };
      }
      case "get":
        try {
          return { found: true, record: registry.get(request.name) };
        } catch (error) {
          return refuses(error, api.LookupError) ? { found: false, error: errorText(error) } : { threw: thrownText(error) };
        }
      case "registry":
        registry = new api.Registry({ timeoutMs: request.timeoutMs, profile });
        runs = {};
        return { ok: true };
      case "register":
      case "names":
      case "definitions":
        return registryRequest(request);
      case "call":
        runs = {};
        return { ...(await registryRequest(request)), runs };
      case "concurrently": {
        runs = {};
        // every request started before any is awaited: interleaved as a real agent loop would
        const replies = await Promise.all(request.requests.map((body) => registryRequest(body)));
        return { replies, runs };
      }
      case "stop":
        return { ok: true };
    }
  };
}

/**
 * An error's path as the subject says it: the reference renders its segments in the profile's style
 * (renderPath); a module without them gives its `path` string, as the TypeScript adapter takes it.
 */
function pathOf(api: ReferenceApi, error: Reference.ValidationError, style: Reference.PathStyle): string {
  const own = error as Partial<Reference.ValidationError>;
  if (Array.isArray(own.segments) && typeof (api as Partial<ReferenceApi>).renderPath === "function") return api.renderPath(own.segments, style);
  return typeof own.path === "string" ? own.path : String(own.path);
}

/** Does what a tool's behavior says. */
async function perform(behavior: Behavior, args: string, signal: AbortSignal, ToolError: ReferenceApi["ToolError"]): Promise<string> {
  switch (behavior.kind) {
    case "echo":
      return args;
    case "reply":
      return behavior.text;
    case "fail":
      throw new ToolError(behavior.text);
    case "panic":
      throw typeof behavior.value === "string" ? new Error(behavior.value) : behavior.value;
    case "sleep":
      await delay(behavior.ms, signal);
      return behavior.text;
    case "hang":
      await delay(Number.POSITIVE_INFINITY, signal);
      return "";
  }
}

/** Resolves after `ms`, or rejects when the signal aborts. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("cancelled"));
    });
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether a throw is the API's refusal (compile's SchemaError, get's and validate's LookupError)
 * rather than a crash. A module without that class (`--module`): any Error but the ones a bug
 * throws (a stack overflow's RangeError, TypeError, ReferenceError).
 */
function refuses(error: unknown, refusal: unknown): boolean {
  if (typeof refusal === "function") return error instanceof refusal;
  return error instanceof Error && !(error instanceof RangeError || error instanceof TypeError || error instanceof ReferenceError);
}

/** What the implementation threw, one line: its type and message (never a stack), or the value. */
function thrownText(thrown: unknown): string {
  let text: string;
  if (thrown instanceof Error) text = thrown.name && thrown.name !== "Error" ? `${thrown.name}: ${thrown.message}` : thrown.message;
  else if (typeof thrown === "string") text = thrown;
  else {
    try {
      text = JSON.stringify(thrown) ?? String(thrown);
    } catch {
      text = String(thrown);
    }
  }
  return text.split("\n")[0]!;
}
