import { describe, expect, it } from "vitest";
import { GIMP_LAYER_MODES } from "../../../src/hosts/gimp/edits/modes.js";
import { LAYER_MODES } from "../../../src/hosts/gimp/tree.js";
import { EDIT_BLEND_MODES } from "../../../src/methods/_internal/edits.js";

describe("GIMP layer modes for the edits' blend mode names", () => {
  it("every name has a GIMP 2.10 mode that reads back as the same name", () => {
    expect(Object.keys(GIMP_LAYER_MODES).sort()).toEqual([...EDIT_BLEND_MODES].sort());
    for (const [name, mode] of Object.entries(GIMP_LAYER_MODES)) expect([name, LAYER_MODES[mode]]).toEqual([name, name]);
  });
});
