import { equal, stringify } from "../../json/value.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";

/** `const`: the value equals the given one, numbers by exact value. */
export const constKeyword: Keyword = (value) => {
  const text = stringify(value);
  return (instance, at, issues) => {
    if (!equal(instance, value)) issues.push({ at, message: messages.const(stringify(instance), text) });
  };
};
