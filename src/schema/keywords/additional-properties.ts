import { child, type Keyword } from "../keyword.js";
import { messages } from "../messages.js";

/** `additionalProperties`: false refuses any property outside `properties`; a schema validates each of them. */
export const additionalProperties: Keyword = (value, context) => {
  if (value !== false && value !== true && !(value instanceof Map)) return context.refuse("a boolean or an object");
  const declared = context.schema.get("properties");
  // Stryker disable next-line ArrayDeclaration: only a property literally named "Stryker was here" could tell
  const known = new Set(declared instanceof Map ? declared.keys() : []);
  if (value === true) return () => {};
  const check = value === false ? undefined : context.subschema(value);
  return (instance, at, issues) => {
    if (!(instance instanceof Map)) return;
    for (const name of instance.keys()) {
      if (known.has(name)) continue;
      if (check) check(instance.get(name)!, child(at, name), issues);
      else issues.push({ at, message: messages.unexpected(name) });
    }
  };
};
