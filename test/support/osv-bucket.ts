/**
 * An OSV bucket folder served on loopback, shaped as gs://osv-vulnerabilities publishes one:
 * `<prefix>/all.zip`, `<prefix>/modified_id.csv` (`<modified>,<id>`, sorted by its text, newest
 * first, as OSV's exporter sorts it) and `<prefix>/<id>.json`, all made from the documents the
 * test holds. It counts the requests it sees, and can fail or replace any path.
 */
import http from "node:http";
import { zipOf } from "../../bench/zip-writer.js";

/** A minimal valid OSV document of a PyPI package. */
export interface BucketDocument {
  id: string;
  modified: string;
  summary?: string;
  withdrawn?: string;
}

/** A served bucket. */
export interface OsvBucket {
  /** The server's origin, `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** The folder of prefix: its documents by id, and what is served instead of the generated files. */
  folder(prefix: string): BucketFolder;
  /** Paths requested, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** One folder of the bucket. */
export interface BucketFolder {
  /** The URL of its all.zip. */
  readonly url: string;
  readonly documents: Map<string, BucketDocument>;
  /** A path under the folder (`modified_id.csv`, `X.json`) and the status or body served for it instead. */
  readonly overrides: Map<string, number | string>;
  /** Adds or replaces documents. */
  put(...documents: BucketDocument[]): void;
  /** The index the folder serves, as OSV writes it. */
  index(): string;
}

/** The JSON of a document. */
export function documentJson(d: BucketDocument): string {
  return JSON.stringify({
    schema_version: "1.6.0",
    id: d.id,
    modified: d.modified,
    published: "2024-01-01T00:00:00Z",
    ...(d.withdrawn !== undefined && { withdrawn: d.withdrawn }),
    summary: d.summary ?? `${d.id} in example-${d.id.toLowerCase()}`,
    affected: [
      {
        package: { ecosystem: "PyPI", name: `example-${d.id.toLowerCase()}` },
        ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "1.0" }] }],
      },
    ],
  });
}

/** Starts a bucket on an ephemeral loopback port. */
export async function serveOsvBucket(): Promise<OsvBucket> {
  const folders = new Map<string, BucketFolder>();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(path);
    const slash = path.lastIndexOf("/");
    const folder = folders.get(path.slice(0, slash));
    const name = path.slice(slash + 1);
    const override = folder?.overrides.get(name);
    if (folder === undefined) return void res.writeHead(404).end();
    if (typeof override === "number") return void res.writeHead(override).end();
    if (typeof override === "string") return void res.writeHead(200).end(override);
    if (name === "all.zip") {
      const zip = zipOf([...folder.documents.values()].map((d) => ({ name: `${d.id}.json`, data: Buffer.from(documentJson(d)) })));
      return void res.writeHead(200, { "content-type": "application/zip", "content-length": String(zip.length) }).end(zip);
    }
    if (name === "modified_id.csv") return void res.writeHead(200, { "content-type": "text/csv" }).end(folder.index());
    const document = name.endsWith(".json") ? folder.documents.get(name.slice(0, -5)) : undefined;
    if (document === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(documentJson(document));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    requests,
    folder(prefix) {
      const existing = folders.get(prefix);
      if (existing !== undefined) return existing;
      const documents = new Map<string, BucketDocument>();
      const created: BucketFolder = {
        url: `${origin}${prefix}/all.zip`,
        documents,
        overrides: new Map(),
        put: (...ds) => ds.forEach((d) => documents.set(d.id, d)),
        index: () =>
          [...documents.values()]
            .map((d) => [d.modified, d.id] as const)
            .sort(([ta, ia], [tb, ib]) => (ta !== tb ? (ta < tb ? 1 : -1) : ia < ib ? -1 : ia > ib ? 1 : 0))
            .map(([t, id]) => `${t},${id}\n`)
            .join(""),
      };
      folders.set(prefix, created);
      return created;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
