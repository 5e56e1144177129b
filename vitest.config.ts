import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["**/node_modules/**", ".stryker-tmp/**", "dist/**"],
    testTimeout: 30_000,
    benchmark: { include: ["bench/**/*.bench.ts"] },
    // the built package (a bench imports it as "tool-conformance") runs as Node runs it: a module
    // vitest transforms reads every imported name through a getter, which made the reference's
    // validation up to six times slower than in production (docs/benchmarks.md)
    server: { deps: { external: [/\/dist\//] } },
  },
});
