/**
 * A task run now and then every interval until stopped, as the server's background jobs run (the
 * advisories feed sync, the audit retention sweep): one run at a time, the next scheduled only
 * once the last has ended, a failure reported and tried again at the next interval, and stop()
 * aborting the run under way and waiting for it to end. A gate lets only one of several replicas
 * run the task: the others skip their turns while it answers false.
 */

/** A running schedule. */
export interface Periodic {
  /** Stops the schedule and waits for a run under way to end (its signal is aborted). */
  stop(): Promise<void>;
}

/** Whether this process may run its turn now (Store.leads); by default always. */
export type Gate = () => Promise<boolean>;

/**
 * Runs task now and every intervalMs after each run ends, each time gate allows it; onError hears
 * of a failed run (not one cut short by stop).
 */
export function startPeriodic(
  task: (signal: AbortSignal) => Promise<void>,
  intervalMs: number,
  onError: (e: unknown) => void,
  gate?: Gate,
): Periodic {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = async () => {
    try {
      if (gate === undefined || (await gate())) await task(abort.signal);
    } catch (e) {
      if (!abort.signal.aborted) onError(e);
    }
    if (!abort.signal.aborted) timer = setTimeout(() => void (running = run()), intervalMs).unref();
  };
  running = run();
  return {
    async stop() {
      abort.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
