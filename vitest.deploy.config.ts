import { defineConfig } from "vitest/config";

/**
 * The deployment suites, `npm run test:deploy`: each starts several processes, builds an image
 * or installs a package, so they run one file at a time, outside `npm test`; `.ci/run` runs both.
 */
export default defineConfig({
  test: {
    include: ["test/deploy/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    pool: "forks",
    maxWorkers: 1,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
