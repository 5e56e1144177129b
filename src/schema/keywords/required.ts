import { NOTHING } from "../check.js";
import type { Keyword } from "../keyword.js";

/** `required`: each listed property is present. */
export const required: Keyword = (value, context) => {
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) return context.refuse("an array of strings");
  const members = context.members();
  for (const name of value as string[]) members.require(name);
  return NOTHING;
};
