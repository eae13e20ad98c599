import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

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

describe("the documented SDK setup type-checks with ws and @types/ws", () => {
  it("README and docs/client.md, as written", async () => {
    const snippets = [...(await nodeSnippets("README.md")), ...(await nodeSnippets("docs/client.md")), ...(await nodeSnippets("docs/editing.md"))];
    expect(snippets.length).toBeGreaterThanOrEqual(2);
    const result = await typeCheck(snippets);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  });

  it("the README's snippet ends by closing its client, so a program copied from it exits", async () => {
    const [first] = await nodeSnippets("README.md");
    expect(first!.trimEnd().split("\n").at(-1)).toMatch(/^await client\.close\(\);/);
  });

  it("can fail: a wrong option is reported", async () => {
    const result = await typeCheck(['import WebSocket from "ws";\nimport { Connection } from "image-editor-bridge/client";\nnew Connection({ url: 7700, WebSocket });']);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/TS2322/);
  });
});
