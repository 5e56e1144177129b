import { JsonNumber } from "../../json/number.js";
import { isNumber, typeOf, type JsonValue } from "../../json/value.js";
import { issue } from "../check.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";

const TYPE_NAMES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);

/** Whether a value has the named type: integer is a number with no fractional part; number accepts integers. */
export function hasType(value: JsonValue, name: string): boolean {
  if (name === "integer") return isNumber(value) && JsonNumber.isInteger(value);
  return typeOf(value) === name;
}

/** `type`: a name or a list of names. The compiler runs it first and stops the schema when it fails. */
export const type: Keyword = (value, context) => {
  const names = typeof value === "string" ? [value] : value;
  if (!Array.isArray(names) || names.length === 0 || !names.every((name) => typeof name === "string")) {
    return context.refuse("a type name or a non-empty array of type names");
  }
  const list = names as string[];
  for (const name of list) if (!TYPE_NAMES.has(name)) return context.fail((at) => messages.unknownType(name, at));
  // a list of types is expected as the message says it: "string or null"
  const expectedType = list.join(" or ");
  // a value has one of six types: each message is written once
  const messageFor = new Map<string, string>();
  return (instance, path, issues) => {
    // Stryker disable next-line EqualityOperator: one step past the end asks for the type undefined, which no value has
    for (let i = 0; i < list.length; i++) if (hasType(instance, list[i]!)) return;
    const got = typeOf(instance);
    let message = messageFor.get(got);
    // Stryker disable next-line ConditionalExpression: writing the message again gives the same text
    if (message === undefined) messageFor.set(got, (message = messages.type(list, got)));
    issues.push(issue(path, message, expectedType));
  };
};
