import { packageManifest } from "./package-root.js";

/** Name and version of this package, from its package.json (read once, as the modules load). */
export const PACKAGE: { readonly name: string; readonly version: string } = packageManifest();
