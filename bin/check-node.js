// The first thing the commands do: refuse, in one line, a Node.js older than package.json's
// "engines" allows. Written for any Node that runs ES modules, so that an old one gets this line
// rather than a crash (a native addon built for a newer Node, or a missing API) or EBADENGINE noise.
import { readFileSync } from "node:fs";

const { engines } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const minimum = Number(/^>=(\d+)/.exec(engines.node)?.[1]);
const major = Number(process.versions.node.split(".")[0]);
if (!(major >= minimum)) {
  const command = process.argv[1]?.replace(/^.*[\\/]/, "").replace(/\.js$/, "") || "arbor";
  process.stderr.write(
    `${command}: Node.js ${process.versions.node} is too old; Arbor needs Node.js ${minimum} or later (${process.execPath})\n`,
  );
  process.exit(2);
}
