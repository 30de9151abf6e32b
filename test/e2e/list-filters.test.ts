/**
 * Every list parameter over REST on a small tree, on every engine: each uidp filter, name,
 * both spellings of parameters, and what a caller outside the tree sees.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`list parameters [${engine.name}]`, () => {
    let t: TestServer;
    let token: string;
    const uid: Record<string, string> = {};

    beforeAll(async () => {
      t = await startTestServer(engine);
      const o = await t.organization("tree");
      token = o.token;
      uid.tree = o.org.uid;
      const make = async (name: string, parent: string) => {
        const res = await t.fetch(`/iam/v2beta1/groups/${uid[parent]}`, { method: "POST", token, body: JSON.stringify({ name }) });
        uid[name] = ((await res.json()) as { uid: string }).uid;
      };
      await make("a", "tree");
      await make("b", "tree");
      await make("a1", "a");
      await make("a2", "a");
      await make("a1x", "a1");
      await t.organization("elsewhere");
    });
    afterAll(() => t?.close());

    const names = async (query: string, as = token) => {
      const res = await t.fetch(`/iam/v2beta1/groups?${query}`, { token: as });
      expect(res.status, query).toBe(200);
      const body = (await res.json()) as { groups: { name: string }[]; totalCount: string };
      expect(body.totalCount).toBe(String(body.groups.length));
      return body.groups.map((g) => g.name);
    };

    it.each([
      ["", ["a", "a1", "a1x", "a2", "b", "tree"]],
      ["uidp.descendants_of={tree}", ["a", "a1", "a1x", "a2", "b"]],
      ["uidp.descendantsOf={a}", ["a1", "a1x", "a2"]],
      ["uidp.children_of={tree}", ["a", "b"]],
      ["uidp.childrenOf={a1}", ["a1x"]],
      ["uidp.ancestors_of={a1x}", ["a", "a1", "tree"]],
      ["uidp.ancestorsOf={tree}", []],
      ["uidp.in_root=true", ["tree"]],
      ["uidp.inRoot=false", ["a", "a1", "a1x", "a2", "b", "tree"]],
      ["uidp.ids={a}&uidp.ids={b}", ["a", "b"]],
      ["uidp.ids={a}&uidp.ancestors_of={a1x}", ["a"]],
      ["uidp.descendants_of={tree}&uidp.children_of={a}", ["a1", "a2"]],
      ["uidp.descendants_of={tree}&name=a2", ["a2"]],
      ["name=tree", ["tree"]],
      ["name=elsewhere", []],
      ["uidp.in_root=true&uidp.descendants_of={tree}", []],
    ])("%s", async (query, want) => {
      expect(await names(query.replace(/\{(\w+)\}/g, (_, k: string) => uid[k]!))).toEqual(want);
    });

    it("shows a caller without bindings nothing, with a count of 0", async () => {
      expect(await names("", await t.strangerToken())).toEqual([]);
      expect(await names(`uidp.descendants_of=${uid.tree}`, await t.strangerToken())).toEqual([]);
    });

    it("takes page_size and pageSize, order_by and orderBy", async () => {
      const a = await t.fetch(`/iam/v2beta1/groups?pageSize=2&orderBy=name%20desc`, { token });
      const b = await t.fetch(`/iam/v2beta1/groups?page_size=2&order_by=name+desc`, { token });
      const [x, y] = [(await a.json()) as { groups: unknown[] }, (await b.json()) as { groups: unknown[] }];
      expect(x.groups).toEqual(y.groups);
      expect(x.groups).toHaveLength(2);
    });

    it("clamps page_size above 200 and treats 0 as 50", async () => {
      for (const size of [0, 201, 100000]) {
        const res = await t.fetch(`/iam/v2beta1/groups?page_size=${size}`, { token });
        expect(res.status).toBe(200);
      }
    });

    it("refuses a page token when the filters change between pages", async () => {
      const first = (await (await t.fetch(`/iam/v2beta1/groups?page_size=1&uidp.descendants_of=${uid.tree}`, { token })).json()) as {
        nextPageToken: string;
      };
      const sameFilters = await t.fetch(
        `/iam/v2beta1/groups?page_size=3&uidp.descendants_of=${uid.tree}&page_token=${first.nextPageToken}`,
        { token },
      );
      expect(sameFilters.status).toBe(200);
      const otherFilters = await t.fetch(`/iam/v2beta1/groups?page_size=1&uidp.children_of=${uid.tree}&page_token=${first.nextPageToken}`, {
        token,
      });
      expect(otherFilters.status).toBe(400);
    });
  });
}
