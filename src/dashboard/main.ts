/*
 * The dashboard page: asks for the token when the bridge wants one, polls `GET /status` for editors, clients,
 * plugins, webhooks and call statistics (and the delivery log of the webhook the user selected), keeps one connection per editor for its document and events, and redraws at most
 * once per RENDER_INTERVAL_MS whatever the rate of changes. Where the dashboard may act (`acts.ts` decides), rows get
 * buttons (disconnect or evict a client, reload a plugin, enable a webhook) and the "try it" panel shows; each act
 * waits for the user's confirmation. A tab that closes disposes its connections (close 4000) rather than leaving
 * them detached for the resume TTL.
 */
import type { PluginHealth } from "../protocol/index.js";
import { Acts, actButton } from "./acts.js";
import {
  disconnectClient,
  enableWebhook,
  isUnauthorized,
  readDeliveries,
  readPluginHealth,
  readSchema,
  readStatus,
  reloadPlugin,
  savedToken,
  saveToken,
  type ClientStatus,
  type EditorStatus,
  type StatusView,
} from "./api.js";
import { renderCharts } from "./charts.js";
import { browser, byId, el, type Elem, type InputElem } from "./dom.js";
import { EditorView } from "./editor-view.js";
import { EventLog } from "./event-log.js";
import { TryIt } from "./try-it.js";
import { VirtualList } from "./virtual-list.js";
import { WebhooksView } from "./webhooks-view.js";

/** Least time between two redraws of the page: changes in between are drawn together. */
export const RENDER_INTERVAL_MS = 250;
/** How often `GET /status` is read while the tab is visible (a new client shows within this). */
export const STATUS_POLL_MS = 500;
/** How often it is read while the tab is hidden: nobody looks, the bridge should not pay. */
export const HIDDEN_POLL_MS = 5_000;
/** How often each loaded plugin's health is read (one request per plugin). */
export const PLUGIN_HEALTH_POLL_MS = 5_000;
/** Height of one client row in pixels (matches `.client-row` in dashboard.css). */
const CLIENT_ROW_HEIGHT = 22;

let token = savedToken();
let status: StatusView | undefined;
let statusError = "";
const pluginHealth = new Map<string, PluginHealth>();
let lastPluginPoll = 0;
const editors = new Map<string, EditorView>();
let dirty = true;
let renderScheduled = false;
let lastRender = 0;
/** The next status read, while one is scheduled; a read in progress sets `polling`. */
let pollTimer: ReturnType<typeof setTimeout> | undefined;
let polling = false;

const acts = new Acts(
  { confirm: byId("act-confirm"), question: byId("act-question"), yes: byId("act-yes"), no: byId("act-no"), result: byId("act-result") },
  () => pollNow(),
);

const log = new EventLog(byId("event-log"), byId("event-filters"), byId("event-pause"), byId("event-count"), () => scheduleRender());

const webhooks = new WebhooksView(
  {
    totals: byId("webhook-totals"),
    none: byId("webhooks-none"),
    table: byId("webhooks-table"),
    rows: byId("webhooks"),
    log: byId("webhook-log"),
    logTitle: byId("webhook-log-url"),
    logError: byId("webhook-log-error"),
    logRows: byId("webhook-deliveries"),
  },
  (id) => readDeliveries(token, id),
  () => scheduleRender(),
  () =>
    acts.allowed
      ? (hook) =>
          acts.propose(`Enable the webhook to ${hook.url}? What it queued is delivered, oldest first.`, async () => {
            const enabled = await enableWebhook(token, hook.id);
            return `enabled the webhook to ${enabled.url} (${enabled.queued} queued)`;
          })
      : undefined,
);

const tryIt = new TryIt(
  {
    section: byId("try-it"),
    method: byId("try-method"),
    editor: byId("try-editor"),
    description: byId("try-description"),
    fields: byId("try-fields"),
    send: byId("try-send"),
    error: byId("try-error"),
    answer: byId("try-answer"),
    image: byId("try-image"),
  },
  acts,
  () => readSchema(token),
  (editorId, method, params) => {
    const view = editors.get(editorId);
    if (view === undefined) return Promise.reject(new Error(`no editor ${editorId}`));
    return view.invoke(method, params);
  },
);

const clientList = new VirtualList<ClientStatus>(byId("clients"), CLIENT_ROW_HEIGHT, (client) => {
  const row = el(
    "div",
    `client-row ${client.state}`,
    el("span", "client-name", client.name ?? client.idPrefix),
    el("span", "client-id", client.idPrefix),
    el("span", "", client.endpoint),
    el("span", "", client.editorId ?? "–"),
    el("span", "", client.state),
    el("span", "client-subs", client.subscriptions.join(" ") || "–"),
    el("span", "num", String(client.inFlight)),
    el("span", "num", age(Date.now() - client.connectedAt)),
    el("span", "client-acts", ...clientActs(client)),
  );
  row.title = `${client.name ?? "(no name)"} ${client.idPrefix}: ${client.subscriptions.join(", ") || "no subscriptions"}`;
  row.setAttribute("data-client", client.idPrefix);
  return row;
});

