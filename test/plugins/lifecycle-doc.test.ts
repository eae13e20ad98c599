import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { assign, fromPromise, setup } from "xstate";
import { describe, expect, it } from "vitest";
import { pluginMachine } from "../../src/plugins/plugin.machine.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The build's generator (plain JavaScript, run by `npm run build`), given machines from the TypeScript sources here. */
interface LifecycleGenerator {
  START: string;
  END: string;
  UNDESCRIBED: string;
  lifecycleTransitions(machine: unknown): Array<{ from: string; event: string; to: string | undefined }>;
  lifecycleMermaid(machine: unknown): string;
  lifecycleBlock(machine: unknown): string;
  undescribed(machine: unknown): string[];
  withLifecycleBlock(text: string, machine: unknown): string;
}
const generator = (await import(pathToFileURL(join(ROOT, "scripts", "gen-lifecycle.mjs")).href)) as LifecycleGenerator;

/** A small machine with one of each thing the generator draws: nesting, invoke, delay, guard, self-record, final. */
const sample = setup({
  types: { events: {} as { type: "GO" } | { type: "NOTE" } | { type: "STOP" } },
  actors: { work: fromPromise(async () => 1) },
  guards: { tooMany: () => false },
  delays: { wait: 100 },
}).createMachine({
  id: "sample",
  initial: "idle",
  states: {
    idle: { on: { GO: "busy" } },
    busy: {
      invoke: { src: "work", onDone: "up", onError: "down.broken" },
      after: { wait: "down.late" },
    },
    up: {
      initial: "fine",
      states: { fine: { on: { NOTE: "noted" } }, noted: { on: { NOTE: { actions: assign({}) } } } },
      always: { guard: "tooMany", target: "down.broken" },
      on: { STOP: "done" },
    },
    down: { initial: "broken", states: { broken: {}, late: {} }, on: { STOP: "done" } },
    done: { type: "final" },
  },
});

describe("the lifecycle in docs/plugins.md", () => {
  it("is what the build generates from the plugin machine now", () => {
    const committed = readFileSync(join(ROOT, "docs", "plugins.md"), "utf8");
    const start = committed.indexOf(generator.START);
    const end = committed.indexOf(generator.END);
    expect(start).toBeGreaterThan(-1);
    expect(committed.slice(start, end + generator.END.length)).toBe(generator.lifecycleBlock(pluginMachine));
  });

  it("has a written guarantee for every transition of the machine", () => {
    expect(generator.undescribed(pluginMachine)).toEqual([]);
    expect(generator.lifecycleBlock(pluginMachine)).not.toContain(generator.UNDESCRIBED);
  });

  it("has a row for every transition and draws every state of the machine", () => {
    const block = generator.lifecycleBlock(pluginMachine);
    const rows = block.split("\n").filter((line) => /^\| `/.test(line));
    expect(rows).toHaveLength(generator.lifecycleTransitions(pluginMachine).length);
    const states: string[] = [];
    const visit = (node: { path: string[]; states: Record<string, unknown> }): void => {
      if (node.path.length > 0) states.push(node.path.join("_"));
      for (const child of Object.values(node.states)) visit(child as typeof node);
    };
    visit(pluginMachine.root as never);
    expect(states).toContain("loaded_healthy");
    for (const state of states) expect(generator.lifecycleMermaid(pluginMachine)).toMatch(new RegExp(`\\b${state}\\b`));
  });
});

describe("the lifecycle generator", () => {
  it("lists a machine's transitions with readable events: invoke done/error, delays, guards, and ones that stay", () => {
    expect(generator.lifecycleTransitions(sample)).toEqual([
      { from: "idle", event: "GO", to: "busy" },
      { from: "busy", event: "work done", to: "up" },
      { from: "busy", event: "work error", to: "down.broken" },
      { from: "busy", event: "after wait", to: "down.late" },
      { from: "up", event: "[tooMany]", to: "down.broken" },
      { from: "up", event: "STOP", to: "done" },
      { from: "up.fine", event: "NOTE", to: "up.noted" },
      { from: "up.noted", event: "NOTE", to: undefined },
      { from: "down", event: "STOP", to: "done" },
    ]);
  });

  it("draws it as a Mermaid state diagram, composite states holding their own transitions", () => {
    expect(generator.lifecycleMermaid(sample)).toBe(
      [
        "stateDiagram-v2",
        "  [*] --> idle",
        "  state up {",
        "    [*] --> up_fine",
        '    state "fine" as up_fine',
        '    state "noted" as up_noted',
        "    up_fine --> up_noted: NOTE",
        "  }",
        "  state down {",
        '    state "broken" as down_broken',
        '    state "late" as down_late',
        "  }",
        "  idle --> busy: GO",
        "  busy --> up: work done",
        "  busy --> down_broken: work error",
        "  busy --> down_late: after wait",
        "  up --> down_broken: [tooMany]",
        "  up --> done: STOP",
        "  down --> done: STOP",
        "  done --> [*]",
      ].join("\n"),
    );
  });

  it("marks transitions without a written guarantee, and refuses a document without the markers", () => {
    expect(generator.undescribed(sample)).toContain("idle | GO");
    expect(generator.lifecycleBlock(sample)).toContain(`| \`idle\` | \`GO\` | \`busy\` | ${generator.UNDESCRIBED} |`);
    expect(() => generator.withLifecycleBlock("# no block here\n", sample)).toThrow(/lifecycle:start/);
    const text = `before\n${generator.START}\nold\n${generator.END}\nafter\n`;
    expect(generator.withLifecycleBlock(text, sample)).toBe(`before\n${generator.lifecycleBlock(sample)}\nafter\n`);
  });
});
