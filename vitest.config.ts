import { defineConfig } from "vitest/config";

/** What every project of the suite shares. */
const shared = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: "forks",
} as const;

/**
 * The reliability harnesses measure latency and recovery under load of their own (the soak's p99
 * drift, kill -9 rounds, a store outage's recovery): beside another test file on two cores they
 * would measure that file. They run after everything else, one at a time.
 */
const ALONE = ["test/reliability/**/*.test.ts"];

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: [
      {
        test: {
          ...shared,
          name: "suite",
          include: ["test/**/*.test.ts"],
          // The deployment suites (container image, replicas behind HAProxy, release artefact,
          // rolling upgrade) take minutes each: `npm run test:deploy` runs them
          // (vitest.deploy.config.ts), and `.ci/run` runs both.
          exclude: ["test/deploy/**", ...ALONE, "**/node_modules/**"],
          // Two files at a time on the 2-core machine (vitest's default is one fewer than the
          // cores): most files spend their time waiting on a server, a database or a child process.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "alone",
          include: ALONE,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
