import { describe, expect, test } from "vitest";
import { LineSplitter } from "../../../src/subjects/mcp/lines.js";
import { redactorOf } from "../../../src/subjects/mcp/secrets.js";

// The line splitter shared by stdio and SSE, and the redactor of header values.

function split(chunks: string[], crEnds: boolean, max = 100): { lines: string[]; overflows: number } {
  const lines: string[] = [];
  let overflows = 0;
  const splitter = new LineSplitter({ max, crEnds, onLine: (line) => lines.push(line), onOverflow: () => overflows++ });
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return { lines, overflows };
}

describe("LineSplitter", () => {
  test("stdio: LF ends a line, a CR before it is dropped, a line across chunks is whole", () => {
    expect(split(["ab", "c\r\nd", "e\n", "\nf"], false).lines).toEqual(["abc", "de", "", "f"]);
    expect(split(["a\rb\n"], false).lines).toEqual(["a\rb"]);
  });

  test("SSE: CRLF, CR and LF each end a line, a CRLF split over two chunks ends one", () => {
    expect(split(["a\r", "\nb\rc\n\r\n"], true).lines).toEqual(["a", "b", "c", ""]);
    expect(split(["a\r", "b"], true).lines).toEqual(["a", "b"]);
  });

  test("a line over the cap is dropped whole, once told, and the next line read", () => {
    const { lines, overflows } = split(["x".repeat(60), "y".repeat(60), "z\nok\n"], false, 100);
    expect(lines).toEqual(["ok"]);
    expect(overflows).toBe(1);
  });

  test("a 15 MB line in 64 KB chunks is read in linear time (the test's timeout bounds it; a rescan per chunk took seconds)", async () => {
    const big = "x".repeat(15 * 1024 * 1024);
    const lines: string[] = [];
    const splitter = new LineSplitter({ max: 16 * 1024 * 1024, crEnds: true, onLine: (line) => lines.push(line), onOverflow: () => {} });
    for (let at = 0; at < big.length; at += 65_536) {
      splitter.push(big.slice(at, at + 65_536));
      // yield now and then, so that the timeout can end a splitter too slow
      if (at % (16 * 65_536) === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    splitter.push("\n");
    expect(lines.map((line) => line.length)).toEqual([big.length]);
  }, 4_000);
});

describe("redactorOf", () => {
  test("a value, its long words and its JSON-escaped form are replaced", () => {
    const redact = redactorOf(["Bearer abcdefgh123", 'k"ey\\1234567']);
    expect(redact("got Bearer abcdefgh123 and abcdefgh123")).toBe("got [redacted] and [redacted]");
    expect(redact(JSON.stringify({ echo: 'k"ey\\1234567' }))).toBe('{"echo":"[redacted]"}');
  });

  test("a short value that also matches outside the strings of a JSON answer: only its strings, the answer still JSON", () => {
    const redact = redactorOf(["42"]);
    const out = redact('{"jsonrpc":"2.0","id":42,"error":{"code":-32602,"message":"key 42 refused"}}');
    expect(JSON.parse(out)).toEqual({ jsonrpc: "2.0", id: 42, error: { code: -32602, message: "key [redacted] refused" } });
  });

  test("no value given: the text as it is", () => {
    expect(redactorOf([])("anything")).toBe("anything");
  });
});
