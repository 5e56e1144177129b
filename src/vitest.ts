import { afterAll, beforeAll, describe, it } from "vitest";
import { loadCorpus } from "./corpus/load.js";
import type { ReferenceApi } from "./subjects/handler.js";
import { isActive, statusOf } from "./run/outcome.js";
import { runRow, type Check } from "./run/run-row.js";
import { instanceTextOf, SECTIONS, schemaTextOf, type Level, type ProfileName, type Row, type Tier } from "./corpus/rows.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, guarded, selectRows } from "./run/runner.js";
import { inProcessSubject } from "./subjects/in-process.js";
import { missingExports, missingText, moduleIdentity } from "./subjects/module-api.js";
import { stdioSubject } from "./subjects/stdio.js";
import type { Send } from "./subjects/protocol.js";
import type { Session, Subject } from "./subjects/subject.js";
import type { McpEndpoint } from "./subjects/mcp/client.js";
import { runMcp } from "./run/mcp/run-mcp.js";

// `tool-conformance/vitest`: the corpus as tests in your own vitest suite, the way validator
// projects consume JSON-Schema-Test-Suite. One test a row, named by its id, grouped by the seed's
// six sections; a failing row fails with what differs (expected against actual), its why and what
// it sends. The subject is a module with the reference's API (in-process) or a command serving the
// protocol (any language); one session serves the whole suite, rows in order.

export interface ConformanceOptions {
  /** `{ api }`: a module exporting compile, Registry, newTool and ToolError (docs/api.md, "The module interface"); `{ command }`: an adapter over stdio. */
  subject: { api: ReferenceApi; label?: string } | { command: string; cwd?: string };
  /** Default ag02. */
  profile?: ProfileName;
  /** Default core: what the spec fixes. */
  tiers?: Tier[];
  /** Default messages. */
  level?: Level;
  /** Row id globs (`validate/type/*`); default every row. */
  filter?: string[];
  /** Per request, ms (default 10 s); each test gets twice that. */
  timeoutMs?: number;
}

/** Declares one test per selected corpus row; call it at the top level of a test file. */
export function conformanceSuite(options: ConformanceOptions): void {
  const profile = options.profile ?? "ag02";
  const scoring = { level: options.level ?? "messages", tiers: options.tiers ?? (["core"] as Tier[]) };
  const { rows } = selectRows(loadCorpus(), { profile, ...scoring, ...(options.filter ? { filters: options.filter } : {}) });
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if ("api" in options.subject) {
    // a module without the interface: one failing test that names what it lacks, not a TypeError a row
    const api = options.subject.api as unknown as Record<string, unknown>;
    const missing = missingExports(api);
    if (missing.length > 0) {
      const text = missingText(`the module${options.subject.label ? ` ${options.subject.label}` : ""}`, missing);
      it("the module's interface", () => {
        throw new Error(text);
      });
      return;
    }
  }
  const subject: Subject =
    "api" in options.subject
      ? inProcessSubject(options.subject.label ?? "module", options.subject.api, moduleIdentity(options.subject.api as unknown as Record<string, unknown>, undefined, options.subject.label))
      : stdioSubject(options.subject.command, { timeoutMs, ...(options.subject.cwd ? { cwd: options.subject.cwd } : {}) });
  let session: Session | undefined;
  let send: Send;
  beforeAll(async () => {
    session = await subject.open(profile);
    send = guarded(session.send, timeoutMs + 5_000);
  }, 2 * timeoutMs);
  afterAll(async () => session?.close());

  for (const section of SECTIONS) {
    const own = rows.filter((row) => row.section === section);
    if (own.length === 0) continue;
    describe(section, () => {
      for (const row of own) {
        it(row.id, async () => {
          let checks: Check[];
          try {
            checks = await runRow(row, send, profile);
          } catch (error) {
            // a broken reply or a timeout: a fresh process for the next row, and this one fails with the cause
            await session!.recover();
            throw error;
          }
          if (statusOf(checks, scoring) !== "passed") throw new Error(failure(row, checks.filter((c) => !c.pass && isActive(c, scoring))));
        }, 2 * timeoutMs + 5_000);
      }
    });
  }
}

/** What a failing row says: each check that failed, expected against actual, then why and what it sends. */
function failure(row: Row, failed: readonly Check[]): string {
  const lines = failed.map((c) => `${c.what} (${c.level}, ${c.tier})\n  expected ${JSON.stringify(c.expected)}\n  actual   ${JSON.stringify(c.actual)}`);
  const sends = row.kind === "validate" ? [`schema    ${schemaTextOf(row)}`, `arguments ${instanceTextOf(row.instance)}`] : row.kind === "compile" ? [`schema    ${schemaTextOf(row)}`] : [];
  return [...lines, `why       ${row.why}`, ...sends, `rerun     tool-conformance score … --filter ${row.id}`].join("\n");
}

export interface McpConformanceOptions {
  /** The server: `{ command }` (stdio) or `{ url, headers? }` (Streamable HTTP). */
  mcp: McpEndpoint;
  /** Default core. */
  tiers?: Tier[];
  /** Default messages. */
  level?: Level;
  /** Row id globs (`mcp/get_weather/*`); default every row. */
  filter?: string[];
  /** Per request, ms (default 5 s). */
  timeoutMs?: number;
}

/**
 * Declares one test per row of an MCP server: `await` it at the top level of a test file, since
 * its rows come from the server's own tools/list. The server is probed once, as the file is
 * collected (only invalid arguments, docs/mcp.md); each test then says what its row found.
 */
export async function mcpConformanceSuite(options: McpConformanceOptions): Promise<void> {
  const scoring = { level: options.level ?? "messages", tiers: options.tiers ?? (["core"] as Tier[]) };
  const run = await runMcp(options.mcp, { ...scoring, ...(options.filter ? { filters: options.filter } : {}), ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
  const why = new Map(run.rows.map((row) => [row.id, row.why]));
  for (const section of SECTIONS) {
    const own = run.results.filter((result) => result.section === section);
    if (own.length === 0) continue;
    describe(section, () => {
      for (const result of own) {
        it(result.id, () => {
          if (result.status === "passed") return;
          const failed = result.checks.filter((c) => !c.pass && isActive(c, scoring));
          const lines = failed.map((c) => `${c.what} (${c.level}, ${c.tier})\n  expected ${JSON.stringify(c.expected)}\n  actual   ${JSON.stringify(c.actual)}`);
          const sent = run.sent.get(result.id);
          throw new Error([...lines, ...(result.error ? [`errored   ${result.error}`] : []), `why       ${why.get(result.id) ?? ""}`, ...(sent ? [`sent      ${sent}`] : [])].join("\n"));
        });
      }
    });
  }
}
