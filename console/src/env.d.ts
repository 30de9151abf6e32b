/** esbuild bundles the imported style sheet into the console's one CSS asset. */
declare module "*.css";
