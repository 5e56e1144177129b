import type { ToolDef } from "./wire.js";

/** Runs a tool on arguments that already passed its schema; returns the text the model reads. */
export type ToolFunction = (args: string, signal: AbortSignal) => string | Promise<string>;

/** Whether a handler is an async function (the lesson's records tell the two apart). */
export type HandlerKind = "sync" | "async";

/** An `async` function is "async"; any other function is "sync", even one that returns a promise. */
export function handlerKindOf(fn: ToolFunction): HandlerKind {
  return fn.constructor.name === "AsyncFunction" ? "async" : "sync";
}

/** A tool: its definition (the contract with the model) and what it does. */
export interface Tool {
  definition(): ToolDef;
  execute: ToolFunction;
}

/**
 * The error a tool returns on purpose (Go's `return "", err`). Anything else a tool
 * throws or rejects with is a panic.
 */
export class ToolError extends Error {
  override name = "ToolError";
}

/**
 * Builds a tool from its parts. `schemaText` is the parameters schema as JSON text;
 * undefined or empty means `{"type":"object"}`.
 */
export function newTool(name: string, description: string, schemaText: string | undefined, fn: ToolFunction): Tool {
  return new FuncTool(name, description, schemaText, fn);
}

/** A tool made of a definition and a function (the seed's `Func`). */
export class FuncTool implements Tool {
  constructor(
    readonly name: string,
    readonly description: string,
    /** The parameters schema as JSON text; undefined or blank means `{"type":"object"}`. */
    readonly schemaText: string | undefined,
    readonly execute: ToolFunction,
  ) {
    this.handlerKind = handlerKindOf(execute);
  }

  /** Whether `execute` is an async function. */
  readonly handlerKind: HandlerKind;

  /** The parameters as a JSON value; text that is not JSON stays text (register refuses it, with the reason). */
  definition(): ToolDef {
    const text = parametersText(this);
    try {
      return { name: this.name, description: this.description, parameters: JSON.parse(text) };
    } catch {
      return { name: this.name, description: this.description, parameters: text };
    }
  }
}

export const DEFAULT_PARAMETERS = '{"type":"object"}';

/** The schema text of a tool: its own, or the default for a missing one. */
export function parametersText(tool: Tool): string {
  const text = tool instanceof FuncTool ? tool.schemaText : JSON.stringify(tool.definition().parameters ?? null);
  return text === undefined || text.trim() === "" || text.trim() === "null" ? DEFAULT_PARAMETERS : text;
}
