/**
 * The schedule of background jobs: a turn runs the task only when the gate (Store.leads) allows
 * it, and a refused turn still schedules the next, so a replica takes over once it may.
 */
import { expect, it } from "vitest";
import { startPeriodic } from "../../src/domain/periodic.js";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("runs a turn only when the gate allows, and keeps trying at each interval", async () => {
  let runs = 0;
  let asked = 0;
  let open = false;
  const periodic = startPeriodic(
    async () => void runs++,
    10,
    (e) => {
      throw e;
    },
    async () => (asked++, open),
  );
  await tick(60);
  expect(runs).toBe(0);
  expect(asked).toBeGreaterThan(1);
  open = true;
  await tick(60);
  await periodic.stop();
  expect(runs).toBeGreaterThan(0);
});

it("runs every turn without a gate", async () => {
  let runs = 0;
  const periodic = startPeriodic(
    async () => void runs++,
    10,
    () => {},
  );
  await tick(35);
  await periodic.stop();
  expect(runs).toBeGreaterThan(1);
});
