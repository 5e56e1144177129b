import { codePointLength } from "../../json/value.js";
import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";
import { countLimit } from "./shapes.js";

/** `minLength`: the string has at least this many characters (code points). */
export const minLength: Keyword = (value, context) => {
  const limit = countLimit(value, context);
  return (instance, at, issues) => {
    if (typeof instance !== "string") return;
    const length = codePointLength(instance);
    if (length < limit.value) issues.push({ at, message: messages.minLength(limit.text, length) });
  };
};

/** `maxLength`: the string has at most this many characters (code points): "héllo" has 5. */
export const maxLength: Keyword = (value, context) => {
  const limit = countLimit(value, context);
  return (instance, at, issues) => {
    if (typeof instance !== "string") return;
    const length = codePointLength(instance);
    if (length > limit.value) issues.push({ at, message: messages.maxLength(limit.text, length) });
  };
};
