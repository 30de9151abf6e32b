/**
 * A second process for tests: opens a store with the options given as JSON in argv[2] (which runs
 * the migrations), then closes it. Run as `node --import ./test/support/ts-resolve.mjs`.
 */
import { createStore } from "../../src/store/create-store.js";

const store = await createStore(JSON.parse(process.argv[2] ?? "{}"));
await store.close();
