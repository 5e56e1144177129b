import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { UsageError } from "../errors.js";
import { scoreMcp } from "../harness/score-mcp.js";
import { SubjectStoppedError } from "../harness/stopped.js";
import { readReport } from "../report/read-report.js";
import type { Report } from "../report/report.js";
import { errorText, resultText, unanswered } from "../run/mcp/classify.js";
import { McpClient, type McpEndpoint } from "../subjects/mcp/client.js";
import { createSandbox, findBwrap, SandboxError } from "../subjects/sandbox/index.js";

// The real MCP servers of implementations/mcp/ (their own pinned package.json and lockfile), each
// scored as `score --mcp "COMMAND" --sandbox bwrap` would score it: only invalid calls (the default),
// the server in the sandbox with no network and its own copy of the folder, so that a server that
// reaches out (an API client with a dummy key) reaches nothing, and one that writes writes nowhere.
// The servers of implementations/mcp-frameworks/ (one per server framework, the same tools each) are
// scored the same way, with valid calls as well (`run`) and the seed's worked call answered once more.

export interface McpServerEntry {
  name: string;
  package: string;
  /** Run through the shell in the copy of implementations/mcp/, inside the sandbox. */
  command: string;
  /** What kind of server it is, for the table. */
  kind: string;
  /** Tools sent valid calls too (`--mcp-run`): only the folder's own tools, which answer their arguments back. */
  run?: string[];
  /** A subfolder with its own package.json, lockfile and node_modules, for a server whose dependencies clash with the folder's. */
  folder?: string;
  /**
   * The SDK or framework its tools are served by: a package name, shown with the version the
   * server's own install resolves (so a lockfile bump shows), or, when the server bundles it, a text
   * shown as written.
   */
  sdk?: string;
}

/** One call sent after the scoring, its arguments as JSON text (the seed's worked example). */
export interface WorkedCall {
  tool: string;
  argumentsText: string;
}

export interface ScoredMcpServer {
  entry: McpServerEntry;
  /** The installed version, from its package.json. */
  version: string;
  /** Its SDK or framework as the page shows it (entry.sdk with the version resolved), when the entry names one. */
  sdk?: string;
  report: Report;
  /** The answer to the worked call, when one was asked for: how its refusal reads. */
  worked?: string;
}

export interface ScoreMcpServersOptions {
  /** Hears of each server as it starts. */
  onServer?: (entry: McpServerEntry, n: number) => void;
  /** Sent to each server once it is scored. */
  workedCall?: WorkedCall;
}

