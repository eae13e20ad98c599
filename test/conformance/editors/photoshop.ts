import { afterEach } from "vitest";
import { createPhotoshopHost } from "../../../src/hosts/photoshop/index.js";
import { startBridge } from "../../helpers/bridge.js";
import { FakePhotoshop } from "../../fakes/photoshop/server.js";
import { SAMPLE_NAME } from "../../fakes/photoshop/model.js";
import type { ConformanceEditor } from "../_editors.js";

const fakes: FakePhotoshop[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.stop()));
});

/**
 * Photoshop over Remote Connections, against a fresh fake Photoshop per bridge (test/fakes/photoshop) showing the
 * suite's sample tree (`Label`, `Product` [`Subject`, `Shadow`], `Background`, 800×600) as the other editors do.
 */
export const photoshop: ConformanceEditor = {
  name: "photoshop",
  label: "photoshop",
  editors: 1,
  skip: undefined,
  async start(options) {
    const fake = await FakePhotoshop.start({ sample: "conformance" });
    fakes.push(fake);
    return startBridge({ ...options, host: options?.host ?? createPhotoshopHost(fake.address) });
  },
  paints: false,
  sampleName: SAMPLE_NAME,
  lacks: {
    "a flattened PSD opens as one background layer holding its picture":
      "the fake Photoshop builds layers from layer records only; Photoshop itself opens the merged image",
    "a save that would drop the text layer answers WOULD_LOSE_DATA and leaves the file as it was; allowLossy saves and keeps .bak":
      "Photoshop saves its own documents natively: nothing is dropped, so there is nothing to refuse",
  },
};
