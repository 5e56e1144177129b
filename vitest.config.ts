import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["**/node_modules/**", ".stryker-tmp/**", "dist/**"],
    testTimeout: 30_000,
    benchmark: { include: ["bench/**/*.bench.ts"] },
  },
});
