/**
 * A caller holding more role bindings than any engine's limit on the size of one statement
 * (issue 22): a viewer and auditor bound at 5,000 groups. Every list narrowed by visibility
 * answers 200 with the count of what it may see, over REST, on every engine, and a page walk
 * through its groups ends where the count says.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { childUid, group } from "../support/groups.js";
import { binding, identity, invite, provider, role, VIEWER } from "../support/records.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { userIdentityUid } from "../../src/domain/identities.js";
import type { Stores } from "../../src/store/store.js";

const BOUND = 5_000;
const BATCH = 500;
/** Every nth bound group holds one of each resource; so does every hidden group. */
const EVERY = 500;
const HIDDEN = 3;
const T0 = 1_700_000_000_000;
/** Each list answers in tens of milliseconds; one range per scope took seconds on PostgreSQL. */
const LIST_TIMEOUT_MS = 5_000;

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`a caller with ${BOUND} bindings [${engine.name}]`, () => {
    let t: TestServer;
    let token: string;
    let org: string;
    const want: Record<string, number> = {};

    beforeAll(async () => {
      t = await startTestServer(engine);
      org = (await t.organization("big")).org.uid;
      const caller = userIdentityUid("https://issuer.example", "auditor");
      await t.register(caller, "auditor");
      token = (await t.server.tokens.issue(caller, t.server.url)).token;
      const store = t.server.store;
      const auditor = childUid(org, 0xa0d17);
      await store.roles.insert(role(auditor, "auditor", ["audit.read"]));
      let contents = 0;
      const fill = (tx: Stores, g: string, n: number) => [
        tx.identities.insert(identity(childUid(g, 1), `robot-${n}`)),
        tx.roles.insert(role(childUid(g, 2), `role-${n}`)),
        tx.identityProviders.insert(provider(childUid(g, 3), `idp-${n}`)),
        tx.groupInvites.insert(invite(childUid(g, 4))),
        tx.audit.insert({
          uid: childUid(g, 5),
          createTime: T0,
          actor: { uid: caller },
          method: "m",
          action: "create",
          resourceType: "group",
          resourceUid: g,
        }),
        (async () => {
          const repo = childUid(g, 6);
          await tx.repos.insert({ uid: repo, parentUid: g, name: `repo-${n}`, description: "", createTime: T0, updateTime: T0 });
          await tx.tags.insert({
            uid: childUid(repo, 1),
            repoUid: repo,
            name: "latest",
            digest: `sha256:${"0".repeat(64)}`,
            createTime: T0,
            updateTime: T0,
            eventTime: T0,
            deleteTime: null,
            deleted: false,
          });
        })(),
      ];
      for (let start = 0; start < BOUND + HIDDEN; start += BATCH) {
        await store.atomically(async (tx) => {
          for (let n = start; n < Math.min(start + BATCH, BOUND + HIDDEN); n++) {
            const g = childUid(org, n + 1);
            await tx.groups.insert(group(g, `g-${n}`, { createTime: T0 + n }));
            const hidden = n >= BOUND;
            if (!hidden) {
              await tx.bindings.insert(binding(childUid(g, 10), caller, VIEWER));
              await tx.bindings.insert(binding(childUid(g, 11), caller, auditor));
            }
            if (hidden || n % EVERY === 0) {
              await Promise.all(fill(tx, g, n));
              if (!hidden) contents++;
            }
          }
        });
      }
      // A group below a bound one: visible through its parent, not a scope of its own.
      const nested = childUid(childUid(org, 1), 0x99);
      await store.groups.insert(group(nested, "nested"));
      await store.bindings.insert(binding(childUid(nested, 10), caller, VIEWER));
      const builtins = (
        await store.roles.list({ uidp: { inRoot: true } }, { order: [{ field: "uid", desc: false }], offset: 0, limit: 100 })
      ).length;
      Object.assign(want, {
        "/iam/v2beta1/groups": BOUND + 1,
        "/iam/v2beta1/identities": contents,
        "/iam/v2beta1/roles": contents + builtins,
        "/iam/v2beta1/roleBindings": 2 * BOUND + 1,
        "/iam/v2beta1/identityProviders": contents,
        "/iam/v2beta1/groupInvites": contents,
        "/audit/v1beta1/events": contents,
        "/registry/v2beta1/repos": contents,
        "/registry/v2beta1/tags": contents,
      });
    }, 240_000);
    afterAll(() => t?.close());

    const paths = [
      "/iam/v2beta1/groups",
      "/iam/v2beta1/identities",
      "/iam/v2beta1/roles",
      "/iam/v2beta1/roleBindings",
      "/iam/v2beta1/identityProviders",
      "/iam/v2beta1/groupInvites",
      "/audit/v1beta1/events",
      "/registry/v2beta1/repos",
      "/registry/v2beta1/tags",
    ];

    it.each(paths)(
      "%s answers 200 with the count of what the caller may see",
      async (path) => {
        const res = await t.fetch(`${path}?page_size=5`, { token });
        const body = (await res.json()) as Record<string, unknown>;
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(body.totalCount).toBe(String(want[path]));
      },
      LIST_TIMEOUT_MS,
    );

    it(
      "counts the visible groups below the organization",
      async () => {
        const res = await t.fetch(`/iam/v2beta1/groups?page_size=5&uidp.descendants_of=${org}`, { token });
        const body = (await res.json()) as Record<string, unknown>;
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(body.totalCount).toBe(String(BOUND + 1));
      },
      LIST_TIMEOUT_MS,
    );

    it("walks every visible group page by page", async () => {
      const seen = new Set<string>();
      let pageToken = "";
      do {
        const res = await t.fetch(`/iam/v2beta1/groups?page_size=200&order_by=name&page_token=${encodeURIComponent(pageToken)}`, { token });
        const body = (await res.json()) as { groups: { uid: string }[]; nextPageToken?: string };
        expect(res.status, JSON.stringify(body)).toBe(200);
        for (const g of body.groups) seen.add(g.uid);
        pageToken = body.nextPageToken ?? "";
      } while (pageToken !== "");
      expect(seen.size).toBe(BOUND + 1);
      expect(seen.has(childUid(org, BOUND + 1))).toBe(false);
    });
  });
}
