import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";

// The package as a user installs it. A copy of the sources is packed with `npm pack` (its prepack
// cleans dist/ and builds), the tarball installed into an empty project (from npm's cache when it
// can: --prefer-offline), and that project uses it: `import { compile } from "tool-conformance"`
// in Node and in strict TypeScript (moduleResolution nodenext), the CLI from node_modules/.bin,
// source maps that resolve, optional peer dependencies that stay optional.

const work = mkdtempSync(join(tmpdir(), "tc-package-"));
const pkg = join(work, "pkg");
const consumer = join(work, "consumer");
const installed = join(consumer, "node_modules", "tool-conformance");
let tarball: string;
let files: string[];

function run(command: string, args: string[], cwd: string, timeout = 120_000): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout, env: { ...process.env, NO_COLOR: "1", npm_config_update_notifier: "false" } });
  if (result.error) throw result.error;
  return result;
}

beforeAll(() => {
  // the files a fresh clone has, without dist/: what npm pack starts from
  mkdirSync(pkg);
  for (const entry of ["package.json", "README.md", "tsconfig.json", "tsconfig.build.json", "src", "conformance", "mutants"]) cpSync(join(PACKAGE_ROOT, entry), join(pkg, entry), { recursive: true });
  symlinkSync(join(PACKAGE_ROOT, "node_modules"), join(pkg, "node_modules"), "dir");
  const packed = run("npm", ["pack", "--json", "--pack-destination", work], pkg);
  expect(packed.status, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, info!.filename);
  files = info!.files.map((f) => f.path);

  mkdirSync(consumer);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const install = run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], consumer);
  expect(install.status, install.stderr).toBe(0);
}, 180_000);

