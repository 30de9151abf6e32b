/**
 * Concurrent writers for crash rounds: each creates, updates and deletes groups, identities and
 * role bindings over REST inside a subtree of its own (so the order of its acknowledgements is
 * the order of its commits), recording every answer in the ledger, until the server dies.
 */
import { builtinRoleUid } from "../../../src/domain/roles.js";
import type { Kind, Ledger } from "./ledger.js";

/** A seeded random source, so a round's choice of operations can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a writer needs: where the server is, the owner's token, its own subtree's root. */
export interface WriterSetup {
  baseUrl: string;
  token: string;
  /** The group the writer works under (made by it in an earlier round, or now). */
  home: string;
  ledger: Ledger;
  random: () => number;
  /** Unique names across rounds. */
  nextName: () => string;
}

type Answer = { status: number; body: Record<string, any> };

async function send(s: WriterSetup, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const pick = <T>(items: readonly T[], random: () => number): T | undefined => items[Math.floor(random() * items.length)];

/** Runs one writer until a request fails without an answer (the server is gone). */
export async function runWriter(s: WriterSetup): Promise<void> {
  const { ledger, random } = s;
  const mine = (kind: Kind) => ledger.live(kind).filter((e) => e.uid === s.home || e.uid.startsWith(`${s.home}/`));
  for (;;) {
    const groups = mine("group");
    const identities = mine("identity");
    const bindings = mine("binding");
    const roll = random();
    let kind: Kind;
    let target: string | undefined;
    let op: () => Promise<void>;
    if (roll < 0.25 || groups.length < 2) {
      const parent =
        pick(
          groups.filter((g) => g.uid.split("/").length < 4),
          random,
        )?.uid ?? s.home;
      const description = `d${Math.floor(random() * 1e6)}`;
      kind = "group";
      op = async () => {
        const r = await send(s, "POST", `/iam/v2beta1/groups/${parent}`, { name: s.nextName(), description });
        if (r.status === 200) ledger.created("group", r.body.uid as string, parent, { description });
      };
    } else if (roll < 0.4) {
      const g = pick(
        groups.filter((x) => x.uid !== s.home),
        random,
      );
      const description = `u${Math.floor(random() * 1e6)}`;
      kind = "group";
      target = g?.uid;
      op = async () => {
        if (g === undefined) return;
        const r = await send(s, "PATCH", `/iam/v2beta1/groups/${g.uid}?updateMask=description`, { description });
        if (r.status === 200) ledger.updated(g.uid, description);
      };
    } else if (roll < 0.5) {
      const g = pick(
        groups.filter((x) => x.uid !== s.home),
        random,
      );
      kind = "group";
      target = g?.uid;
      op = async () => {
        if (g === undefined) return;
        // Refused (code 9) while it holds child groups or identities: not a write.
        const r = await send(s, "DELETE", `/iam/v2beta1/groups/${g.uid}`);
        if (r.status === 200) ledger.deleted(g.uid);
      };
    } else if (roll < 0.65) {
      const g = pick(groups, random);
      const description = `i${Math.floor(random() * 1e6)}`;
      kind = "identity";
      op = async () => {
        if (g === undefined) return;
        const r = await send(s, "POST", `/iam/v2beta1/identities/${g.uid}`, {
          name: s.nextName(),
          description,
          claimMatch: { issuer: "https://issuer.example", subject: s.nextName() },
        });
        if (r.status === 200) ledger.created("identity", r.body.uid as string, g.uid, { description });
      };
    } else if (roll < 0.72) {
      const i = pick(identities, random);
      kind = "identity";
      target = i?.uid;
      op = async () => {
        if (i === undefined) return;
        const r = await send(s, "DELETE", `/iam/v2beta1/identities/${i.uid}`);
        if (r.status === 200) ledger.deleted(i.uid);
      };
    } else if (roll < 0.9) {
      const i = pick(identities, random);
      kind = "binding";
      op = async () => {
        if (i === undefined) return;
        const r = await send(s, "POST", `/iam/v2beta1/roleBindings/${i.parent}`, { identityUid: i.uid, roleUid: builtinRoleUid("viewer") });
        if (r.status === 200) ledger.created("binding", r.body.uid as string, i.parent, { identity: i.uid });
      };
    } else {
      const b = pick(bindings, random);
      kind = "binding";
      target = b?.uid;
      op = async () => {
        if (b === undefined) return;
        const r = await send(s, "DELETE", `/iam/v2beta1/roleBindings/${b.uid}`);
        if (r.status === 200) ledger.deleted(b.uid);
      };
    }
    try {
      await op();
    } catch {
      // No answer: the server died with this write in flight.
      ledger.lost(kind, target);
      return;
    }
  }
}
