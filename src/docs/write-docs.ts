/**
 * `npm run docs`: writes the documentation generated from the code (docs/capabilities.md and
 * docs/cli.md) into the package root, the current directory when npm runs it.
 */
import { writeFileSync } from "node:fs";
import { buildProgram } from "../cli/main.js";
import { CATALOGUE_PATH, renderCapabilityCatalogue } from "./capability-catalogue.js";
import { CLI_REFERENCE_PATH, renderCliReference } from "./cli-reference.js";

writeFileSync(CATALOGUE_PATH, renderCapabilityCatalogue());
process.stdout.write(`wrote ${CATALOGUE_PATH}\n`);
writeFileSync(CLI_REFERENCE_PATH, renderCliReference(buildProgram()));
process.stdout.write(`wrote ${CLI_REFERENCE_PATH}\n`);
