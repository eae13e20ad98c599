import type { HostAdapter } from "../../../src/hosts/host.js";
import { createPhotoshopHost } from "../../../src/hosts/photoshop/index.js";
import { startBridge } from "../../helpers/bridge.js";
import { afterEachTest } from "../../helpers/cleanups.js";
import { FakePhotoshop } from "../../fakes/photoshop/server.js";
import { SAMPLE_NAME } from "../../fakes/photoshop/model.js";
import type { ConformanceEditor } from "../_editors.js";

/** Fakes started for a test that brought its own host: nothing closes them with the bridge. */
const fakes: FakePhotoshop[] = [];
afterEachTest(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.stop()));
});

/** The Photoshop host on `fake`, which stops the fake when the bridge closes it: the fake lives as long as its bridge. */
function hostOn(fake: FakePhotoshop): HostAdapter {
  const host = createPhotoshopHost(fake.address);
  const close = async (): Promise<void> => {
    try {
      await host.close();
    } finally {
      await fake.stop();
    }
  };
  return new Proxy(host, { get: (target, property) => (property === "close" ? close : Reflect.get(target, property, target)) });
}

/**
 * Photoshop over Remote Connections, against a fresh fake Photoshop per bridge (test/fakes/photoshop) showing the
 * suite's sample tree (`Label`, `Product` [`Subject`, `Shadow`], `Background`, 400×300) as the other editors do.
 */
export const photoshop: ConformanceEditor = {
  name: "photoshop",
  label: "photoshop",
  editors: 1,
  skip: undefined,
  async start(options) {
    const fake = await FakePhotoshop.start({ sample: "conformance" });
    if (options?.host !== undefined) fakes.push(fake);
    return startBridge({ ...options, host: options?.host ?? hostOn(fake) });
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
