/**
 * The suite needs `wrk` and OpenStack Keystone (with uWSGI to serve it) from Debian. Missing
 * ones are installed when BENCH_INSTALL=1 and the run is root; otherwise the exact apt-get
 * command is printed and the run stops.
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

const REQUIREMENTS: Requirement[] = [
  { pkg: "wrk", present: () => onPath("wrk"), for: ["S1", "S2", "S3", "S4", "S7", "S9", "E1"] },
  { pkg: "keystone", present: () => onPath("keystone-manage") && existsSync("/usr/bin/keystone-wsgi-public"), for: ["S8"] },
  { pkg: "uwsgi-core", present: () => onPath("uwsgi-core") || onPath("uwsgi"), for: ["S8"] },
  { pkg: "uwsgi-plugin-python3", present: () => existsSync("/usr/lib/uwsgi/plugins/python3_plugin.so"), for: ["S8"] },
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
