/**
 * Callers with many role bindings (S9): identities of an organization bound `viewer` at many of
 * its groups, written straight into the store in batches (through the API it would take longer
 * than the benchmark), after the groups of bench/lib/datasets.ts. The store's triggers fire on
 * these inserts as on any other, the authorization generations included.
 */
import { builtinRoleUid } from "../../src/domain/roles.js";
import { createStore } from "../../src/store/create-store.js";
import type { DatasetTarget } from "./datasets.js";

const BATCH = 1_000;
const hex16 = (n: number) => n.toString(16).padStart(16, "0");

/** The uid insertGroups gives the nth (1-based) generated group of org. */
export function generatedGroupUid(org: string, n: number): string {
  return `${org}/${hex16(n)}`;
}

/**
 * Which of `groups` generated groups (1-based) `count` bindings of lane `lane` go to: spread
 * evenly over the organization, one every groups/count, shifted by the lane so that lanes
 * (callers, and the churn of S9) never share a group. Throws when the lanes do not fit.
 */
export function spreadGroups(groups: number, count: number, lane: number, lanes: number): number[] {
  const stride = Math.floor(groups / count);
  if (lane < 0 || lane >= lanes || stride < lanes)
    throw new Error(`${count} bindings in lane ${lane} of ${lanes} do not fit in ${groups} groups`);
  return Array.from({ length: count }, (_, i) => i * stride + lane + 1);
}

/** One identity to create in the organization and the generated groups to bind it `viewer` at. */
export interface BoundIdentity {
  name: string;
  groups: number[];
  /** Bound `viewer` at the organization itself too. */
  atOrganization?: boolean;
}

/** Creates the identities in org with their bindings, in batches; returns their uids in order. */
export async function insertBoundIdentities(
  target: DatasetTarget,
  org: string,
  identities: BoundIdentity[],
  now = Date.now(),
): Promise<string[]> {
  const store = await createStore(
    target.engine === "sqlite" ? { dataDir: target.dataDir } : { dataDir: "", databaseUrl: target.url, schema: target.schema },
  );
  const viewer = builtinRoleUid("viewer");
  try {
    const uids: string[] = [];
    for (const [k, who] of identities.entries()) {
      const uid = `${org}/${hex16(0x5e0000 + k)}`;
      const relationship = {
        kind: "claimMatch" as const,
        issuer: "https://bench.example",
        subject: who.name,
        claims: {},
        claimPatterns: {},
      };
      await store.identities.insert({
        uid,
        parentUid: org,
        name: who.name,
        description: "",
        relationship,
        lastSeenTime: null,
        createTime: now,
        updateTime: now,
      });
      if (who.atOrganization === true)
        await store.bindings.insert({
          uid: `${org}/${hex16(0xb0 + k)}`,
          groupUid: org,
          identityUid: uid,
          roleUid: viewer,
          createTime: now,
        });
      for (let start = 0; start < who.groups.length; start += BATCH) {
        await store.atomically(async (tx) => {
          for (const n of who.groups.slice(start, start + BATCH)) {
            const groupUid = generatedGroupUid(org, n);
            await tx.bindings.insert({
              uid: `${groupUid}/${hex16(0xb0 + k)}`,
              groupUid,
              identityUid: uid,
              roleUid: viewer,
              createTime: now,
            });
          }
        });
      }
      uids.push(uid);
    }
    return uids;
  } finally {
    await store.close();
  }
}
