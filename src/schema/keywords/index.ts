import type { Keyword } from "../keyword.js";
import { additionalProperties } from "./additional-properties.js";
import { anyOf } from "./any-of.js";
import { maximum, minimum } from "./bounds.js";
import { constKeyword } from "./const.js";
import { enumKeyword } from "./enum.js";
import { maxItems, minItems } from "./item-count.js";
import { items } from "./items.js";
import { maxLength, minLength } from "./length.js";
import { ecmaPattern, pattern } from "./pattern.js";
import { properties } from "./properties.js";
import { definitions, ref } from "./ref.js";
import { required } from "./required.js";
import { type } from "./type.js";

/** The subset: every keyword the validator enforces. Anything else is refused at compile time. */
export const KEYWORDS: ReadonlyMap<string, Keyword> = new Map<string, Keyword>([
  ["type", type],
  ["enum", enumKeyword],
  ["const", constKeyword],
  ["properties", properties],
  ["required", required],
  ["additionalProperties", additionalProperties],
  ["items", items],
  ["minItems", minItems],
  ["maxItems", maxItems],
  ["minLength", minLength],
  ["maxLength", maxLength],
  ["pattern", pattern],
  ["minimum", minimum],
  ["maximum", maximum],
  ["anyOf", anyOf],
]);

/** The lesson profile's subset: ECMA-262 patterns, and `$ref` into a local definitions block. */
export const LESSON_KEYWORDS: ReadonlyMap<string, Keyword> = new Map<string, Keyword>([
  ...KEYWORDS,
  ["pattern", ecmaPattern],
  ["$ref", ref],
  ["definitions", definitions],
  ["$defs", definitions],
]);

/** Keywords that only describe: accepted with any value, never checked. */
export const ANNOTATIONS: ReadonlySet<string> = new Set(["title", "description", "default", "examples", "$schema"]);
