import { equal, stringify } from "../../json/value.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";

/** `enum`: the value equals one of the listed values, numbers by exact value. */
export const enumKeyword: Keyword = (value, context) => {
  if (!Array.isArray(value) || value.length === 0) return context.refuse("a non-empty array");
  const list = stringify(value);
  return (instance, at, issues) => {
    if (!value.some((allowed) => equal(instance, allowed))) issues.push({ at, message: messages.enum(stringify(instance), list) });
  };
};