describe("the packed package", () => {
  it("is built at pack time, not at install: prepack; prepare only builds (npm runs it for a git install, never for a tarball); no install scripts", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(manifest.scripts.prepack).toMatch(/npm run build/);
    expect(manifest.scripts.prepare).toBe("npm run build");
    for (const hook of ["preinstall", "install", "postinstall"]) expect(manifest.scripts[hook], hook).toBeUndefined();
    expect(files).not.toContain("dist/.tsbuildinfo");
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("dist/cli/main.js");
    expect(files).toContain("conformance/report.schema.json");
    expect(files.some((f) => f.startsWith("dist/mutants/built/"))).toBe(true);
    expect(files.some((f) => f.startsWith("test/"))).toBe(false);
  });

  it("has source maps that resolve: every map's sources are files of the package", () => {
    const maps = files.filter((f) => f.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(50);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources, sourceRoot } = JSON.parse(readFileSync(join(installed, map), "utf8")) as { sources: string[]; sourceRoot?: string };
      for (const source of sources) {
        const file = resolve(dirname(join(installed, map)), sourceRoot ?? "", source);
        if (!existsSync(file)) missing.push(`${map} → ${source}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("finds its compiled worker where it is installed (the validators' worker threads)", () => {
    const probe = `import { workerScript } from ${JSON.stringify(join(installed, "dist", "subjects", "validators", "worker-subject.js"))}; console.log(workerScript());`;
    const result = run(process.execPath, ["--input-type=module", "-e", probe], consumer);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(join(installed, "dist", "subjects", "validators", "worker.js"));
  });

  it("leaves the six validator libraries out (optional peer dependencies)", () => {
    const present = readdirSync(join(consumer, "node_modules"));
    for (const name of ["ajv", "jsonschema", "z-schema", "@cfworker", "@hyperjump", "@exodus"]) expect(present).not.toContain(name);
  });
});

describe("a project that installs it", () => {
  it("imports it in Node: import { compile } from \"tool-conformance\"", () => {
    writeFileSync(
      join(consumer, "plain.mjs"),
      `import { compile } from "tool-conformance";
import { parseReport } from "tool-conformance/report";
import { score } from "tool-conformance/harness";
import { createRequire } from "node:module";
const schema = compile('{"type":"integer"}');
const scored = await score("reference", { filters: ["example/*"] });
const require = createRequire(import.meta.url);
console.log(JSON.stringify({ ok: schema.validateJSON("3.0").length, bad: schema.validateJSON('"x"').map(String), report: typeof parseReport, schema: require.resolve("tool-conformance/report.schema.json").endsWith("conformance/report.schema.json"), scored: scored.summary.scores.total.percent }));
`,
    );
    const result = run(process.execPath, ["plain.mjs"], consumer);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ ok: 0, bad: ["$: expected integer, got string"], report: "function", schema: true, scored: 100 });
  });

  it("compiles against it in strict TypeScript with moduleResolution nodenext, checking its declarations too", () => {
    writeFileSync(
      join(consumer, "typed.ts"),
      `import { compile, newTool, Registry, type ToolDef, type ValidationError } from "tool-conformance";
import { parseReport, type Report } from "tool-conformance/report";
import { score, type ScoreSubjectOptions } from "tool-conformance/harness";
import { conformanceSuite } from "tool-conformance/vitest";
export const suite: typeof conformanceSuite = conformanceSuite;
const options: ScoreSubjectOptions = { profile: "ag02", tiers: ["core"], level: "messages", filters: ["example/*"] };
export const scoring: Promise<Report> = score({ command: "python3 adapter.py impl.py" }, options);
const errors: ValidationError[] = compile('{"type":"object","required":["n"]}').validateJSON("{}");
const registry = new Registry();
registry.register(newTool("echo", "echoes its arguments", '{"type":"object"}', (args) => args));
const definitions: ToolDef[] = registry.definitions();
const read: (text: string) => Report = parseReport;
export const seen: [number, string[], typeof read] = [errors.length, definitions.map((d) => d.name), read];
`,
    );
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: false, types: [] }, files: ["typed.ts"] }),
    );
    // tool-conformance/vitest is for a project with its own vitest (an optional peer): linked in, as installed
    if (!existsSync(join(consumer, "node_modules", "vitest"))) symlinkSync(join(PACKAGE_ROOT, "node_modules", "vitest"), join(consumer, "node_modules", "vitest"), "dir");
    const tsc = run(process.execPath, [join(PACKAGE_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], consumer);
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
    // and the check can fail: a wrong use is an error, not an any
    writeFileSync(join(consumer, "typed.ts"), `import { compile } from "tool-conformance";\nexport const n: number = compile('{}');\n`);
    const wrong = run(process.execPath, [join(PACKAGE_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], consumer);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stdout).toMatch(/TS2322/);
  });

  it("runs the CLI from node_modules/.bin, and validators says exactly how to install the libraries it lacks", () => {
    const bin = join(consumer, "node_modules", ".bin", "tool-conformance");
    writeFileSync(join(consumer, "schema.json"), '{"type":"integer"}');
    writeFileSync(join(consumer, "args.json"), "3.0");
    expect(run(bin, ["validate", "schema.json", "args.json"], consumer).status).toBe(0);
    const validators = run(bin, ["validators"], consumer);
    expect(validators.status, validators.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }> };
    // every peer is optional: the validators' libraries, and vitest for tool-conformance/vitest
    expect(Object.keys(manifest.peerDependencies).every((name) => manifest.peerDependenciesMeta[name]?.optional === true)).toBe(true);
    const { vitest: _, ...pins } = manifest.peerDependencies;
    expect(Object.keys(pins).sort()).toEqual(["@cfworker/json-schema", "@exodus/schemasafe", "@hyperjump/json-schema", "ajv", "jsonschema", "z-schema", "zod"]);
    for (const [name, version] of Object.entries(pins)) expect(validators.stdout).toMatch(new RegExp(`${name.replace("/", "\\/")} +not installed +install it with: npm install ${name.replace("/", "\\/")}@${version.replaceAll(".", "\\.")}\\n`));
    const installLine = validators.stdout.split("\n").find((line) => line.startsWith("  npm install "));
    expect(installLine?.slice("  npm install ".length).split(" ").sort()).toEqual(Object.entries(pins).map(([name, version]) => `${name}@${version}`).sort());
  });
});

describe("installed from a git URL (it is not in the npm registry)", () => {
  it("builds dist/ as npm installs it (prepare), and its CLI runs and scores", { timeout: 900_000 }, () => {
    // a repository of the files a clone has, without dist/ or node_modules
    const repo = join(work, "repo");
    mkdirSync(repo);
    for (const entry of ["package.json", "package-lock.json", ".gitignore", "README.md", "tsconfig.json", "tsconfig.build.json", "src", "conformance", "mutants"]) cpSync(join(PACKAGE_ROOT, entry), join(repo, entry), { recursive: true });
    const git = (...args: string[]) => expect(run("git", ["-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "commit.gpgsign=false", ...args], repo).status).toBe(0);
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "a clone");
    const project = join(work, "git-consumer");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "git-consumer", private: true, type: "module" }));
    const install = run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", `git+file://${repo}`], project, 840_000);
    expect(install.status, install.stderr).toBe(0);
    const bin = join(project, "node_modules", ".bin", "tool-conformance");
    const version = run(bin, ["--version"], project);
    expect(version.stdout.trim(), version.stderr).toBe(JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")).version);
    const scored = run(bin, ["score", "reference", "--filter", "validate/type/*"], project);
    expect(scored.status, scored.stderr).toBe(0);
    expect(scored.stdout).toMatch(/^score 100% \(\d+ passed of \d+ rows/m);
  });
});
