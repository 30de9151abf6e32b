// Preloaded into an arbor command (NODE_OPTIONS=--import=<this file>): records the URL of every
// module the process loads, ES module or CommonJS, and writes them, one a line, to the file named
// by LOADED_MODULES_FILE when the process exits. test/cli/startup.test.ts reads them.
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";

const loaded = [];
registerHooks({
  load(url, context, nextLoad) {
    loaded.push(url);
    return nextLoad(url, context);
  },
});
process.on("exit", () => writeFileSync(process.env.LOADED_MODULES_FILE, `${loaded.join("\n")}\n`));
