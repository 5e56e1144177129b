import { JsonSyntaxError, parseJSON } from "../json/parse.js";
import { compareCodePoints, isObject, member, type JsonObject, type JsonValue } from "../json/value.js";
import { ValidationError } from "./error.js";
import { NOTHING, type Check } from "./check.js";
import type { CompileContext, Keyword } from "./keyword.js";
import { Members } from "./members.js";
import { ANNOTATIONS, KEYWORDS, LESSON_KEYWORDS } from "./keywords/index.js";
import { messages } from "./messages.js";
import { formatPointer, sortErrors, type Segment } from "./path.js";

export { ValidationError };

/** `ag02` (seed 000, the default) or `lesson` (seed 001; `pointer` is its former name). */
export type Profile = "ag02" | "lesson" | "pointer";

/** Whether a profile is the lesson's. */
export function isLesson(profile: Profile | undefined): boolean {
  return profile === "lesson" || profile === "pointer";
}

export interface CompileOptions {
  /** The dialect: ag02 (default) reads patterns as RE2; lesson reads them as ECMA-262 and resolves local `$ref`s. */
  readonly profile?: Profile;
}

/** A schema outside the subset, or not a schema at all. */
export class SchemaError extends Error {
  override name = "SchemaError";
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

  /** Validates a parsed value (parseJSON's, or JSON.parse's: see json/value.ts). */
  validate(value: JsonValue): ValidationError[] {
    const errors: ValidationError[] = [];
    this.check(value, [], errors);
    return sortErrors(errors);
  }
}

