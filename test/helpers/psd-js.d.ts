/** The few parts of psd.js (the `psd` package, which ships no types) the tests read: the parsed layer tree. */
declare module "psd" {
  interface PsdJsNode {
    readonly name: string;
    /** The record's own flag (`visible()` also hides a layer clipped to a hidden one). */
    readonly layer: { readonly visible: boolean };
    isGroup(): boolean;
    children(): PsdJsNode[];
  }
  export default class PSD {
    constructor(bytes: Uint8Array);
    parse(): boolean;
    tree(): PsdJsNode;
  }
}
