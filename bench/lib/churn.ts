/**
 * Background binding changes (S9): a steady rate of role binding writes through the API while a
 * scenario measures something else, alternately creating a `viewer` binding of one identity and
 * deleting it again, each at the next group of a list. Changes run one at a time on a fixed
 * schedule; one that comes due while another is in flight waits, so a slow server shows as a
 * lower achieved rate rather than as piled-up requests.
 */
import { builtinRoleUid } from "../../src/domain/roles.js";

/** What the churn did. */
export interface ChurnResult {
  /** Changes answered 200. */
  changes: number;
  /** Changes that failed or answered otherwise. */
  errors: number;
  /** Changes answered (either way) per second over the run. */
  achieved: number;
  firstError?: string;
}

/** A running churn; stop() waits for the change in flight. */
export interface Churn {
  stop(): Promise<ChurnResult>;
}

/** Starts `perSecond` changes a second of identity's bindings at groups, with an owner's token. */
export function startChurn(base: string, token: string, identityUid: string, groups: readonly string[], perSecond: number): Churn {
  const roleUid = builtinRoleUid("viewer");
  const result: ChurnResult = { changes: 0, errors: 0, achieved: 0 };
  let stopping = false;
  let created: string | undefined;
  const change = async (k: number) => {
    const [method, path, body] =
      created === undefined
        ? ["POST", `/iam/v2beta1/roleBindings/${groups[Math.floor(k / 2) % groups.length]}`, JSON.stringify({ identityUid, roleUid })]
        : ["DELETE", `/iam/v2beta1/roleBindings/${created}`, undefined];
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        body,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
      created = method === "POST" ? (JSON.parse(text) as { uid: string }).uid : undefined;
      result.changes++;
    } catch (error) {
      result.errors++;
      result.firstError ??= (error as Error).message;
    }
  };
  const start = performance.now();
  const loop = (async () => {
    for (let k = 0; !stopping; k++) {
      const wait = start + (k * 1000) / perSecond - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (!stopping) await change(k);
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await loop;
      result.achieved = (result.changes + result.errors) / ((performance.now() - start) / 1000);
      return result;
    },
  };
}
