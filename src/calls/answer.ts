import { statusForError, type ProtocolError } from "../protocol/index.js";
import { imageResultJson, isWireImage, LARGE_IMAGE_BYTES } from "../methods/index.js";
import { Cancellation, type CancelSignal } from "../actors/clients/requests.js";
import { imageBytesOf, imageWanted } from "./accept.js";
import type { CallCancel, DispatchCaller, HttpAnswer, HttpCall } from "./port.js";

/** What answering an HTTP call needs of the dispatcher. */
export interface HttpCallDispatch {
  call(caller: DispatchCaller, name: string, params: unknown, binaryParts: readonly Uint8Array[], control: { readonly cancel?: CancelSignal | undefined }): Promise<unknown>;
  toWireError(error: unknown, context: { method?: string }): ProtocolError;
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

/** A cancellation that sets up its watch only when a call first listens for it: most calls never wait to be cancelled. */
class WatchedCancellation extends Cancellation {
  private watching = false;

  constructor(private readonly watch: (abort: () => void) => void) {
    super();
  }

  override addEventListener(type: "abort", listener: () => void): void {
    if (!this.watching) {
      this.watching = true;
      this.watch(() => this.abort());
    }
    super.addEventListener(type, listener);
  }
}

function signalOf(cancel: CallCancel | undefined): CancelSignal | undefined {
  return typeof cancel === "function" ? new WatchedCancellation(cancel) : cancel;
}

/**
 * Answers one HTTP method call, for the router and its fast path alike. `Accept: image/…` on an image route picks the
 * format only when the params name none (an explicit `format` wins; routes without a `format` param, previews, answer
 * PNG whatever image type is asked for) and answers the image's bytes, or 204 when there is none. Otherwise the result
 * is bare JSON (a large image built in slices), a failure a bare ProtocolError with the error table's status.
 * Never rejects.
 */
export async function answerHttpCall(dispatch: HttpCallDispatch, call: HttpCall): Promise<HttpAnswer> {
  const { method, params } = call;
  try {
    const wanted = method.http?.image === true ? imageWanted(call.accept) : null;
    if (wanted?.format !== undefined && params["format"] === undefined && method.fields.has("format")) params["format"] = wanted.format;
    const result = await dispatch.call(call.caller, method.name, params, [], { cancel: signalOf(call.cancel) });
    const image = wanted === null ? undefined : imageBytesOf(result);
    if (image === null) return { status: 204, headers: {}, body: null };
    if (image !== undefined) {
      const headers = { "content-type": image.mime, "x-image-width": String(image.width), "x-image-height": String(image.height) };
      return { status: 200, headers, body: image.bytes };
    }
    if (isWireImage(result) && result.image.bytes.byteLength > LARGE_IMAGE_BYTES) return { status: 200, headers: JSON_HEADERS, body: await imageResultJson(result, "", "") };
    return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(result === undefined ? null : result) };
  } catch (error) {
    const wire = dispatch.toWireError(error, { method: method.name });
    return { status: statusForError(wire), headers: JSON_HEADERS, body: JSON.stringify(wire) };
  }
}
