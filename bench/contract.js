// How long a reader of the contract takes to validate the AsyncAPI document (`GET /asyncapi.json`) with
// `@asyncapi/parser`, as a client's tooling does: the document as the bridge serves it (`/ws` as one channel per
// group of methods) against the same method table laid out as one `/ws` channel holding every message (the
// layout the bridge served before). A validator resolves each operation's channel into the operation, so the
// second layout costs operations × messages. Medians of rounds that alternate which layout goes first.
//
//   node bench/contract.js   (after `npm run build`); also `node bench/run.js contract`
//
// Environment: BENCH_CONTRACT_ROUNDS (3; one round of the one-channel layout takes some 20 s on an idle core).
import { Parser } from "@asyncapi/parser";
import { createAsyncApi } from "../dist/methods/contract/index.js";
import { BUILTIN_METHODS } from "../dist/methods/index.js";
import { PACKAGE } from "../dist/version.js";
import { fmtMs, fmtRatio, log, median, printIfMain } from "./_lib.js";

const ROUNDS = Number(process.env.BENCH_CONTRACT_ROUNDS ?? 3);

/** The served document's `/ws` channels merged into one `root` channel, every operation pointed at it. */
function oneChannel(document) {
  const merged = structuredClone(document);
  const groups = Object.keys(merged.channels).filter((key) => merged.channels[key].address === "/ws");
  const root = { ...merged.channels[groups[0]], title: "Root endpoint", messages: {} };
  for (const key of groups) Object.assign(root.messages, merged.channels[key].messages);
  for (const key of groups) delete merged.channels[key];
  merged.channels.root = root;
  const repoint = (ref) => ({ $ref: ref.$ref.replace(/^#\/channels\/root\.[^/]+/, "#/channels/root") });
  for (const operation of Object.values(merged.operations)) {
    operation.channel = repoint(operation.channel);
    operation.messages = operation.messages.map(repoint);
    if (operation.reply !== undefined) {
      operation.reply.channel = repoint(operation.reply.channel);
      operation.reply.messages = operation.reply.messages.map(repoint);
    }
  }
  return merged;
}

/** Milliseconds one validation of `text` takes, and its error count (both layouts must be valid). */
async function validate(text) {
  const start = performance.now();
  const diagnostics = await new Parser().validate(text);
  return { ms: performance.now() - start, errors: diagnostics.filter((d) => d.severity === 0).length };
}

export async function run() {
  const served = createAsyncApi({ methods: BUILTIN_METHODS, server: PACKAGE });
  const sides = { served: JSON.stringify(served), "one channel": JSON.stringify(oneChannel(served)) };
  const samples = { served: [], "one channel": [] };
  await validate(sides.served); // warm-up: the parser's rulesets compiled before anything counts
  for (let round = 0; round < ROUNDS; round++) {
    const names = Object.keys(sides);
    if (round % 2 === 1) names.reverse();
    for (const name of names) {
      const { ms, errors } = await validate(sides[name]);
      if (errors > 0) throw new Error(`the ${name} layout has ${errors} validation errors`);
      samples[name].push(ms);
    }
  }
  const servedMs = median(samples.served);
  const oneMs = median(samples["one channel"]);
  log(
    `AsyncAPI validation (@asyncapi/parser), ${Object.keys(served.operations).length} operations, ` +
      `${Object.keys(served.components.messages).length} messages, median of ${ROUNDS} rounds: ` +
      `served ${fmtMs(servedMs)}, one /ws channel ${fmtMs(oneMs)}`,
  );
  return [
    { benchmark: "contract: AsyncAPI validation", bridge: fmtMs(servedMs), baseline: fmtMs(oneMs), ratio: fmtRatio(servedMs / oneMs), target: "(info)", result: "-", value: servedMs, higherIsBetter: false },
  ];
}

await printIfMain(import.meta, run);
