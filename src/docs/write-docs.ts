/**
 * `npm run docs`: writes the documentation generated from the code (docs/capabilities.md) into
 * the package root, the current directory when npm runs it.
 */
import { writeFileSync } from "node:fs";
import { CATALOGUE_PATH, renderCapabilityCatalogue } from "./capability-catalogue.js";

writeFileSync(CATALOGUE_PATH, renderCapabilityCatalogue());
process.stdout.write(`wrote ${CATALOGUE_PATH}\n`);
