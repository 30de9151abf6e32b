/**
 * The suite needs `wrk` and, for S8, OpenStack Keystone as it runs in production: uWSGI to serve
 * it, memcached for its cache, and the Python drivers for PostgreSQL and memcached, all from
 * Debian (the PostgreSQL server itself is BENCH_DATABASE_URL's, as for the other scenarios).
 * Missing ones are installed when BENCH_INSTALL=1 and the run is root; otherwise the exact
 * apt-get command is printed and the run stops.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** A Debian package and how to tell it is there. */
interface Requirement {
  pkg: string;
  present: () => boolean;
  /** The scenarios that need it. */
  for: string[];
}

const onPath = (cmd: string) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
// Debian's own Python, the one keystone and uWSGI's python3 plugin run (not whatever python3 is first on PATH).
const python3Has = (module: string) => spawnSync("/usr/bin/python3", ["-c", `import ${module}`]).status === 0;

const REQUIREMENTS: Requirement[] = [
  { pkg: "wrk", present: () => onPath("wrk"), for: ["S1", "S2", "S3", "S4", "S7", "S9", "E1"] },
  { pkg: "keystone", present: () => onPath("keystone-manage") && existsSync("/usr/bin/keystone-wsgi-public"), for: ["S8"] },
  { pkg: "uwsgi-core", present: () => onPath("uwsgi-core") || onPath("uwsgi"), for: ["S8"] },
  { pkg: "uwsgi-plugin-python3", present: () => existsSync("/usr/lib/uwsgi/plugins/python3_plugin.so"), for: ["S8"] },
  { pkg: "memcached", present: () => onPath("memcached"), for: ["S8"] },
  { pkg: "python3-psycopg2", present: () => python3Has("psycopg2"), for: ["S8"] },
  { pkg: "python3-memcache", present: () => python3Has("memcache"), for: ["S8"] },
];

/**
 * Checks what the selected scenarios need. Returns undefined when all is there (after
 * installing, if allowed), else the message to print before exiting 1.
 */
export function checkPrerequisites(scenarios: readonly string[], install: boolean): string | undefined {
  const missing = REQUIREMENTS.filter((r) => r.for.some((id) => scenarios.includes(id)) && !r.present());
  if (missing.length === 0) return undefined;
  const pkgs = missing.map((r) => r.pkg).join(" ");
  const command = `apt-get install -y --no-install-recommends ${pkgs}`;
  if (install && process.getuid?.() === 0) {
    process.stderr.write(`installing ${pkgs} (BENCH_INSTALL=1)\n`);
    execFileSync("apt-get", ["update"], { stdio: "inherit" });
    execFileSync("apt-get", command.split(" ").slice(1), { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    const still = missing.filter((r) => !r.present());
    return still.length === 0 ? undefined : `still missing after apt-get: ${still.map((r) => r.pkg).join(" ")}`;
  }
  return [
    `The benchmark suite needs Debian packages that are not installed: ${pkgs}.`,
    `Install them with:\n\n  sudo ${command}\n`,
    "or rerun as root with BENCH_INSTALL=1 to let the suite install them; BENCH_ONLY=S1,... runs a subset that may not need them.",
  ].join("\n");
}
