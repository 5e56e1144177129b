// The parser's messages: what is wrong with a malformed JSON text. They sit below the validator so
// that the parser never reaches up for them; schema/messages.ts spreads them into its table of every
// message the reference writes. Offsets are UTF-8 byte offsets, as Go reports them.
import { quote } from "./value.js";

export const syntaxMessages = {
  invalidJSON: (detail: string) => `invalid JSON: ${detail}`,
  endOfInput: () => "unexpected end of input",
  unexpectedChar: (char: string, offset: number) => `unexpected character ${quote(char)} at byte ${offset}`,
  duplicateKey: (key: string, offset: number) => `duplicate key ${quote(key)} at byte ${offset}`,
  loneSurrogate: (offset: number) => `lone surrogate in string at byte ${offset}`,
  tooDeep: (limit: number, offset: number) => `nesting deeper than ${limit} levels at byte ${offset}`,
} as const;
