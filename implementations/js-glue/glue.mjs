// What the JavaScript implementations share, none of it about their library: the installed
// package's version, the STRICT_SUBSET switch, the seed's sort order and validateJSON's parse. Each
// registry.mjs imports it.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * An installed package's version, read at run time from its package.json (never hard-coded). Found
 * by walking up from an entry point it exports: an "exports" map may hide package.json itself.
 */
export function installedVersion(name, entry = name) {
  let dir = dirname(fileURLToPath(import.meta.resolve(entry)));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (pkg.name === name) return pkg.version;
    } catch {}
    const up = dirname(dir);
    if (up === dir) return "unknown";
    dir = up;
  }
}

// STRICT_SUBSET=1: the one switch, off by default (the table shows each library as it is). Each
// library accepts keywords outside the seed's subset; a user who wants the seed's "refuse what you
// do not implement" walks the schema before handing it over.
export const STRICT = process.env.STRICT_SUBSET === "1";
const SUBSET = new Set(["type", "enum", "const", "properties", "required", "additionalProperties", "items", "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum", "anyOf", "title", "description", "default", "examples", "$schema"]);

/** Throws at the first keyword outside the subset, naming where (`#/properties/e`). Other shapes are the library's to judge. */
export function checkSubset(schema, at = "#") {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return;
  for (const [key, value] of Object.entries(schema)) {
    if (!SUBSET.has(key)) throw new Error(`unsupported keyword ${JSON.stringify(key)} at ${at} (STRICT_SUBSET=1)`);
    if (key === "properties" && value && typeof value === "object") for (const [k, v] of Object.entries(value)) checkSubset(v, `${at}/properties/${k}`);
    if (key === "items" || key === "additionalProperties") checkSubset(value, `${at}/${key}`);
    if (key === "anyOf" && Array.isArray(value)) value.forEach((v, i) => checkSubset(v, `${at}/anyOf/${i}`));
  }
}

/** Go's sort order (bytes of UTF-8), which is code-point order, not JavaScript's UTF-16 default. */
export const compareCodePoints = (a, b) => {
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
};

/** The seed's order of errors: by path, then message. */
export const compareErrors = (a, b) => compareCodePoints(a.path, b.path) || compareCodePoints(a.message, b.message);

/** ValidateJSON's first step: text that does not parse is one error at $ (as the seed says); else `validate(value)`. */
export function validateParsed(text, validate) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return [{ path: "$", message: `invalid JSON: ${error.message}` }];
  }
  return validate(value);
}
