import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSC = join(ROOT, "node_modules", ".bin", "tsc");

/** The fenced `js` blocks of a document that set up a `Connection` with the `ws` package, as written. */
async function nodeSnippets(doc: string): Promise<string[]> {
  const text = await readFile(join(ROOT, doc), "utf8");
  return [...text.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => code.includes('from "ws"') && code.includes("new Connection("));
}

/**
 * Type-checks snippets as a user's TypeScript project would see them: `ws` with `@types/ws`, and
 * `image-editor-bridge/client` resolved to the built declarations (`npm test` builds first).
 */
async function typeCheck(snippets: string[]): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), "sdk-snippet-"));
  try {
    const files = snippets.map((_, i) => `snippet-${i}.ts`);
    await Promise.all(snippets.map((code, i) => writeFile(join(dir, files[i]!), `${code}\nexport {};\n`)));
    await writeFile(join(dir, "package.json"), '{ "type": "module" }');
    const paths = {
      "image-editor-bridge/client": [join(ROOT, "dist", "client", "index.d.ts")],
      ws: [join(ROOT, "node_modules", "@types", "ws", "index.d.ts")],
    };
    const compilerOptions = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, types: ["node"], typeRoots: [join(ROOT, "node_modules", "@types")], paths };
    await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
    try {
      await promisify(execFile)(TSC, ["-p", join(dir, "tsconfig.json")]);
      return { code: 0, output: "" };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string };
      return { code: failed.code ?? 1, output: failed.stdout ?? "" };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A snippet with a wrong option, checked in the same tsc run as the documented ones: the check can fail. */
const WRONG = 'import WebSocket from "ws";\nimport { Connection } from "image-editor-bridge/client";\nnew Connection({ url: 7700, WebSocket });';

describe("the documented SDK setup type-checks with ws and @types/ws", () => {
  // One tsc run for the documented snippets and the wrong one (each a file of its own): a run costs seconds of CPU.
  let documented: string[];
  let checked: { code: number; output: string };
  /** tsc's error lines about `snippet-<i>.ts` (the continuation lines of a long message are indented). */
  const errorsOf = (output: string, i: number): string[] => output.split("\n").filter((line) => line.includes(`snippet-${i}.ts(`));

  beforeAll(async () => {
    documented = [...(await nodeSnippets("README.md")), ...(await nodeSnippets("docs/client.md")), ...(await nodeSnippets("docs/editing.md"))];
    checked = await typeCheck([...documented, WRONG]);
  }, 60_000);

  it("README and docs/client.md, as written", () => {
    expect(documented.length).toBeGreaterThanOrEqual(2);
    const { output } = checked;
    expect(documented.flatMap((_, i) => errorsOf(output, i))).toEqual([]);
  });

  it("the README's snippet ends by closing its client, so a program copied from it exits", async () => {
    const [first] = await nodeSnippets("README.md");
    expect(first!.trimEnd().split("\n").at(-1)).toMatch(/^await client\.close\(\);/);
  });

  it("can fail: a wrong option is reported", () => {
    const { code, output } = checked;
    expect(code).not.toBe(0);
    expect(errorsOf(output, documented.length).join("\n")).toMatch(/TS2322/);
    // Nothing else: every error line names one of the snippets' files.
    expect(output.split("\n").filter((line) => /error TS\d+/.test(line) && !line.includes(`snippet-${documented.length}.ts(`))).toEqual([]);
  });
});