/** Compiles schema text, refusing anything outside the profile's subset with one SchemaError. */
export function compile(text: string, options: CompileOptions = {}): Schema {
  let value: JsonValue;
  try {
    value = parseJSON(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new SchemaError(error.message);
    throw error;
  }
  const keywords = isLesson(options.profile) ? LESSON_KEYWORDS : KEYWORDS;
  const state: State = { root: value, keywords, targets: new Map(), loops: new Map([[undefined, []]]) };
  const check = compileNode(value, [], state, undefined);
  refuseLoops(state.loops);
  return new Schema(check);
}

/** What one compile shares between its nodes. */
interface State {
  readonly root: JsonValue;
  readonly keywords: ReadonlyMap<string, Keyword>;
  /** Each referenced definition, compiled once, by its pointer ("#/definitions/node"). */
  readonly targets: Map<string, { check?: Check }>;
  /**
   * Which definitions each definition refers to without stepping into the value (a loop there never
   * ends); under undefined, those referred to from the root or from inside the value.
   */
  readonly loops: Map<string | undefined, string[]>;
}

/** Keywords whose subschemas apply to the value itself; every other keyword steps into a part of it. */
const IN_PLACE = new Set(["anyOf"]);

const LOCAL_REF = /^#\/(definitions|\$defs)\/([^/]+)$/;

/**
 * Compiles one schema object. Keywords are read in code-point order, depth first,
 * so the first problem reported is the same on every run.
 */
function compileNode(schema: JsonValue, location: readonly Segment[], state: State, owner: string | undefined): Check {
  const at = pointerOf(location);
  if (!isObject(schema)) throw new SchemaError(messages.notASchema(at));
  let typeCheck: Check | undefined;
  let members: Members | undefined;
  const checks: Check[] = [];
  for (const name of Object.keys(schema).sort(compareCodePoints)) {
    if (ANNOTATIONS.has(name)) continue;
    const keyword = state.keywords.get(name);
    if (!keyword) throw new SchemaError(messages.unsupportedKeyword(name, at));
    const context: CompileContext = {
      schema,
      subschema: (value, ...steps) => compileNode(value, [...location, name, ...steps], state, IN_PLACE.has(name) ? owner : undefined),
      members: () => (members ??= new Members()),
      reference: (ref) => reference(ref, at, state, owner),
      refuse: (shape) => {
        throw new SchemaError(messages.badKeyword(name, at, shape));
      },
      fail: (message) => {
        throw new SchemaError(message(at));
      },
    };
    const check = keyword(schema[name]!, context);
    if (name === "type") {
      typeCheck = check;
      continue;
    }
    // Stryker disable next-line ConditionalExpression: running a check that does nothing does nothing
    if (check !== NOTHING) checks.push(check);
  }
  if (members) checks.push(members.check());
  return fuse(typeCheck, checks);
}

/**
 * One schema's checks as one: a wrong type stops the others (they would only repeat the
 * mismatch). The common shapes get closures of their own: a call through a list costs time.
 */
function fuse(typeCheck: Check | undefined, checks: readonly Check[]): Check {
  // Stryker disable next-line ConditionalExpression: the general closure below gives the same answer
  if (!typeCheck && checks.length === 1) return checks[0]!;
  if (!typeCheck) {
    return (value, path, issues) => {
      for (let i = 0; i < checks.length; i++) checks[i]!(value, path, issues);
    };
  }
  // Stryker disable next-line ConditionalExpression: the general closure below gives the same answer
  if (checks.length === 0) return typeCheck;
  // Stryker disable next-line ConditionalExpression,BlockStatement: the general closure below gives the same answer
  if (checks.length === 1) {
    const only = checks[0]!;
    return (value, path, issues) => {
      const before = issues.length;
      typeCheck(value, path, issues);
      if (issues.length === before) only(value, path, issues);
    };
  }
  return (value, path, issues) => {
    const before = issues.length;
    typeCheck(value, path, issues);
    if (issues.length > before) return;
    for (let i = 0; i < checks.length; i++) checks[i]!(value, path, issues);
  };
}

/**
 * A check that runs the definition a local `$ref` names. Each definition compiles once, on its
 * first reference; a reference met while it compiles (recursion) finds it through the same cell.
 */
function reference(ref: string, at: string, state: State, owner: string | undefined): Check {
  const match = LOCAL_REF.exec(ref);
  if (!match) throw new SchemaError(messages.nonLocalRef(ref, at));
  const block = match[1]!;
  // the fragment is percent-encoded (a URI's), then a JSON Pointer segment: ~1 is "/", ~0 is "~"
  let name: string;
  try {
    name = decodeURIComponent(match[2]!);
  } catch {
    throw new SchemaError(messages.unresolvedRef(ref, at));
  }
  name = name.replaceAll("~1", "/").replaceAll("~0", "~");
  // compileNode refused a root that is not an object before any keyword compiled
  const definitions = member(state.root as JsonObject, block);
  const target = definitions !== undefined && isObject(definitions) ? member(definitions, name) : undefined;
  if (target === undefined) throw new SchemaError(messages.unresolvedRef(ref, at));
  const location = [block, name];
  const key = pointerOf(location);
  let cell = state.targets.get(key);
  if (!cell) {
    cell = {};
    state.targets.set(key, cell);
    state.loops.set(key, []);
    cell.check = compileNode(target, location, state, key);
  }
  // the owner is undefined or a definition compiled here, so its list exists
  state.loops.get(owner)!.push(key);
  const found = cell;
  return (value, path, issues) => found.check!(value, path, issues);
}

/** Refuses a cycle of references that never steps into the value: validating would never end. */
function refuseLoops(loops: ReadonlyMap<string | undefined, readonly string[]>): void {
  const done = new Set<string | undefined>();
  const visit = (key: string | undefined, path: readonly (string | undefined)[]) => {
    // a loop is of definitions only: nothing refers to undefined
    if (path.includes(key)) throw new SchemaError(messages.refLoop([...path.slice(path.indexOf(key)), key] as string[]));
    // each definition is explored once, so many paths to it cost no more than one
    if (done.has(key)) return;
    for (const next of loops.get(key)!) visit(next, [...path, key]);
    done.add(key);
  };
  // every definition a reference compiled is reached from undefined
  // Stryker disable next-line ArrayDeclaration: a stray first element is never a definition, so no loop can start at it
  visit(undefined, []);
}

function pointerOf(location: readonly Segment[]): string {
  return "#" + formatPointer(location);
}
