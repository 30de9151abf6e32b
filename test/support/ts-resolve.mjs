// Lets plain `node` run the TypeScript sources in a child process, as tests that need a second
// process do: Node strips the types itself, and this maps the `.js` of an import to its `.ts`.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      if (error?.code !== "ERR_MODULE_NOT_FOUND" || !specifier.startsWith(".") || !specifier.endsWith(".js")) throw error;
      return next(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});
