import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The deployment suites (container image, replicas behind HAProxy, release artefact, rolling
    // upgrade) take minutes each: `npm run test:deploy` runs them (vitest.deploy.config.ts), and
    // `.ci/run` runs both.
    exclude: ["test/deploy/**", "**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two files at a time on the 2-core machine (vitest's default is one fewer than the cores):
    // most files spend their time waiting on a server, a database or a child process.
    maxWorkers: 2,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
