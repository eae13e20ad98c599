/**
 * `GET /`: a small HTML page for a person who opens the bridge's address in a browser. It links to the docs and
 * to the bridge's own JSON views; it names no paths, ids or secrets, and is served under the same access rules as
 * every other route.
 */

/** Where the docs of a published version live: the package page renders the README, which links every doc page. */
const DOCS_URL_BASE = "https://www.npmjs.com/package";

/** The bridge's own pages the index links to, with what each one answers. */
const LINKS: ReadonlyArray<readonly [path: string, what: string]> = [
  ["/health", "liveness: answers while the process lives"],
  ["/ready", "readiness: 200 once an editor takes calls, 503 before"],
  ["/status", "the operator's view: editors, clients, plugins, file rules"],
  ["/schema", "every method's params and result as JSON Schema"],
  ["/plugins", "loaded plugins and the ones that failed"],
  ["/metrics", "counters in Prometheus text"],
];

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page's HTML for a server `name` and `version`. */
export function indexPage(server: { readonly name: string; readonly version: string }): string {
  const name = escapeHtml(server.name);
  const version = escapeHtml(server.version);
  const docs = `${DOCS_URL_BASE}/${encodeURIComponent(server.name)}/v/${encodeURIComponent(server.version)}`;
  const items = LINKS.map(([path, what]) => `<li><a href="${path}">${path}</a>: ${escapeHtml(what)}</li>`).join("\n");
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${name} ${version}</title></head>
<body>
<h1>${name} ${version}</h1>
<p>Clients connect over WebSocket at <code>/ws</code> or call the HTTP routes listed in <a href="/schema">/schema</a>.
Docs: <a href="${escapeHtml(docs)}">README and guides</a> (also <code>README.md</code> and <code>docs/</code> in the installed package).</p>
<ul>
${items}
</ul>
</body>
</html>
`;
}
