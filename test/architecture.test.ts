import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/*
 * The layering of docs/architecture.md, checked from the imports themselves (type-only imports included: they
 * are dependencies too). A module may import its own layer or any layer below it, never one above.
 */
const SRC = resolve(import.meta.dirname, "../src");

const LAYERS: ReadonlyArray<readonly [number, RegExp]> = [
  [0, /^(protocol\/|logger\.ts$|loopback\.ts$|version\.ts$|package-root\.ts$|cache-dir\.ts$)/],
  [1, /^files\//],
  [2, /^(limits\.ts$|imports\/)/],
  [3, /^hosts\//],
  [4, /^methods\//],
  [5, /^(actors|cluster|calls|events|observability)\//],
  [6, /^plugins\//],
  [7, /^(transports|mcp)\//],
  [8, /^(testing\/.*|bridge\/.*|cli\/.*|photoshop-plugin|photoshop-relay|index)\.ts$/],
];
/** The client SDK runs in browsers: it may import only the zod-free part of the protocol. */
const CLIENT = /^client\//;
const CLIENT_MAY_IMPORT = /^(client\/|protocol\/(constants|method-names|events|resources|errors|binary-frames|control-names)\.ts$)/;
/** The MCP server also drives a remote bridge (`image-editor-bridge mcp --url`) through the client SDK. */
const MCP = /^mcp\//;
/** The dashboard is browser code too: it loads the client SDK and its own files, nothing the bridge runs. */
const DASHBOARD = /^dashboard\//;
const DASHBOARD_MAY_IMPORT = /^dashboard\//;

function layerOf(file: string): number {
  const found = LAYERS.find(([, pattern]) => pattern.test(file));
  if (found === undefined) throw new Error(`${file} belongs to no layer of docs/architecture.md`);
  return found[0];
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

interface Import {
  readonly target: string;
  /** `import type` / `export type`: erased at run time (still a dependency for layering and circles). */
  readonly typeOnly: boolean;
}

/** Every relative import of a file, resolved to a file under src (`.js` specifiers name `.ts` sources). */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(import|export)(\s+type)?[^;"]*?(?:from\s*|import\s*\(\s*)"(\.{1,2}\/[^"]+)"/g)].map((m) => ({
    target: relative(SRC, resolve(dirname(file), m[3]!.replace(/\.js$/, ".ts"))),
    typeOnly: m[2] !== undefined,
  }));
}

const graph = new Map(sources(SRC).map((file) => [relative(SRC, file), importsOf(file)] as const));

/**
 * The transports translate; the logical clients and the event log decide. A transport reaches those rooms only
 * through their ports, never their internals (the registry, the client, the log, …).
 */
const BEHIND_PORTS = /^(actors\/clients|events)\//;
const PORTS = ["actors/clients/port.ts", "events/port.ts"];

function portViolations(imports: ReadonlyMap<string, readonly Import[]>): string[] {
  const violations: string[] = [];
  for (const [file, targets] of imports) {
    if (!file.startsWith("transports/")) continue;
    for (const { target } of targets) if (BEHIND_PORTS.test(target) && !PORTS.includes(target)) violations.push(`${file} → ${target}`);
  }
  return violations;
}

/** Every circle a depth-first walk of `edges` meets, each written `a → b → … → a`. */
function circles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const found: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (from: string, path: string[]): void => {
    if (state.get(from) === "done") return;
    if (state.get(from) === "open") {
      found.push([...path.slice(path.indexOf(from)), from].join(" → "));
      return;
    }
    state.set(from, "open");
    for (const to of edges.get(from) ?? []) visit(to, [...path, from]);
    state.set(from, "done");
  };
  for (const from of edges.keys()) visit(from, []);
  return found;
}

describe("architecture", () => {
  it("no module imports a layer above its own; the client SDK and the dashboard import only the zod-free protocol", () => {
    const violations: string[] = [];
    for (const [file, imports] of graph) {
      for (const { target, typeOnly } of imports) {
        if (DASHBOARD.test(file)) {
          const allowed = DASHBOARD_MAY_IMPORT.test(target) || CLIENT_MAY_IMPORT.test(target) || (typeOnly && target.startsWith("protocol/"));
          if (!allowed) violations.push(`${file} → ${target} (dashboard)`);
        } else if (CLIENT.test(file)) {
          // Types are erased: the client may name any protocol type, but load only the zod-free modules.
          const allowed = CLIENT_MAY_IMPORT.test(target) || (typeOnly && target.startsWith("protocol/"));
          if (!allowed) violations.push(`${file} → ${target} (client SDK)`);
        } else if (DASHBOARD.test(target)) {
          violations.push(`${file} → ${target} (nothing imports the dashboard's browser code)`);
        } else if (!CLIENT.test(target) && layerOf(target) > layerOf(file)) {
          violations.push(`${file} (layer ${layerOf(file)}) → ${target} (layer ${layerOf(target)})`);
        } else if (CLIENT.test(target) && layerOf(file) < 8 && !MCP.test(file)) {
          violations.push(`${file} → ${target} (only the composition root and the MCP server use the client)`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it("only index.ts files re-export: code that moves takes its importers along instead of leaving a shim", () => {
    const shims = [...graph.keys()]
      .filter((file) => !file.endsWith("index.ts"))
      .flatMap((file) => (readFileSync(join(SRC, file), "utf8").match(/^export\s+(type\s+)?(\*|\{[^}]*\})\s+from\s+"[^"]+"/gm) ?? []).map((line) => `${file}: ${line}`));
    expect(shims).toEqual([]);
  });

  it("an editor process loads at start neither the protocol's index, nor rxjs's index, nor ag-psd", () => {
    // Its start is paid on every restart and by every test that starts one: the method schemas are never read in
    // the editor, rxjs's index loads every operator, and ag-psd is loaded by the first PSD opened or saved.
    const loaded = new Set<string>();
    const visit = (file: string): void => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const { target, typeOnly } of graph.get(file) ?? []) if (!typeOnly) visit(target);
    };
    visit("hosts/isolated/child.ts");
    const heavy = [...loaded].flatMap((file) => {
      const text = readFileSync(join(SRC, file), "utf8");
      const packages = [...text.matchAll(/^import\s+(?!type\s)[^;]*?from\s*"(rxjs|ag-psd)"/gm)].map((m) => `${file} → ${m[1]}`);
      return file === "protocol/index.ts" ? [file, ...packages] : packages;
    });
    expect(loaded.size).toBeGreaterThan(50);
    expect(heavy).toEqual([]);
  });

  it("no rooms import each other, in a pair or round a longer circle (a room: a folder of src, each kind of actor under actors/, or a file at the top)", () => {
    const room = (file: string): string => {
      const parts = file.split("/");
      return parts.length === 1 ? file : parts[0] === "actors" && parts.length > 2 ? `actors/${parts[1]}` : parts[0]!;
    };
    const edges = new Map<string, Set<string>>();
    for (const [file, imports] of graph) {
      for (const { target } of imports) {
        if (room(file) === room(target)) continue;
        if (!edges.has(room(file))) edges.set(room(file), new Set());
        edges.get(room(file))!.add(room(target));
      }
    }
    expect(circles(edges)).toEqual([]);
  });

  it("only the composition root imports cluster/: the dispatcher runs the route it is handed, and NATS stays unloaded without a cluster", () => {
    const importers = [...graph]
      .filter(([file]) => !/^(cluster|bridge|cli)\//.test(file))
      .flatMap(([file, imports]) => imports.filter(({ target }) => target.startsWith("cluster/")).map(({ target }) => `${file} → ${target}`));
    expect(importers).toEqual([]);
  });

  it("the transports import the logical clients and the event log only through their ports", () => {
    expect(portViolations(graph)).toEqual([]);
    // The rule itself: a transport reaching into the registry, the client or the log is caught, a port is not.
    const reaching = new Map<string, Import[]>([
      [
        "transports/ws/server.ts",
        [
          { target: "actors/clients/registry.ts", typeOnly: false },
          { target: "actors/clients/port.ts", typeOnly: true },
        ],
      ],
      ["transports/http/sse.ts", [{ target: "events/log.ts", typeOnly: true }]],
      ["calls/dispatcher.ts", [{ target: "actors/clients/client.ts", typeOnly: true }]],
    ]);
    expect(portViolations(reaching)).toEqual(["transports/ws/server.ts → actors/clients/registry.ts", "transports/http/sse.ts → events/log.ts"]);
  });

  it("no import circle, type-only imports included", () => {
    const edges = new Map([...graph].map(([file, imports]) => [file, new Set(imports.map(({ target }) => target))] as const));
    expect(circles(edges)).toEqual([]);
  });
});
