// Every message the reference writes, in one table. The four messages of the
// seed's hand-worked example (required, additionalProperties, type, enum) are
// fixed by the spec (tier core); every other wording is ours (tier catalog).
// Values are rendered as compact JSON with number literals kept as written.
import { syntaxMessages } from "../json/messages.js";
import { quote } from "../json/value.js";

export const messages = {
  // validation errors: the text after "PATH: "
  required: (name: string) => `missing required property ${quote(name)}`,
  unexpected: (name: string) => `unexpected property ${quote(name)}`,
  type: (expected: readonly string[], got: string) => `expected ${expected.join(" or ")}, got ${got}`,
  enum: (value: string, list: string) => `${value} is not one of ${list}`,
  const: (value: string, constant: string) => `${value} is not ${constant}`,
  minLength: (limit: string, count: number) => `expected at least ${limit} characters, got ${count}`,
  maxLength: (limit: string, count: number) => `expected at most ${limit} characters, got ${count}`,
  minItems: (limit: string, count: number) => `expected at least ${limit} items, got ${count}`,
  maxItems: (limit: string, count: number) => `expected at most ${limit} items, got ${count}`,
  minimum: (value: string, limit: string) => `${value} is less than the minimum ${limit}`,
  maximum: (value: string, limit: string) => `${value} is greater than the maximum ${limit}`,
  pattern: (value: string, pattern: string) => `${quote(value)} does not match pattern ${quote(pattern)}`,
  anyOf: () => "does not match any schema in anyOf",

  // malformed JSON: one error at $, worded by the parser (json/messages.ts), below the validator
  ...syntaxMessages,

  // compile errors: LOCATION is a JSON Pointer into the schema, "#" for its root
  unsupportedKeyword: (keyword: string, at: string) => `unsupported keyword ${quote(keyword)} at ${at}`,
  notASchema: (at: string) => `schema at ${at} must be an object`,
  unknownType: (name: string, at: string) => `unknown type ${quote(name)} at ${at}`,
  badKeyword: (keyword: string, at: string, shape: string) => `${quote(keyword)} at ${at} must be ${shape}`,
  badPattern: (pattern: string, at: string, reason: string) => `invalid pattern ${quote(pattern)} at ${at}: ${reason}`,
  nonLocalRef: (ref: string, at: string) => `$ref ${quote(ref)} at ${at} is not local: only "#/definitions/NAME" and "#/$defs/NAME" are supported`,
  unresolvedRef: (ref: string, at: string) => `$ref ${quote(ref)} at ${at} does not resolve`,
  refLoop: (loop: readonly string[]) => `$ref loop that never steps into the value: ${loop.join(" -> ")}`,

  // registry
  badName: (name: string, pattern: string) => `invalid tool name ${quote(name)}: must match ${pattern}`,
  duplicateTool: (name: string) => `tool ${quote(name)} is already registered`,
  notObjectParameters: (name: string) => `tool ${quote(name)}: parameters must have "type": "object"`,
  badParameters: (name: string, reason: string) => `tool ${quote(name)}: invalid parameters: ${reason}`,
  invalidRecord: (name: string, reason: string) => `tool ${quote(name)}: ${reason}`,
  unknownTool: (name: string, available: readonly string[]) =>
    `unknown tool ${quote(name)} (available: ${available.length ? available.join(", ") : "none"})`,
  invalidArguments: (name: string, errors: readonly string[]) => [`invalid arguments for ${name}:`, ...errors].join("\n"),
  toolFailed: (name: string, reason: string) => `tool ${name} failed: ${reason}`,
  toolPanicked: (name: string, reason: string) => `tool ${name} panicked: ${reason}`,
  toolTimedOut: (name: string, ms: number) => `tool ${name} timed out after ${ms}ms`,
} as const;

/** The prefix a failed call's tool message carries, so the model can tell failure from output. */
export const ERROR_PREFIX = "error: ";