/** The id prefixes of this tab's own connections (one per editor card). */
function ownPrefixes(): Set<string> {
  return new Set([...editors.values()].flatMap((view) => (view.clientIdPrefix === undefined ? [] : [view.clientIdPrefix])));
}

/** A client row's buttons: disconnect (an attached client) and evict, while the dashboard may act. */
function clientActs(client: ClientStatus): Elem[] {
  if (!acts.allowed) return [];
  const who = `${client.name ?? "client"} (${client.idPrefix})${ownPrefixes().has(client.idPrefix) ? ", this tab's own connection," : ""}`;
  const buttons: Elem[] = [];
  if (client.state === "attached") {
    buttons.push(
      actButton("disconnect", "Close this client's socket; it may resume", () =>
        acts.propose(`Disconnect ${who}? Its socket is closed; it may resume.`, async () => {
          const answer = await disconnectClient(token, client.idPrefix, false);
          return answer.disconnected ? `disconnected ${answer.client.name ?? answer.client.idPrefix}` : `${answer.client.idPrefix} had no socket to close`;
        }),
      ),
    );
  }
  buttons.push(
    actButton("evict", "Dispose this client: it cannot resume", () =>
      acts.propose(`Evict ${who}? It is disposed and cannot resume.`, async () => {
        const answer = await disconnectClient(token, client.idPrefix, true);
        return `evicted ${answer.client.name ?? answer.client.idPrefix}`;
      }),
    ),
  );
  return buttons;
}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3600)}h`;
}

/** Redraws at the next frame, but never sooner than RENDER_INTERVAL_MS after the last redraw. */
function scheduleRender(): void {
  dirty = true;
  if (renderScheduled) return;
  renderScheduled = true;
  const wait = Math.max(0, lastRender + RENDER_INTERVAL_MS - Date.now());
  setTimeout(() => browser.requestAnimationFrame(render), wait);
}

function render(): void {
  renderScheduled = false;
  lastRender = Date.now();
  log.render();
  if (!dirty) return;
  dirty = false;
  byId("status-error").textContent = statusError;
  if (status === undefined) return;
  byId("bridge-name").textContent = `${status.name} ${status.version}`;
  const overall = byId("bridge-status");
  overall.textContent = status.status;
  overall.className = `badge ${status.status}`;
  byId("bridge-reasons").textContent = status.reasons.map((r) => r.message).join("; ");
  byId("uptime").textContent = `up ${age(status.uptimeMs)}`;
  // What this tab's token may do: a read token sees everything and changes nothing.
  const scope = byId("token-scope");
  scope.textContent = status.scope === "read" ? "read-only token" : "full access";
  scope.className = `badge scope ${status.scope ?? "full"}`;
  scope.title = status.scope === "read" ? "This tab's token may read and follow events; calls that change anything answer FORBIDDEN." : "This tab may call every method.";
  renderEditors(status.editors);
  byId("client-count").textContent = String(status.clients.length);
  clientList.update(status.clients);
  renderPlugins(status.plugins);
  webhooks.render(status.webhooks);
  renderCharts(byId("charts"), status.calls);
}

function cell(text: string, className = ""): Elem {
  return el("td", className, text);
}

function renderEditors(list: readonly EditorStatus[]): void {
  byId("editors").replaceChildren(
    ...list.map((e) => {
      const row = el(
        "tr",
        e.degraded ? "degraded" : "",
        cell(e.id),
        cell(e.kind),
        cell(e.hostVersion ?? "–"),
        cell(e.state, `state ${e.state}`),
        cell(String(e.queued), "num"),
        cell(String(e.running), "num"),
        cell(String(e.restarts), "num"),
        cell(String(e.clients), "num editor-clients"),
        cell(e.lastError ?? ""),
      );
      row.setAttribute("data-editor", e.id);
      return row;
    }),
  );
}

function renderPlugins(plugins: StatusView["plugins"]): void {
  const rows: Elem[] = [];
  for (const { id } of plugins.loaded) {
    const health = pluginHealth.get(id);
    rows.push(pluginRow(id, health?.status ?? "loaded", health));
  }
  for (const failed of plugins.failed) rows.push(pluginRow(failed.id, "failed", failed));
  byId("plugins").replaceChildren(...(rows.length > 0 ? rows : [el("li", "muted", "no plugins")]));
}

function pluginRow(id: string, state: string, health: PluginHealth | undefined): Elem {
  const checks = Object.entries(health?.checks ?? {})
    .map(([name, result]) => `${name}: ${result}`)
    .join(", ");
  const error = health?.lastError;
  const reason = error === undefined ? "" : `${error.code}: ${error.message}${typeof error.details?.["reason"] === "string" ? ` (${error.details["reason"]})` : ""}`;
  const row = el("li", `plugin ${state}`, el("strong", "", id), " ", el("span", `badge ${state}`, state), checks === "" ? "" : ` ${checks}`);
  if (reason !== "") row.append(el("div", "plugin-error", reason));
  if (acts.allowed) {
    row.append(
      " ",
      actButton("reload", "Load this plugin's code again; the old code keeps serving if the new one fails", () =>
        acts.propose(`Reload the plugin ${id}? Its clients move to the new code.`, async () => {
          const health = await reloadPlugin(token, id);
          return `reloaded ${health.id} (${health.status})`;
        }),
      ),
    );
  }
  row.setAttribute("data-plugin", id);
  return row;
}

/** Keeps one card per editor: new editors get one, gone ones are closed. */
function syncEditors(list: readonly EditorStatus[]): void {
  const ids = new Set(list.map((e) => e.id));
  for (const [id, view] of editors) {
    if (!ids.has(id)) {
      editors.delete(id);
      view.root.replaceChildren();
      void view.close();
    }
  }
  for (const { id } of list) {
    if (editors.has(id)) continue;
    const view = new EditorView({
      editorId: id,
      url: browser.location.origin,
      token,
      documentEvents: editors.size === 0,
      onEvent: onEditorEvent,
      onChange: scheduleRender,
    });
    editors.set(id, view);
    byId("documents").append(view.root);
  }
}

/**
 * Every event the cards' connections receive. State events are their own card's; events that name a document come
 * once (on the first card's connection) from any editor, and go to the card that shows that document, or to every
 * card when none does (a document became current, or an editor restarted).
 */
function onEditorEvent(editorId: string, type: string, data: unknown): void {
  if (type.startsWith("#")) {
    log.add("bridge", type, data);
    return;
  }
  const named = data as { documentId?: unknown; editorId?: unknown } | null;
  const owner =
    typeof named?.editorId === "string"
      ? editors.get(named.editorId)
      : [...editors.values()].find((view) => view.documentId !== undefined && view.documentId === named?.documentId);
  const isStateEvent = type === "selection:changed" || type === "layer:selectionChange" || type === "layer:previewChange";
  log.add(isStateEvent ? editorId : (owner?.editorId ?? "–"), type, data);
  if (isStateEvent) return;
  if (owner !== undefined) owner.apply(type, data);
  else for (const view of editors.values()) view.apply(type, data);
}

async function pollPlugins(view: StatusView): Promise<void> {
  if (Date.now() - lastPluginPoll < PLUGIN_HEALTH_POLL_MS) return;
  lastPluginPoll = Date.now();
  const answers = await Promise.all(view.plugins.loaded.map(({ id }) => readPluginHealth(token, id).catch(() => undefined)));
  pluginHealth.clear();
  for (const health of answers) if (health !== undefined) pluginHealth.set(health.id, health);
}

async function poll(): Promise<void> {
  pollTimer = undefined;
  polling = true;
  try {
    const view = await readStatus(token);
    status = view;
    statusError = "";
    syncEditors(view.editors);
    acts.update(view);
    tryIt.update(view.editors.map((e) => e.id));
    await Promise.all([pollPlugins(view), webhooks.refresh(view.webhooks?.hooks ?? [])]);
  } catch (error) {
    if (isUnauthorized(error)) {
      polling = false;
      acts.update(undefined);
      askForToken(token === undefined ? "This bridge needs its access token." : "The token was refused; enter it again.");
      return;
    }
    statusError = `cannot read /status: ${(error as Error).message}`;
  }
  polling = false;
  scheduleRender();
  pollTimer = setTimeout(() => void poll(), browser.document.hidden ? HIDDEN_POLL_MS : STATUS_POLL_MS);
}

/** Reads `/status` now (after an act) instead of at the next poll; a read in progress is left to finish. */
function pollNow(): void {
  if (polling || pollTimer === undefined) return;
  clearTimeout(pollTimer);
  // A closed (or navigated away) tab ends its connections with 4000: its logical clients are disposed at once instead
// of staying detached, and listed, for the resume TTL.
browser.addEventListener("pagehide", () => {
  for (const view of editors.values()) void view.close();
});
// Back from the back/forward cache with its connections closed: start again.
browser.addEventListener("pageshow", (event) => {
  if (event.persisted === true) browser.location.reload();
});

void poll();
}

function askForToken(why: string): void {
  const form = byId("token-form");
  const input = byId<InputElem>("token-input");
  byId("token-reason").textContent = why;
  form.hidden = false;
  byId("dashboard").hidden = true;
  input.focus();
}

byId("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  token = byId<InputElem>("token-input").value.trim() || undefined;
  saveToken(token);
  byId("token-form").hidden = true;
  byId("dashboard").hidden = false;
  clearTimeout(pollTimer);
  void poll();
});

byId("forget-token").addEventListener("click", () => {
  saveToken(undefined);
  token = undefined;
});

void poll();
