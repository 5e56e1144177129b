import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderPath, sortErrors, type Segment } from "../../schema/path.js";
import { PACKAGE_ROOT } from "../../corpus/load.js";
import type { Request, StartReply, WireError } from "../protocol.js";
import { PROTOCOL_VERSION } from "../protocol.js";
import { handlerSubject } from "../in-process.js";
import type { Subject } from "../subject.js";

// Alternative JSON Schema validators as subjects: each library gets a thin adapter
// (a ValidatorLibrary) and this file turns it into a protocol handler and a Subject.
// They answer `start`, `compile` and `validate` only.

/** One violation a library reported, its location already turned into segments. */
export interface LibraryError {
  segments: Segment[];
  message: string;
}

/** A compiled schema: validates an already parsed instance. */
export type LibraryValidate = (instance: unknown) => LibraryError[] | Promise<LibraryError[]>;

export interface ValidatorLibrary {
  /** The npm package name. */
  readonly name: string;
  /**
   * How far its answers can be compared: "paths" when it reports instance locations that
   * convert losslessly to the seed's `$` paths, "verdict" when they do not.
   */
  readonly level: "verdict" | "paths";
  /** One line on how the adapter reads the library (dialect, options, what it drops). */
  readonly note: string;
  /** Compiles a parsed schema; throws to refuse it. */
  compile(schema: unknown): LibraryValidate | Promise<LibraryValidate>;
}

/**
 * Errors a library throws when it breaks rather than refuses: a stack overflow on `$ref: "#"`,
 * a TypeError on a boolean schema. Those make the row errored; any other throw from
 * `compile` is the library refusing the schema.
 */
export function isCrash(error: unknown): boolean {
  return error instanceof RangeError || error instanceof TypeError || error instanceof ReferenceError;
}

/** The installed version of a package of ours (its package.json, else the pinned devDependency). */
/** The npm package of a validator's name: `ajv (MCP SDK)` is ajv as the MCP SDK configures it. */
export function packageOf(name: string): string {
  return name.replace(/ \(.+\)$/, "");
}

export function packageVersion(name: string): string {
  try {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "node_modules", name, "package.json"), "utf8")) as { version?: string };
    if (manifest.version) return manifest.version;
  } catch {
    // not installed where we look: fall back to the pin
  }
  try {
    const own = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { devDependencies?: Record<string, string> };
    return own.devDependencies?.[name] ?? "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * A JSON Pointer (RFC 6901) into `instance`, as segments. A pointer alone cannot tell an array
 * index from a property named "1"; walking the instance can, so the conversion is lossless.
 * `fragment`: the pointer is a URI fragment (`#/a%20b`), percent-decoded first.
 */
export function pointerSegments(pointer: string, instance: unknown, fragment = false): Segment[] {
  let text = pointer;
  if (fragment) {
    if (text.startsWith("#")) text = text.slice(1);
    text = decodeURIComponent(text);
  }
  if (text === "") return [];
  const tokens = text.split("/").slice(1).map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
  const segments: Segment[] = [];
  let at: unknown = instance;
  for (const token of tokens) {
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(token)) {
      const index = Number(token);
      segments.push(index);
      at = at[index];
    } else {
      segments.push(token);
      at = at !== null && typeof at === "object" && Object.hasOwn(at, token) ? (at as Record<string, unknown>)[token] : undefined;
    }
  }
  return segments;
}

/** A path given as an array of property names and indexes (numbers), as some libraries do. */
export function arraySegments(path: readonly unknown[]): Segment[] {
  return path.map((step) => (typeof step === "number" ? step : String(step)));
}

/** Whether a keyword location lies inside an `anyOf` branch: the seed reports only the anyOf error. */
export function insideAnyOfBranch(keywordLocation: string): boolean {
  return /\/anyOf\/[0-9]+(\/|$)/.test(keywordLocation);
}

export interface ValidatorHandlerOptions {
  version: string;
}

/**
 * Answers protocol requests with a library: `start` (capability "validate"), `compile`
 * (accepted, or refused with the library's message) and `validate` (the instance text is
 * parsed with JSON.parse, as a caller of the library would; malformed text is one error at `$`).
 * A library that breaks (throws while validating, or crashes while compiling) makes the
 * handler throw: the row is errored, never the run.
 */
export function createValidatorHandler(library: ValidatorLibrary, options: ValidatorHandlerOptions) {
  let style: "dollar" | "pointer" = "dollar";

  const compile = async (schemaText: string): Promise<{ validate: LibraryValidate } | { error: string }> => {
    let schema: unknown;
    try {
      schema = JSON.parse(schemaText);
    } catch (error) {
      return { error: `invalid JSON: ${messageOf(error)}` };
    }
    try {
      return { validate: await library.compile(schema) };
    } catch (error) {
      if (isCrash(error)) throw new Error(`${library.name} crashed compiling the schema: ${messageOf(error)}`);
      return { error: messageOf(error) };
    }
  };

  return async function handle(request: Request): Promise<Record<string, unknown>> {
    switch (request.cmd) {
      case "start": {
        style = request.profile === "ag02" ? "dollar" : "pointer";
        const reply: StartReply = {
          ready: true,
          version: PROTOCOL_VERSION,
          implementation: { name: library.name, language: "javascript", version: options.version },
          profiles: ["ag02", "lesson", "pointer"],
          capabilities: ["validate"],
        };
        return { ...reply };
      }
      case "compile": {
        const compiled = await compile(request.schema);
        return "error" in compiled ? { ok: false, error: compiled.error } : { ok: true };
      }
      case "validate": {
        // a library validates a schema; tools by name are the registry's business
        if (!("schema" in request)) return { errored: true, message: "validate by tool name needs the records capability" };
        const compiled = await compile(request.schema);
        if ("error" in compiled) return { ok: false, error: compiled.error };
        let instance: unknown;
        try {
          instance = JSON.parse(request.instance);
        } catch (error) {
          return { ok: true, errors: [{ path: renderPath([], style), message: `invalid JSON: ${messageOf(error)}` }] };
        }
        let found: LibraryError[];
        try {
          found = await compiled.validate(instance);
        } catch (error) {
          throw new Error(`${library.name} threw while validating: ${messageOf(error)}`);
        }
        const errors: WireError[] = found.map((e) => ({ path: renderPath(e.segments, style), message: e.message }));
        sortErrors(errors);
        return { ok: true, errors };
      }
      case "stop":
        return { ok: true };
      default:
        return { ok: false, error: `${library.name} answers compile and validate only, not "${request.cmd}"` };
    }
  };
}

/** A library loaded in this process, behind the same protocol handler a stdio adapter would use. */
export function validatorSubject(library: ValidatorLibrary, version = packageVersion(packageOf(library.name))): Subject {
  return handlerSubject(labelOf(library.name, version), () => createValidatorHandler(library, { version }));
}

/** `ajv@8.20.0`, or `ajv@8.20.0 (MCP SDK)`: the package at its version, then whose configuration. */
export function labelOf(name: string, version: string): string {
  return `${packageOf(name)}@${version}${name.slice(packageOf(name).length)}`;
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 300);
}
