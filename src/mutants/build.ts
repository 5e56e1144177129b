import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { PACKAGE_ROOT } from "../corpus/load.js";
import { applyEdits, loadCatalog, MutantError, readSource, REFERENCE_ROOTS, WIDER, widerOf, type Mutant } from "./catalog.js";
import { BUILT_DIR, MANIFEST, type Manifest } from "./load.js";

// Build time only (TypeScript is a devDependency): applies each mutant's edits to a
// copy of the reference's sources and transpiles the copy into BUILT_DIR/sNN/, whose
// index.js exports the same API as dist/index.js. Run by `npm run build` as
// `node dist/mutants/build.js`; a mutant that no longer applies fails the build.

/** Every reference source file, from the package root, sorted. */
export function referenceFiles(root: string = PACKAGE_ROOT): string[] {
  const walk = (file: string): string[] =>
    statSync(join(root, file)).isDirectory()
      ? readdirSync(join(root, file))
          .sort()
          .flatMap((entry) => walk(`${file.replace(/\/$/, "")}/${entry}`))
      : file.endsWith(".ts") && !file.endsWith(".d.ts")
        ? [file]
        : [];
  return REFERENCE_ROOTS.flatMap((entry) => walk(entry));
}

const COMPILER_OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.ES2022,
  target: ts.ScriptTarget.ES2022,
  useDefineForClassFields: true,
  sourceMap: false,
};

/** The mutant's whole copy of the reference, transpiled: output path (relative to its folder) → JavaScript. */
export function transpileMutant(mutant: Mutant, read: (file: string) => string = readSource, cache = new Map<string, string>()): Map<string, string> {
  const changed = applyEdits(mutant, read);
  const out = new Map<string, string>();
  for (const file of referenceFiles()) {
    const target = relative("src", file).replace(/\.ts$/, ".js");
    const edited = changed.get(file);
    // an unedited file transpiles the same for every mutant
    const cached = edited === undefined ? cache.get(file) : undefined;
    if (cached !== undefined) {
      out.set(target, cached);
      continue;
    }
    const text = edited ?? read(file);
    const result = ts.transpileModule(text, { compilerOptions: COMPILER_OPTIONS, fileName: file, reportDiagnostics: true });
    const problem = result.diagnostics?.find((d) => d.category === ts.DiagnosticCategory.Error);
    if (problem) {
      const message = ts.flattenDiagnosticMessageText(problem.messageText, " ");
      throw new MutantError(`mutant ${mutant.id} (${mutant.source}): ${file}: the edited source does not parse: ${message}`);
    }
    out.set(target, result.outputText);
    if (edited === undefined) cache.set(file, result.outputText);
  }
  return out;
}

/** Builds every mutant (or the given ones) into `outDir`, replacing what was there. Returns the manifest. */
export function buildMutants(options: { outDir?: string; mutants?: Mutant[] } = {}): Manifest {
  const outDir = options.outDir ?? BUILT_DIR;
  const catalog = options.mutants ?? loadCatalog();
  // each mutant's wider form is built beside it, for its fingerprint (diagnosis.ts)
  const mutants = catalog.flatMap((mutant) => [mutant, ...(widerOf(mutant) ? [widerOf(mutant)!] : [])]);
  // transpile everything first: a broken mutant leaves the previous build untouched
  const cache = new Map<string, string>();
  const built = mutants.map((mutant) => [mutant, transpileMutant(mutant, readSource, cache)] as const);
  rmSync(outDir, { recursive: true, force: true });
  for (const [mutant, files] of built) {
    for (const [file, text] of files) {
      const path = join(outDir, mutant.id, file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
  }
  const manifest: Manifest = { mutants: Object.fromEntries(mutants.map((m) => [m.id, { source: m.source, hash: m.hash }])) };
  writeFileSync(join(outDir, MANIFEST), JSON.stringify(manifest, null, 2) + "\n");
  return manifest;
}

// `node dist/mutants/build.js`
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  try {
    const manifest = buildMutants();
    const count = Object.keys(manifest.mutants).filter((id) => !id.endsWith(WIDER)).length;
    const where = relative(process.cwd(), BUILT_DIR) || ".";
    process.stdout.write(`mutants: built ${count} into ${where} in ${Math.round(performance.now() - started)} ms\n`);
  } catch (error) {
    if (!(error instanceof MutantError)) throw error;
    process.stderr.write(`mutants: build failed: ${error.message}\n`);
    process.exitCode = 1;
  }
}
