/**
 * What the writers of a crash round were told: every acknowledged write (a 200), and every write
 * whose answer never came (in flight at the kill, so it may or may not have happened). After the
 * restart the store must hold every acknowledged write, none of the acknowledged deletes, and
 * nothing else but what the unanswered writes may have made.
 */

/** The kinds of resource the writers make. */
export type Kind = "group" | "identity" | "binding";

/** A resource as acknowledged: gone once its delete was acknowledged. */
export interface Entry {
  kind: Kind;
  uid: string;
  /** The group it lives in (a group's parent). */
  parent: string;
  /** The description last acknowledged (groups, identities). */
  description?: string;
  /** A binding's identity. */
  identity?: string;
  gone: boolean;
  /** An update or delete of it was in flight at the kill: either outcome is right. */
  uncertain: boolean;
}

/** The acknowledged state, and how many creates went unanswered. */
export class Ledger {
  readonly entries = new Map<string, Entry>();
  /** Creates in flight at the kill, by kind: each may have left one resource no one was told of. */
  readonly unanswered: Record<Kind, number> = { group: 0, identity: 0, binding: 0 };
  /** Acknowledged writes, in all rounds. */
  acknowledged = 0;

  /** Live entries of a kind, answered for (not uncertain). */
  live(kind: Kind): Entry[] {
    return [...this.entries.values()].filter((e) => e.kind === kind && !e.gone && !e.uncertain);
  }

  created(kind: Kind, uid: string, parent: string, extra: Partial<Entry> = {}): void {
    this.acknowledged++;
    this.entries.set(uid, { kind, uid, parent, gone: false, uncertain: false, ...extra });
  }

  updated(uid: string, description: string): void {
    this.acknowledged++;
    const e = this.entries.get(uid);
    if (e) e.description = description;
  }

  /** A delete acknowledged; a group takes the bindings in it along (ON DELETE CASCADE). */
  deleted(uid: string): void {
    this.acknowledged++;
    const e = this.entries.get(uid);
    if (!e) return;
    e.gone = true;
    if (e.kind === "group") for (const b of this.entries.values()) if (b.kind === "binding" && b.parent === uid) b.gone = true;
    // An identity's delete takes the bindings naming it (identity-store.ts).
    if (e.kind === "identity") for (const b of this.entries.values()) if (b.kind === "binding" && b.identity === uid) b.gone = true;
  }

  /** A write whose answer never came. */
  lost(kind: Kind, uid: string | undefined): void {
    if (uid === undefined) {
      this.unanswered[kind]++;
      return;
    }
    const e = this.entries.get(uid);
    if (!e) return;
    e.uncertain = true;
    // A group delete in doubt puts its bindings in doubt too.
    if (e.kind === "group" || e.kind === "identity") {
      for (const b of this.entries.values()) if (b.kind === "binding" && (b.parent === uid || b.identity === uid)) b.uncertain = true;
    }
  }

  /** After a check: what the store showed becomes the truth for the uncertain entries. */
  settle(present: ReadonlyMap<string, { description?: string }>): void {
    for (const e of this.entries.values()) {
      if (!e.uncertain) continue;
      const row = present.get(e.uid);
      e.gone = row === undefined;
      if (row?.description !== undefined) e.description = row.description;
      e.uncertain = false;
    }
    this.unanswered.group = this.unanswered.identity = this.unanswered.binding = 0;
  }
}
