import { basename, extname } from "node:path";

// What a JavaScript module must export to be scored in-process (`--module`, conformanceSuite's
// `{ api }`): the interface the TypeScript adapter documents, no more. `renderPath` and a
// ValidationError's `segments` are the reference's own and optional: an error's `path` string
// serves as it is (docs/api.md, "The module interface").

/** The exports the protocol handler calls. */
export const REQUIRED_EXPORTS = ["compile", "Registry", "newTool", "ToolError"] as const;

/** The required exports a module lacks (not a function), in the order above. */
export function missingExports(api: Record<string, unknown>): string[] {
  return REQUIRED_EXPORTS.filter((name) => typeof api[name] !== "function");
}

/** One line for a module that lacks some: what, and where the interface is written down. */
export function missingText(what: string, missing: readonly string[]): string {
  return `${what} does not export ${missing.join(", ")}: a module scored in-process exports compile, Registry, newTool and ToolError (docs/api.md, "The module interface")`;
}

export interface ModuleIdentity {
  name: string;
  version: string;
  language: string;
}

/**
 * How the report names a module: its own NAME, VERSION and LANGUAGE exports when it has them (as the
 * TypeScript adapter reads them), else the label given or its file's name, and the language its
 * extension says (javascript without one).
 */
export function moduleIdentity(api: Record<string, unknown>, file?: string, label?: string): ModuleIdentity {
  const text = (name: string) => (typeof api[name] === "string" && api[name] !== "" ? (api[name] as string) : undefined);
  const ext = file ? extname(file) : "";
  const language = /^\.[mc]?ts$/.test(ext) ? "typescript" : "javascript";
  return {
    name: text("NAME") ?? label ?? (file ? basename(file, ext) : "module"),
    version: text("VERSION") ?? "in-process",
    language: text("LANGUAGE") ?? language,
  };
}
