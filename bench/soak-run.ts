/**
 * The entry of `npm run soak`: runs the soak, prints its figures as Markdown, writes them into
 * docs/reliability.md with SOAK_WRITE=1, and exits 1 when the run did not pass.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./lib/arbor-process.js";
import { MINUTES, soak, soakMarkdown } from "./soak.js";

const result = await soak();
const text = soakMarkdown(result, `SOAK_MINUTES=${MINUTES} npm run soak`);
process.stdout.write(`${text}\n`);
if (process.env.SOAK_WRITE === "1") {
  const path = join(ROOT, "docs/reliability.md");
  const doc = readFileSync(path, "utf8");
  const [start, end] = ["<!-- soak:start -->", "<!-- soak:end -->"];
  if (!doc.includes(start) || !doc.includes(end)) throw new Error(`docs/reliability.md lacks the ${start} ... ${end} markers`);
  writeFileSync(path, `${doc.slice(0, doc.indexOf(start) + start.length)}\n${text}\n${doc.slice(doc.indexOf(end))}`);
}
process.exitCode = result.passed ? 0 : 1;
