import { JsonSyntaxError, parseJSON } from "../json/parse.js";
import { compareCodePoints, type JsonValue } from "../json/value.js";
import type { Check, CompileContext, Issue } from "./keyword.js";
import { ANNOTATIONS, KEYWORDS } from "./keywords/index.js";
import { messages } from "./messages.js";
import { compareErrors, formatPath, formatPointer, segmentsOf, type Segment } from "./path.js";

/** A schema outside the subset, or not a schema at all. */
export class SchemaError extends Error {
  override name = "SchemaError";
}

/** One violation: where it is in the value, and what is wrong. `String(error)` is "PATH: message". */
export class ValidationError {
  readonly path: string;

  constructor(
    readonly segments: readonly Segment[],
    readonly message: string,
  ) {
    this.path = formatPath(segments);
  }

  toString(): string {
    return `${this.path}: ${this.message}`;
  }
}

/** A compiled schema. Immutable; safe to share between concurrent calls. */
export class Schema {
  constructor(private readonly check: Check) {}

  /** Validates argument text; malformed JSON is one error at `$`. Errors are sorted by path, then message. */
  validateJSON(text: string): ValidationError[] {
    let value: JsonValue;
    try {
      value = parseJSON(text);
    } catch (error) {
      if (error instanceof JsonSyntaxError) return [new ValidationError([], error.message)];
      throw error;
    }
    return this.validate(value);
  }

  /** Validates a parsed value. */
  validate(value: JsonValue): ValidationError[] {
    const issues: Issue[] = [];
    this.check(value, undefined, issues);
    return issues.map((issue) => new ValidationError(segmentsOf(issue.at), issue.message)).sort(compareErrors);
  }
}

/** Compiles schema text, refusing anything outside the subset with one SchemaError. */
export function compile(text: string): Schema {
  let value: JsonValue;
  try {
    value = parseJSON(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new SchemaError(error.message);
    throw error;
  }
  return new Schema(compileNode(value, []));
}

/**
 * Compiles one schema object. Keywords are read in code-point order, depth first,
 * so the first problem reported is the same on every run.
 */
function compileNode(schema: JsonValue, location: readonly Segment[]): Check {
  const at = pointerOf(location);
  if (!(schema instanceof Map)) throw new SchemaError(messages.notASchema(at));
  let typeCheck: Check | undefined;
  const checks: Check[] = [];
  for (const name of [...schema.keys()].sort(compareCodePoints)) {
    if (ANNOTATIONS.has(name)) continue;
    const keyword = KEYWORDS.get(name);
    if (!keyword) throw new SchemaError(messages.unsupportedKeyword(name, at));
    const context: CompileContext = {
      schema,
      subschema: (value, ...steps) => compileNode(value, [...location, name, ...steps]),
      refuse: (shape) => {
        throw new SchemaError(messages.badKeyword(name, at, shape));
      },
      fail: (message) => {
        throw new SchemaError(message(at));
      },
    };
    const check = keyword(schema.get(name)!, context);
    if (name === "type") typeCheck = check;
    else checks.push(check);
  }
  return (value, at, issues) => {
    // a wrong type stops the schema's other keywords: they would only repeat the mismatch
    if (typeCheck) {
      const before = issues.length;
      typeCheck(value, at, issues);
      if (issues.length > before) return;
    }
    for (const check of checks) check(value, at, issues);
  };
}

function pointerOf(location: readonly Segment[]): string {
  return "#" + formatPointer(location);
}
