/**
 * GET /openapi.json through tools that know nothing of Arbor: @redocly/cli lints it without a
 * single error, and a client generated from it (openapi-typescript's types, type-checked, driving
 * openapi-fetch, which percent-encodes path parameters, `/` included) creates, gets, updates and
 * deletes a group below an organization on a real server. The client runs in a Node process of
 * its own, importing nothing from Arbor.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;
const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");

/** The generated client's program: typed by the generated `paths`, so a path or parameter the document lacks does not compile. */
const DRIVER = `
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

const [baseUrl, token, org] = process.argv.slice(2) as [string, string, string];
const urls: string[] = [];
const client = createClient<paths>({
  baseUrl,
  headers: { authorization: \`Bearer \${token}\` },
  fetch: (request: Request) => {
    urls.push(\`\${request.method} \${request.url}\`);
    return fetch(request);
  },
});

const created = await client.POST("/iam/v2beta1/groups/{uid}", {
  params: { path: { uid: org } },
  body: { name: "team", description: "first" },
});
const uid = created.data?.uid ?? "";
const got = await client.GET("/iam/v2beta1/groups/{uid}", { params: { path: { uid } } });
const updated = await client.PATCH("/iam/v2beta1/groups/{uid}", {
  params: { path: { uid }, query: { update_mask: "description" } },
  body: { description: "second" },
});
const deleted = await client.DELETE("/iam/v2beta1/groups/{uid}", { params: { path: { uid } } });
const gone = await client.GET("/iam/v2beta1/groups/{uid}", { params: { path: { uid } } });

const outcome = (r: { response: Response; data?: unknown; error?: unknown }) => ({
  status: r.response.status,
  data: r.data,
  error: r.error,
});
console.log(
  JSON.stringify({
    urls,
    created: outcome(created),
    got: outcome(got),
    updated: outcome(updated),
    deleted: outcome(deleted),
    gone: outcome(gone),
  }),
);
`;

describe(`OpenAPI document through independent tools [${engine.name}]`, () => {
  let t: TestServer;
  let dir: string;
  let text: string;

  beforeAll(async () => {
    t = await startTestServer(engine);
    const res = await t.fetch("/openapi.json");
    expect(res.status).toBe(200);
    text = await res.text();
    dir = await mkdtemp(join(tmpdir(), "arbor-openapi-tools-"));
    await writeFile(join(dir, "openapi.json"), text);
  });
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("has no error by @redocly/cli lint", async () => {
    const redocly = join(ROOT, "node_modules/.bin/redocly");
    // Exit status 1 means errors, which the JSON report lists: read the report either way.
    const out = await run(redocly, ["lint", join(dir, "openapi.json"), "--format=json"], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? "", stderr: e.stderr ?? "" }));
    const report = JSON.parse(out.stdout) as {
      totals: { errors: number };
      problems: Array<{ ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> }>;
    };
    const errors = report.problems
      .filter((p) => p.severity === "error")
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? "?"}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  it("drives a generated openapi-fetch client through create, get, update and delete of a nested group", { timeout: 120_000 }, async () => {
    await writeFile(join(dir, "schema.ts"), astToString(await openapiTS(text)));
    await writeFile(join(dir, "drive.ts"), DRIVER);
    await writeFile(join(dir, "package.json"), '{"type":"module"}\n');
    await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const program = ts.createProgram([join(dir, "drive.ts")], {
      strict: true,
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ["node"],
      skipLibCheck: true,
      outDir: dir,
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(diagnostics).toEqual([]);
    expect(program.emit().emitSkipped).toBe(false);

    const { org, token } = await t.organization("generated-client-org");
    const { stdout } = await run(process.execPath, [join(dir, "drive.js"), t.url, token, org.uid], { cwd: dir });
    const r = JSON.parse(stdout) as Record<string, { status: number; data?: any; error?: any }> & { urls: string[] };

    expect(r.created!.status).toBe(200);
    const uid = r.created!.data.uid as string;
    expect(uid).toMatch(new RegExp(`^${org.uid}/[0-9a-f]{16}$`));
    expect(r.created!.data).toMatchObject({ name: "team", description: "first" });
    // The client sent the child's `/` as %2F, which the server took as the uid's separator.
    const encoded = uid.replace("/", "%2F");
    expect(r.urls).toEqual([
      `POST ${t.url}/iam/v2beta1/groups/${org.uid}`,
      `GET ${t.url}/iam/v2beta1/groups/${encoded}`,
      `PATCH ${t.url}/iam/v2beta1/groups/${encoded}?update_mask=description`,
      `DELETE ${t.url}/iam/v2beta1/groups/${encoded}`,
      `GET ${t.url}/iam/v2beta1/groups/${encoded}`,
    ]);
    expect(r.got).toMatchObject({ status: 200, data: r.created!.data });
    expect(r.updated).toMatchObject({ status: 200, data: { uid, name: "team", description: "second" } });
    expect(r.deleted).toMatchObject({ status: 200, data: {} });
    expect(r.gone).toMatchObject({ status: 404, error: { code: 5 } });
  });
});
