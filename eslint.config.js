// Lint rules: typescript-eslint's recommended set over our own code, plus the type-aware rules that
// catch real bugs (a switch that misses a case, a promise nobody awaits or catches, an await of a
// non-promise) over src/ and test/. Generated code is checked by the generator, not by us.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "src/gen/", "node_modules/", "coverage/"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": ["error", { allow: ["warn", "error"] }],
    },
  },
  {
    files: ["src/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "error" },
  },
  {
    // No line over 140 columns. Prettier wraps code at that width but not comments or strings: wrap
    // a comment, split a long string with + (or a template's line continuation). A URL or a regex
    // literal may run over.
    files: ["**/*.ts", "**/*.mjs", "**/*.js"],
    rules: { "max-len": ["error", { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true }] },
  },
  {
    // Type-aware: the project service reads tsconfig.json, which includes src/ and test/. The rest
    // of recommendedTypeChecked (no-unsafe-*, unbound-method, ...) floods test/ with hundreds of
    // findings about `any` from JSON bodies, so only these are on.
    files: ["src/**/*.ts", "test/**/*.ts", "console/**/*.{ts,tsx}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/only-throw-error": "error",
      "@typescript-eslint/no-for-in-array": "error",
      "@typescript-eslint/no-implied-eval": "error",
    },
  },
  // The layers (docs/architecture.md): each folder of src/ may import only the folders below it,
  // so a wrong-direction import fails `npm run lint` (and so `npm test`).
  ...layers({
    domain: { may: [], except: { "src/domain/capabilities.ts": ["gen"] } },
    store: { may: ["domain"] },
    auth: { may: ["domain"], types: ["store"] },
    osv: { may: ["domain", "store"] },
    services: { may: ["domain", "store", "auth", "osv", "gen"] },
    server: { may: ["domain", "store", "auth", "osv", "services", "gen"] },
    client: { may: ["gen"] },
  }),
  {
    // The web console (console/, its own tsconfig with the DOM) talks to Arbor through the typed
    // client only: it may import src/client and nothing else of src/ (docs/architecture.md, "Layers").
    files: ["console/**/*.{ts,tsx}"],
    rules: {
      "no-console": "error",
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(\\.\\./)+src/(?!client/)",
              message: 'the console may import src/client only (docs/architecture.md, "Layers")',
            },
          ],
        },
      ],
    },
  },
  {
    // Migrations are frozen in time: typed against Kysely<any>, never the app's current types.
    files: ["src/store/migrate.ts", "src/store/migrations/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);

/**
 * One rule set per layer: imports of the other folders of src/ but those it may use are errors.
 * `types` are folders a layer may take types from only (auth reads the store's interfaces until
 * they move beside their resources, issue 20); `except` lets one file import a folder more, named
 * here so that it stays the only one (the capability enum is generated from the protos).
 */
function layers(spec) {
  const folders = ["domain", "store", "auth", "osv", "services", "server", "cli", "client", "gen", "docs"];
  const forbidden = (layer, allowed) => folders.filter((f) => f !== layer && !allowed.includes(f));
  const rule = (names, typesOnly) =>
    names.map((folder) => ({
      group: [`**/${folder}/*`, `../${folder}/*`],
      message: `src/${folder} is not a layer this folder may import (docs/architecture.md, "Layers")`,
      ...(typesOnly && { allowTypeImports: true }),
    }));
  return Object.entries(spec).flatMap(([layer, { may, types = [], except = {} }]) => {
    const sets = [
      {
        files: [`src/${layer}/**/*.ts`],
        ignores: Object.keys(except),
        rules: {
          "@typescript-eslint/no-restricted-imports": [
            "error",
            { patterns: [...rule(forbidden(layer, [...may, ...types]), false), ...rule(types, true)] },
          ],
        },
      },
    ];
    for (const [file, extra] of Object.entries(except)) {
      sets.push({
        files: [file],
        rules: {
          "@typescript-eslint/no-restricted-imports": ["error", { patterns: rule(forbidden(layer, [...may, ...types, ...extra]), false) }],
        },
      });
    }
    return sets;
  });
}
