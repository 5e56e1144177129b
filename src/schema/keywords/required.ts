import type { Keyword } from "../keyword.js";
import { messages } from "../messages.js";

/** `required`: each listed property is present. */
export const required: Keyword = (value, context) => {
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) return context.refuse("an array of strings");
  const names = value as string[];
  return (instance, at, issues) => {
    if (!(instance instanceof Map)) return;
    for (const name of names) if (!instance.has(name)) issues.push({ at, message: messages.required(name) });
  };
};
