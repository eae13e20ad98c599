import { randomBytes, randomUUID } from "node:crypto";
import { isIP } from "node:net";
import type { Observable, Subscription } from "rxjs";
import { isPrivateAddress } from "../imports/index.js";
import type { Limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { SerializedEvent } from "../methods/index.js";
import { BridgeError, type WebhookDelivery as DeliveryRecord, type WebhookView } from "../protocol/index.js";
import { DeliveryPoster } from "./webhook-poster.js";
import { type Pending, privateTargetMessage } from "./webhook-post.js";
import { readWebhooksFile, type StoredWebhook, writeWebhooksFile } from "./webhook-file.js";



/** The refusal of a non-public target when a webhook is added. */
function privateTarget(host: string): BridgeError {
  return new BridgeError("FORBIDDEN", privateTargetMessage(host, host), { details: { capability: "webhook:private-url", host, address: host } });
}

/** What an operator or a client asks for. */
export interface WebhookSpec {
  readonly url: string;
  readonly types: readonly string[];
  /** Signs every delivery; one is made up (and answered once) when none is given. */
  readonly secret?: string | undefined;
  /** Only events about this document (events naming no document still go). */
  readonly documentId?: number | undefined;
}



/** Where deliveries come from, and whether private targets are allowed. */
export interface WebhookSources {
  /** The shared stream of one main event type, or undefined when nothing produces it. */
  stream(type: string): Observable<SerializedEvent> | undefined;
  accepted(): string[];
  /** Loopback and private targets (`--allow-private-webhooks`). @default false */
  readonly allowPrivate: boolean;
  /**
   * The webhooks file: where the webhooks clients add are kept, rewritten whole after each change (a write that
   * fails fails the change that caused it), and read back at start. @default none: they live as long as the bridge
   */
  readonly file?: string | undefined;
}

/** A webhook from the configuration: without `types`, every event type but previews. */
export type ConfiguredWebhook = Omit<WebhookSpec, "types"> & { readonly types?: readonly string[] | undefined };

/** How a webhook joins the registry: from a client (kept in the webhooks file) or from the configuration. */
export interface AddOptions {
  /** Kept in the webhooks file, when there is one. @default true */
  readonly persistent?: boolean;
  /** The id it had before a restart. @default a new one */
  readonly id?: string;
  /** Disabled before the restart: stays so until `enable`. @default true */
  readonly enabled?: boolean;
}


interface Hook {
  readonly id: string;
  readonly url: URL;
  readonly types: readonly string[];
  readonly secret: string;
  readonly documentId: number | undefined;
  /** Kept in the webhooks file: added by a client, not from the command line. */
  readonly persistent: boolean;
  readonly subscriptions: Subscription[];
  readonly queue: Pending[];
  readonly log: DeliveryRecord[];
  enabled: boolean;
  disabledReason: string | undefined;
  sending: boolean;
  retry: NodeJS.Timeout | undefined;
  delivered: number;
  failedAttempts: number;
  dropped: number;
  consecutiveFailures: number;
}

/** Counts read by `/status` and `/metrics`. */
export interface WebhookCounts {
  delivered: number;
  failed: number;
  dropped: number;
  /** Attempts whose answer body went past `webhookResponseBodyBytes`: cut there, the rest never read. */
  bodiesCut: number;
}

/**
 * The bridge's webhooks: each subscribes to its event types and POSTs every event, signed, in order, one at a time.
 * A failed attempt (no answer within `webhookTimeoutMs`, a non-2xx answer, a redirect) is retried after an
 * exponential backoff with jitter; after `webhookDisableAfterFailures` failed attempts in a row the webhook is
 * disabled (its queue kept, bounded) until `enable`. Each queue holds at most `webhookQueueEvents`; the oldest is
 * dropped and counted. Of each answer the status and at most `webhookResponseBodyBytes` of body are read (kept in
 * the delivery log); a longer body is cut there and counted. Deliveries are at least once: a receiver that answered too late gets the same delivery id again.
 * The attempts are made on a thread of their own, below the bridge's priority (`webhook-poster.ts`).
 */
export class WebhookRegistry {
  private readonly hooks = new Map<string, Hook>();
  readonly counts: WebhookCounts = { delivered: 0, failed: 0, dropped: 0, bodiesCut: 0 };
  private closed = false;
  /** Makes the attempts, on a thread of its own; closing the bridge ends those in flight, so none holds the process open until its deadline. */
  private readonly poster: DeliveryPoster;

  constructor(
    private readonly sources: WebhookSources,
    private readonly limits: Limits,
    private readonly log: Logger,
  ) {
    this.poster = new DeliveryPoster(limits.webhookThreadNice);
  }

  /**
   * Adds a webhook and keeps it in the webhooks file (when persistent and there is one); answers its view and its
   * secret (the only time the secret is shown). Nothing is added when the file cannot be written.
   */
  async add(spec: WebhookSpec, options: AddOptions = {}): Promise<WebhookView & { secret: string }> {
    const added = this.addNow(spec, options);
    if (options.persistent !== false) {
      try {
        await this.save();
      } catch (error) {
        this.drop(added.id);
        throw error;
      }
    }
    return added;
  }

  /** Adds a webhook without writing the webhooks file: for the configuration's and the file's own. */
  addNow(spec: WebhookSpec, options: AddOptions = {}): WebhookView & { secret: string } {
    if (options.id !== undefined && this.hooks.has(options.id)) throw new BridgeError("BAD_REQUEST", `Webhook ${options.id} exists already`, { details: { webhookId: options.id } });
    if (this.hooks.size >= this.limits.maxWebhooks) {
      throw new BridgeError("BAD_REQUEST", `At most ${this.limits.maxWebhooks} webhooks (limit maxWebhooks)`, { details: { maxWebhooks: this.limits.maxWebhooks } });
    }
    const url = this.checkUrl(spec.url);
    const accepted = this.sources.accepted();
    if (spec.types.length === 0) throw new BridgeError("BAD_REQUEST", "A webhook needs at least one event type", { details: { accepted } });
    for (const type of spec.types) {
      if (!accepted.includes(type) || type.startsWith("#")) {
        throw new BridgeError("BAD_REQUEST", `Unknown event type "${type}"; accepted: ${accepted.filter((t) => !t.startsWith("#")).join(", ")}`, {
          details: { type, accepted },
        });
      }
    }
    const hook: Hook = {
      id: options.id ?? randomUUID(),
      url,
      types: [...new Set(spec.types)],
      secret: spec.secret ?? randomBytes(24).toString("base64url"),
      documentId: spec.documentId,
      persistent: options.persistent !== false,
      subscriptions: [],
      queue: [],
      log: [],
      enabled: options.enabled !== false,
      disabledReason: undefined,
      sending: false,
      retry: undefined,
      delivered: 0,
      failedAttempts: 0,
      dropped: 0,
      consecutiveFailures: 0,
    };
    for (const type of hook.types) {
      const stream = this.sources.stream(type);
      if (stream !== undefined) hook.subscriptions.push(stream.subscribe((event) => this.enqueue(hook, event)));
    }
    this.hooks.set(hook.id, hook);
    if (!hook.enabled) hook.disabledReason = "disabled before the bridge restarted";
    this.log.info({ actor: "webhooks", webhook: hook.id, host: url.host, types: hook.types }, "webhook added");
    return { ...this.view(hook), secret: hook.secret };
  }

  /** How many webhooks there are. */
  get size(): number {
    return this.hooks.size;
  }

  list(): WebhookView[] {
    return [...this.hooks.values()].map((hook) => this.view(hook));
  }

  /**
   * Removes a webhook; answers whether there was one. The webhooks file is written first: when it cannot be, the
   * webhook stays and the error says why.
   */
  async remove(id: string): Promise<boolean> {
    const hook = this.hooks.get(id);
    if (hook === undefined) return false;
    if (hook.persistent) await this.save(id);
    this.drop(id);
    return true;
  }

  /** Re-enables a disabled webhook; its queued deliveries go out again, oldest first. */
  async enable(id: string): Promise<WebhookView> {
    const hook = this.get(id);
    const was = hook.enabled;
    hook.enabled = true;
    hook.disabledReason = undefined;
    hook.consecutiveFailures = 0;
    this.pump(hook);
    if (!was && hook.persistent) await this.save();
    return this.view(hook);
  }

  /** The persistent webhooks as the webhooks file keeps them, but the one being removed. */
  stored(without?: string): StoredWebhook[] {
    return [...this.hooks.values()]
      .filter((hook) => hook.persistent && hook.id !== without)
      .map((hook) => ({
        id: hook.id,
        url: hook.url.href,
        types: hook.types,
        secret: hook.secret,
        ...(hook.documentId !== undefined ? { documentId: hook.documentId } : {}),
        enabled: hook.enabled,
      }));
  }

  /** The last `webhookLogEntries` attempts of a webhook, newest last. */
  deliveries(id: string): { webhook: WebhookView; deliveries: DeliveryRecord[] } {
    const hook = this.get(id);
    return { webhook: this.view(hook), deliveries: [...hook.log] };
  }

  /** Ids of the webhooks disabled after a run of failures. */
  disabled(): string[] {
    return [...this.hooks.values()].filter((hook) => !hook.enabled).map((hook) => hook.id);
  }

  close(): void {
    this.closed = true;
    this.poster.close();
    for (const hook of this.hooks.values()) this.stop(hook);
  }

  /**
   * At start: the configuration's webhooks, then those the webhooks file kept (with their ids, secrets and state).
   * @throws BridgeError for a bad one, or a file the bridge did not write: a configuration error.
   */
  async load(configured: readonly ConfiguredWebhook[]): Promise<void> {
    // Previews carry images and come with every stroke: a receiver asks for them by name.
    const everyType = (): string[] => this.sources.accepted().filter((type) => !type.startsWith("#") && type !== "layer:previewChange");
    for (const { types, ...hook } of configured) this.addNow({ ...hook, types: types ?? everyType() }, { persistent: false });
    const file = this.sources.file;
    for (const { id, enabled, ...spec } of file === undefined ? [] : await readWebhooksFile(file)) this.addNow(spec, { id, enabled });
  }

  private save(without?: string): Promise<void> {
    const file = this.sources.file;
    return file === undefined ? Promise.resolve() : writeWebhooksFile(file, this.stored(without));
  }

  private drop(id: string): void {
    const hook = this.hooks.get(id);
    if (hook === undefined) return;
    this.stop(hook);
    this.hooks.delete(id);
  }

  private get(id: string): Hook {
    const hook = this.hooks.get(id);
    if (hook === undefined) throw new BridgeError("NOT_FOUND", `No webhook ${id}`, { details: { webhookId: id } });
    return hook;
  }

  private checkUrl(text: string): URL {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new BridgeError("BAD_REQUEST", "A webhook URL must be an absolute http: or https: URL", { details: { url: text } });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new BridgeError("BAD_REQUEST", `A webhook URL must be http: or https:, not ${url.protocol}`, { details: { url: url.href } });
    }
    if (url.username !== "" || url.password !== "") throw new BridgeError("BAD_REQUEST", "A webhook URL must not carry credentials; use the secret");
    const host = url.hostname.replace(/^\[|\]$/g, "");
    // Names are checked again at each delivery, after DNS resolution.
    if (!this.sources.allowPrivate && (isIP(host) ? isPrivateAddress(host) : host === "localhost" || host.endsWith(".localhost"))) throw privateTarget(host);
    return url;
  }

  private stop(hook: Hook): void {
    for (const subscription of hook.subscriptions) subscription.unsubscribe();
    clearTimeout(hook.retry);
    hook.retry = undefined;
  }

  private enqueue(hook: Hook, event: SerializedEvent): void {
    if (hook.documentId !== undefined) {
      const data = JSON.parse(event.json) as unknown;
      if (data !== null && typeof data === "object" && "documentId" in data && String((data as { documentId: unknown }).documentId) !== String(hook.documentId)) return;
    }
    hook.queue.push({ deliveryId: randomUUID(), type: event.type, json: event.json, attempt: 0 });
    // The head may be on its way: drop the oldest waiting one, never the one being sent.
    while (hook.queue.length > this.limits.webhookQueueEvents) {
      hook.queue.splice(hook.sending ? 1 : 0, 1);
      hook.dropped++;
      this.counts.dropped++;
    }
    this.pump(hook);
  }

  private pump(hook: Hook): void {
    if (this.closed || hook.sending || !hook.enabled || hook.retry !== undefined || hook.queue.length === 0) return;
    if (!this.hooks.has(hook.id)) return;
    const head = hook.queue[0]!;
    hook.sending = true;
    head.attempt++;
    const target = { url: hook.url, secret: hook.secret, allowPrivate: this.sources.allowPrivate, timeoutMs: this.limits.webhookTimeoutMs, maxBodyBytes: this.limits.webhookResponseBodyBytes };
    void this.poster.post(target, head).then(({ record, bodyCut }) => {
      if (this.closed) return;
      if (bodyCut) this.counts.bodiesCut++;
      hook.sending = false;
      hook.log.push(record);
      if (hook.log.length > this.limits.webhookLogEntries) hook.log.shift();
      if (record.ok) {
        hook.queue.shift();
        hook.delivered++;
        this.counts.delivered++;
        hook.consecutiveFailures = 0;
        this.pump(hook);
        return;
      }
      hook.failedAttempts++;
      this.counts.failed++;
      hook.consecutiveFailures++;
      if (hook.consecutiveFailures >= this.limits.webhookDisableAfterFailures) {
        hook.enabled = false;
        hook.disabledReason = `${hook.consecutiveFailures} failed attempts in a row (last: ${record.error ?? `HTTP ${record.status}`})`;
        this.log.warn({ actor: "webhooks", webhook: hook.id, host: hook.url.host, failures: hook.consecutiveFailures }, "webhook disabled");
        // So a restart does not quietly re-enable it; the queue itself is not kept.
        if (hook.persistent) {
          this.save().catch((error: unknown) => this.log.error({ actor: "webhooks", webhook: hook.id, err: error }, "could not write the webhooks file"));
        }
        return;
      }
      // Exponential backoff with full jitter in its upper half: receivers that failed together do not retry together.
      const base = Math.min(this.limits.webhookRetryInitialMs * 2 ** (head.attempt - 1), this.limits.webhookRetryMaxMs);
      hook.retry = setTimeout(() => {
        hook.retry = undefined;
        this.pump(hook);
      }, base / 2 + Math.random() * (base / 2));
      hook.retry.unref();
    });
  }

  private view(hook: Hook): WebhookView {
    return {
      id: hook.id,
      url: hook.url.href,
      types: [...hook.types],
      ...(hook.documentId !== undefined ? { documentId: hook.documentId } : {}),
      enabled: hook.enabled,
      ...(hook.disabledReason !== undefined ? { disabledReason: hook.disabledReason } : {}),
      persistent: hook.persistent && this.sources.file !== undefined,
      queued: hook.queue.length,
      delivered: hook.delivered,
      failedAttempts: hook.failedAttempts,
      dropped: hook.dropped,
      consecutiveFailures: hook.consecutiveFailures,
    };
  }
}
