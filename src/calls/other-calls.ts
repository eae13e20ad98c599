import type { CallOthers } from "../methods/index.js";
import type { CancelSignal, RequestControl } from "../actors/clients/requests.js";
import type { DispatchCaller } from "./port.js";

/** What `OtherCalls` runs its calls through: the dispatcher. */
export interface CallRunner {
  call(caller: DispatchCaller, name: string, params: unknown, binaryParts: readonly Uint8Array[], control: RequestControl): Promise<unknown>;
  readyEditorIds(): readonly string[];
}

/**
 * `MethodContext.dispatch` for one call: made for every call of a method that is not host-bound, and used only by the
 * few that run others, so it is one small object rather than closures made per call.
 */
export class OtherCalls implements CallOthers {
  constructor(
    private readonly dispatcher: CallRunner,
    private readonly caller: DispatchCaller,
    private readonly control: RequestControl,
  ) {}

  call(name: string, params: unknown, options: { readonly editorId?: string | undefined; readonly cancel?: CancelSignal | undefined } = {}): Promise<unknown> {
    const caller = options.editorId === undefined ? this.caller : { ...this.caller, editorId: options.editorId };
    return this.dispatcher.call(caller, name, params, [], { cancel: options.cancel });
  }

  editors(): readonly string[] {
    return this.dispatcher.readyEditorIds();
  }

  get cancel(): CancelSignal | undefined {
    return this.control.cancel;
  }

  get progress(): RequestControl["progress"] {
    return this.control.progress;
  }
}
