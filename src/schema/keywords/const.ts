import { equal, stringify } from "../../json/value.js";
import { issue } from "../check.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";

/** `const`: the value equals the given one, numbers by exact value. */
export const constKeyword: Keyword = (value) => {
  const text = stringify(value);
  return (instance, path, issues) => {
    if (!equal(instance, value)) issues.push(issue(path, messages.const(stringify(instance), text)));
  };
};