/** implementations/mcp/servers.json (or another list of the folder), checked; a clear error for a file that is not one. */
export function readMcpServerList(folder: string, list = "servers.json"): McpServerEntry[] {
  const file = join(folder, list);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const servers = (parsed as { servers?: unknown }).servers;
  const fields = ["name", "package", "command", "kind"] as const;
  const entry = (s: unknown) => typeof s === "object" && s !== null && fields.every((f) => typeof (s as Record<string, unknown>)[f] === "string") && isRunList((s as Record<string, unknown>).run) && isFolder((s as Record<string, unknown>).folder) && ["undefined", "string"].includes(typeof (s as Record<string, unknown>).sdk);
  if (!Array.isArray(servers) || !servers.every(entry)) {
    throw new UsageError(`${file}: expected {"servers": [{${fields.join(", ")}}, ...]}, each a string (and "run", when given, a list of tool names; "folder", a subfolder's name; "sdk", a string)`);
  }
  const names = servers.map((s: McpServerEntry) => s.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new UsageError(`${file}: the name ${JSON.stringify(twice)} is given twice (each server's reports go in a folder of its name)`);
  return servers as McpServerEntry[];
}

function isFolder(folder: unknown): boolean {
  return folder === undefined || (typeof folder === "string" && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(folder));
}

/** A shard, `i/n`: the i-th of n parts of the list (1-based). */
export interface Shard {
  index: number;
  count: number;
}

/** `--shard i/n` read, or a usage error saying what it takes. */
export function parseShard(text: string): Shard {
  const match = /^([1-9]\d{0,5})\/([1-9]\d{0,5})$/.exec(text.trim());
  const shard = match ? { index: Number(match[1]), count: Number(match[2]) } : undefined;
  if (shard === undefined || shard.index > shard.count) throw new UsageError(`--shard ${JSON.stringify(text)}: expected i/n, two whole numbers with 1 <= i <= n (1/3, 2/3, 3/3)`);
  return shard;
}

/**
 * The servers one shard scores: every n-th of the list, from its i-th (1/3 takes the 1st, 4th, 7th…).
 * Deterministic, by the list's order alone; interleaved, so the slow servers spread over the shards.
 */
export function shardOf(entries: McpServerEntry[], shard: Shard): McpServerEntry[] {
  return entries.filter((_, n) => n % shard.count === shard.index - 1);
}

/** The servers named (`--only a,b`), in the list's order; a usage error for a name the list lacks. */
export function onlyOf(entries: McpServerEntry[], names: readonly string[]): McpServerEntry[] {
  const known = new Set(entries.map((entry) => entry.name));
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new UsageError(`--only: no server named ${unknown.map((name) => JSON.stringify(name)).join(", ")} in the list (its names: ${[...known].join(", ")})`);
  if (names.length === 0) throw new UsageError("--only: name at least one server");
  return entries.filter((entry) => names.includes(entry.name));
}

function isRunList(run: unknown): boolean {
  return run === undefined || (Array.isArray(run) && run.length > 0 && run.every((tool) => typeof tool === "string" && tool !== ""));
}

/** Scores every listed server in the sandbox. */
export async function scoreMcpServers(folder: string, entries: McpServerEntry[], options: ScoreMcpServersOptions = {}): Promise<ScoredMcpServer[]> {
  for (const installed of [folder, ...new Set(entries.flatMap((entry) => (entry.folder !== undefined ? [join(folder, entry.folder)] : [])))]) {
    if (!existsSync(join(installed, "node_modules"))) throw new UsageError(`${installed}: its servers are not installed: run npm ci --prefix ${installed}`);
  }
  if (findBwrap() === undefined) throw new UsageError("the MCP servers run only in the sandbox, with no network: bubblewrap (bwrap) is not installed or not on PATH (Debian/Ubuntu: apt-get install bubblewrap)");
  // the sandbox sees one folder outside this tool's own, readable by its own user
  const copy = mkdtempSync(join(tmpdir(), "tool-conformance-mcp-servers-"));
  try {
    linkTree(folder, copy);
    let sandbox;
    try {
      sandbox = createSandbox({ mode: "bwrap", submission: copy });
    } catch (error) {
      if (error instanceof SandboxError) throw new UsageError(`the MCP servers run only in the sandbox, with no network: ${error.message}`);
      throw error;
    }
    const scored: ScoredMcpServer[] = [];
    for (const [n, entry] of entries.entries()) {
      options.onServer?.(entry, n);
      const version = versionOf(join(copy, entry.folder ?? "", "node_modules", entry.package));
      const sdk = entry.sdk === undefined ? undefined : sdkOf(copy, entry);
      let report: Report;
      try {
        report = await scoreMcp({ command: entry.command, cwd: copy, sandbox }, { label: `${entry.package}@${version}`, tiers: ["core"], ...(entry.run ? { run: entry.run } : {}) });
      } catch (error) {
        if (!(error instanceof SubjectStoppedError)) throw error;
        report = error.report;
      }
      const worked = options.workedCall && !report.summary.stopped ? await answerTo({ command: entry.command, cwd: copy, sandbox }, options.workedCall) : undefined;
      scored.push({ entry, version, ...(sdk !== undefined ? { sdk } : {}), report, ...(worked !== undefined ? { worked } : {}) });
    }
    return scored;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The answer to one call as a model would read it: a result's text (marked when isError), or the JSON-RPC error. */
async function answerTo(endpoint: McpEndpoint, call: WorkedCall): Promise<string> {
  let client: McpClient;
  try {
    client = await McpClient.connect(endpoint, { timeoutMs: 10_000 });
  } catch (error) {
    return `the server did not start again: ${error instanceof Error ? error.message : String(error)}`;
  }
  try {
    const answer = await client.callText(call.tool, call.argumentsText);
    const missing = unanswered(answer);
    if (missing) return `${missing.verdict}: ${missing.text}`;
    if (answer.kind === "error") return errorText(answer.error).shown;
    if (answer.kind !== "result") return answer.kind;
    const isError = (answer.result as { isError?: unknown } | undefined)?.isError === true;
    return `${isError ? "isError: " : "result: "}${resultText(answer.result)}`;
  } finally {
    await client.close();
  }
}

function versionOf(packageDir: string): string {
  return (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string }).version;
}

/** entry.sdk with the version Node resolves from the server's own folder; the text as written when no such package is installed (a bundled SDK). */
export function sdkOf(folder: string, entry: McpServerEntry): string | undefined {
  if (entry.sdk === undefined) return undefined;
  // Node's resolution: the nearest node_modules/SDK up from the server's package folder
  for (let dir = join(folder, entry.folder ?? "", "node_modules", entry.package); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", entry.sdk);
    if (existsSync(join(candidate, "package.json"))) return `${entry.sdk} ${versionOf(candidate)}`;
    if (dir === folder || !dir.startsWith(folder)) break;
  }
  return entry.sdk;
}

/**
 * `from` mirrored into `to` by hard links, every folder and file readable (and folders enterable)
 * by the sandbox's own user. Links, not copies: the servers' install is near a gigabyte, linked in
 * seconds, and the sandbox sees it read-only, so no server can change the original through a link.
 * A file not readable by all, or on another file system, is copied instead, so the original's mode
 * is never changed.
 */
function linkTree(from: string, to: string, top = true): void {
  chmodSync(to, 0o755);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    // the folder's own node_modules may be a link to an install elsewhere (a work tree's): mirrored, since the sandbox sees only the copy
    const linkedFolder = top && entry.isSymbolicLink() && statSync(source).isDirectory();
    if (entry.isSymbolicLink() && !linkedFolder) symlinkSync(readlinkSync(source), target);
    else if (entry.isDirectory() || linkedFolder) {
      mkdirSync(target);
      linkTree(linkedFolder ? realpathSync(source) : source, target, false);
    } else {
      const mode = statSync(source).mode;
      let linked = (mode & 0o444) === 0o444 && (mode & 0o111 ? (mode & 0o111) === 0o111 : true);
      if (linked) {
        try {
          linkSync(source, target);
        } catch {
          linked = false;
        }
      }
      if (!linked) {
        copyFileSync(source, target);
        chmodSync(target, mode & 0o111 ? 0o755 : 0o644);
      }
    }
  }
}

/** What `--from` needs beside a server's report.jsonl to write its row and section again: written as server.json. */
export interface ServerFile {
  name: string;
  package: string;
  version: string;
  sdk?: string;
}

export function serverFile({ entry, version, sdk }: ScoredMcpServer): ServerFile {
  return { name: entry.name, package: entry.package, version, ...(sdk !== undefined ? { sdk } : {}) };
}

/**
 * The listed servers as earlier runs scored them: each from the first of `dirs` holding its
 * `NAME/report.jsonl` and `NAME/server.json` (what `mcp-servers --out DIR` writes, a shard's too).
 * A usage error names a server no folder holds, and a report that does not read back whole.
 */
export function readScoredServers(dirs: readonly string[], entries: McpServerEntry[]): ScoredMcpServer[] {
  return entries.map((entry) => {
    const dir = dirs.map((d) => join(d, entry.name)).find((d) => existsSync(join(d, "report.jsonl")) && existsSync(join(d, "server.json")));
    if (dir === undefined) throw new UsageError(`--from: no folder of ${dirs.join(", ")} holds ${entry.name}/report.jsonl and ${entry.name}/server.json: run its shard (or --only ${entry.name}) with --out there`);
    let file: ServerFile;
    let report: Report;
    try {
      file = JSON.parse(readFileSync(join(dir, "server.json"), "utf8")) as ServerFile;
      report = readReport(join(dir, "report.jsonl"));
    } catch (error) {
      throw new UsageError(`--from: ${dir}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (file.name !== entry.name || file.package !== entry.package || typeof file.version !== "string") throw new UsageError(`--from: ${join(dir, "server.json")} is not ${entry.name} (${entry.package}) as the list has it`);
    return { entry, version: file.version, ...(typeof file.sdk === "string" ? { sdk: file.sdk } : {}), report };
  });
}
