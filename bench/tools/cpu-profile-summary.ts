/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time,
 * and the share of samples whose stack passes through each area of the server (logging,
 * serialisation, token verification, permission lookup, store access). Areas overlap where one
 * calls the other (a permission lookup runs a store query), so shares need not add up.
 * Usage: node cpu-profile-summary.js <file.cpuprofile> [top]; prints Markdown.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

/** The parts of a request a profile is split into, by where a frame's code lives. */
const AREAS: [string, RegExp][] = [
  ["logging (pino)", /node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream)\//],
  ["JSON / protobuf serialisation", /(node_modules\/@bufbuild\/protobuf\/|\/src\/server\/rest\/|JSON\.(stringify|parse)|\bstringify\b)/],
  ["token verification (jose)", /(node_modules\/jose\/|\/src\/auth\/|token)/i],
  ["permission lookup", /(\/src\/services\/authorizer|\/src\/domain\/permissions|\/src\/domain\/role-rules)/],
  ["store access (Kysely, driver)", /(node_modules\/(kysely|better-sqlite3|pg|pg-protocol|pg-pool)\/|\/src\/store\/)/],
  ["gRPC / Connect transport (@connectrpc, node:http2)", /(node_modules\/@connectrpc\/|node:internal\/http2\/)/],
  ["socket writes (the write syscall, preemption included)", /^(writeUtf8String|writeBuffer|writev|writeLatin1String)$/],
  ["garbage collection", /^\(garbage collector\)$/],
  ["idle", /^\(idle\)$/],
];

/** Areas told by the function's name alone (native frames have no file). */
const BY_NAME = new Set(["garbage collection", "idle", "socket writes (the write syscall, preemption included)"]);

/** The Markdown summary of a profile. */
export function summarize(profile: { nodes: ProfileNode[]; samples: number[]; startTime: number; endTime: number }, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const self = new Map<string, number>();
  const counts = new Map<number, number>();
  for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  const label = (n: ProfileNode) => `${n.callFrame.functionName || "(anonymous)"} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  const areas = new Map<string, number>();
  let busy = 0;
  for (const [id, count] of counts) {
    const leaf = byId.get(id) as ProfileNode;
    self.set(label(leaf), (self.get(label(leaf)) ?? 0) + count);
    if (leaf.callFrame.functionName !== "(idle)") busy += count;
    const hit = new Set<string>();
    for (let n: ProfileNode | undefined = leaf; n; n = byId.get(parent.get(n.id) ?? -1)) {
      const text = `${n.callFrame.url} ${n.callFrame.functionName}`;
      for (const [area, re] of AREAS) if (re.test(BY_NAME.has(area) ? n.callFrame.functionName : text)) hit.add(area);
    }
    for (const a of hit) areas.set(a, (areas.get(a) ?? 0) + count);
  }
  const total = profile.samples.length;
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `${total} samples, ${(total * msPerSample).toFixed(0)} ms; busy (not idle) ${((busy / total) * 100).toFixed(1)} %.`,
    "",
    "| # | function (file:line) | self ms | self % of busy |",
    "|---:|---|---:|---:|",
    ...rows.map(
      ([name, n], i) =>
        `| ${i + 1} | ${name.replaceAll("|", "\\|")} | ${(n * msPerSample).toFixed(0)} | ${((n / busy) * 100).toFixed(1)} |`,
    ),
    "",
    "| area (inclusive; overlapping) | % of busy samples |",
    "|---|---:|",
    ...AREAS.filter(([a]) => a !== "idle").map(([a]) => `| ${a} | ${(((areas.get(a) ?? 0) / busy) * 100).toFixed(1)} |`),
  ].join("\n");
}

function short(url: string): string {
  const i = url.lastIndexOf("node_modules/");
  if (i >= 0) return url.slice(i + "node_modules/".length);
  const d = url.indexOf("/dist/");
  return d >= 0 ? url.slice(d + 1) : url.replace(/^file:\/\//, "");
}

// Run as a command only, not when bench/profile.ts imports summarize.
const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain && process.argv[2])
  process.stdout.write(`${summarize(JSON.parse(readFileSync(process.argv[2], "utf8")), Number(process.argv[3] ?? 25))}\n`);
