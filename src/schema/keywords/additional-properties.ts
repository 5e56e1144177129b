import { isObject } from "../../json/value.js";
import { NOTHING } from "../check.js";
import type { Keyword } from "../keyword.js";

/** `additionalProperties`: false refuses any property outside `properties`; a schema validates each of them. */
export const additionalProperties: Keyword = (value, context) => {
  if (value !== false && value !== true && !isObject(value)) return context.refuse("a boolean or an object");
  if (value === true) return NOTHING;
  if (value === false) context.members().refuseOthers();
  else context.members().checkOthers(context.subschema(value));
  return NOTHING;
};
