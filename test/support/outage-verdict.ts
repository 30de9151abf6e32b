/**
 * How the store-outage harness judges its load (docs/reliability.md, item 3): every request that
 * started while the store was away, however long it took and whenever it ended. Judging only the
 * requests that ended before the store came back would leave out exactly the ones that broke the
 * bound by waiting for it.
 */

/** One request of the load: what it was, when it started, how long it took, how it ended. */
export interface OutageSample {
  kind: string;
  start: number;
  ms: number;
  /** "ok", or the refusal as the harness wrote it down. */
  outcome: string;
}

/** The outage: from the moment the store was cut off to the moment it was back. */
export interface OutageWindow {
  from: number;
  to: number;
  /** No request started in the window may take this long. */
  boundMs: number;
  /** The one refusal a request of this kind may get while the store is away. */
  refusal(kind: string): string;
}

/** The requests started during the outage, whenever they ended. */
export function startedDuring(samples: readonly OutageSample[], window: OutageWindow): OutageSample[] {
  return samples.filter((s) => s.start >= window.from && s.start < window.to);
}

/**
 * What the requests started during the outage did wrong, empty when nothing: each must end
 * within the bound, and with the refusal, unless it ended after the store was back (then it may
 * have been served).
 */
export function outageViolations(samples: readonly OutageSample[], window: OutageWindow): string[] {
  const out: string[] = [];
  for (const s of startedDuring(samples, window)) {
    const at = `${s.kind} started ${s.start - window.from} ms into the outage`;
    if (s.ms >= window.boundMs) out.push(`${at} took ${s.ms} ms (bound ${window.boundMs} ms)`);
    const ended = s.start + s.ms;
    const served = s.outcome === "ok" && ended >= window.to;
    if (s.outcome !== window.refusal(s.kind) && !served) out.push(`${at} ended ${s.outcome}, not ${window.refusal(s.kind)}`);
  }
  return out;
}
