/*
 * The dashboard's static files: its page at `GET /` and `GET /dashboard`, and under `/dashboard/assets/` its
 * compiled scripts and stylesheet and the browser SDK files they import, all read from the package's `dist/`.
 * These hold no data and are answered without the token (see `isPublicDashboardPath`); the page then reads
 * everything through the API and the WebSocket with the token the user enters.
 */
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { packageRoot } from "../../package-root.js";
import { BridgeError } from "../../protocol/index.js";
import { PUBLIC_DASHBOARD_ASSET, PUBLIC_DASHBOARD_PAGES } from "../security.js";
import { HttpResponse } from "./respond.js";

/** Where the assets are served; the rest of the path is the file's path under `dist/`. */
export const DASHBOARD_ASSETS_PREFIX = "/dashboard/assets/";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/**
 * The page may load only its own files, talk only to its own origin (HTTP and WebSocket), show images it made
 * from the bridge's answers (blob: URLs), and may not be framed (clickjacking).
 */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // Static, but a new build must show at once: the browser revalidates every time.
  "cache-control": "no-cache",
};

/** The compiled package's `dist/`, whether the bridge runs from it or from its TypeScript sources (tests). */
const distRoot = (): string => join(packageRoot(), "dist");

type Get = (path: string, handler: (event: { req: Request }) => Response | Promise<Response>) => void;

/**
 * Registers the dashboard's routes with `get`. `fail` turns an error into the bridge's error answer. Files are
 * read once and kept: there are a few dozen, each a few kilobytes, and they change only with a new build.
 */
export function registerDashboard(get: Get, fail: (error: unknown) => Response): void {
  const root = distRoot();
  const cache = new Map<string, Buffer>();
  const serve = async (relative: string): Promise<Response> => {
    try {
      let body = cache.get(relative);
      if (body === undefined) {
        try {
          body = await readFile(join(root, relative));
        } catch {
          throw new BridgeError("NOT_FOUND", `The dashboard file ${relative} is not in this package (run npm run build)`, { details: { path: relative } });
        }
        cache.set(relative, body);
      }
      const type = CONTENT_TYPES[extname(relative)] ?? "application/octet-stream";
      return new HttpResponse(body as Buffer<ArrayBuffer>, { headers: { "content-type": type, ...PAGE_HEADERS } });
    } catch (error) {
      return fail(error);
    }
  };
  for (const page of PUBLIC_DASHBOARD_PAGES) get(page, () => serve("dashboard/index.html"));
  get(`${DASHBOARD_ASSETS_PREFIX}**`, (event) => {
    const path = new URL(event.req.url).pathname;
    // The same list that opens the path without a token decides what exists: nothing else under dist/ is served.
    if (!PUBLIC_DASHBOARD_ASSET.test(path)) return fail(new BridgeError("NOT_FOUND", `No route GET ${path}`, { details: { path } }));
    return serve(path.slice(DASHBOARD_ASSETS_PREFIX.length));
  });
}
