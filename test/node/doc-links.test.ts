/**
 * The README and docs/*.md point at each other, at source files and at `npm run` scripts; a doc
 * split or a heading renamed must not leave a reader at a dead link or a script that is gone.
 * Links are checked as GitHub renders them: a relative path from the file's folder, an anchor as
 * GitHub slugs a heading.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const DOCS = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** The text outside fenced code blocks, line by line (a fence's lines become empty: line numbers stay). */
function prose(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split("\n").map((line) => {
    const opener = line.match(/^\s*(`{3,}|~{3,})/)?.[1];
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
      return "";
    }
    if (opener) {
      fence = opener;
      return "";
    }
    return line;
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link shows its text
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** Every anchor a file's headings give, a repeated heading getting `-1`, `-2`… as on GitHub. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(read(file))) {
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

type Link = { file: string; line: number; target: string };

/** The inline links of a file's prose (`[text](target)`), inline code left out. */
function linksOf(file: string): Link[] {
  const links: Link[] = [];
  prose(read(file)).forEach((text, i) => {
    const line = text.replace(/`[^`]*`/g, "``");
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ file, line: i + 1, target: m[1]! });
  });
  return links;
}

/** Why a relative link does not resolve, or undefined when it does; external and site paths are not checked. */
function brokenBecause(link: Link): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target) || link.target.startsWith("/")) return undefined;
  const [path = "", anchor] = link.target.split("#", 2) as [string, string | undefined];
  const target = path === "" ? link.file : relative(ROOT, resolve(ROOT, dirname(link.file), decodeURIComponent(path)));
  if (target.startsWith("..") || !existsSync(join(ROOT, target))) return `no file ${target}`;
  if (anchor === undefined || anchor === "") return undefined;
  if (statSync(join(ROOT, target)).isDirectory() || !target.endsWith(".md")) return `#${anchor} on a file that is not markdown`;
  return anchorsOf(target).has(decodeURIComponent(anchor)) ? undefined : `no heading #${anchor} in ${target}`;
}

/** Every `npm run <script>` a file names, in prose and code blocks alike (`npm run -s token` too; `bench:*` a pattern). */
function scriptsNamed(file: string): { script: string; line: number }[] {
  const found: { script: string; line: number }[] = [];
  read(file)
    .split("\n")
    .forEach((line, i) => {
      for (const m of line.matchAll(/\bnpm run\s+(?:(?:-s|--silent)\s+)?([A-Za-z0-9][\w:.*-]*)/g)) found.push({ script: m[1]!.replace(/[.:]+$/, ""), line: i + 1 });
    });
  return found;
}

describe("the README and docs/*.md", () => {
  it("slug gives the anchors GitHub gives", () => {
    expect(slug("Pages at N > 1 from the isolate's copies")).toBe("pages-at-n--1-from-the-isolates-copies");
    expect(slug("Which dev mode: `wrangler dev` or `--serve`")).toBe("which-dev-mode-wrangler-dev-or---serve");
    expect(slug("A 1,000,000-viewer room: the arithmetic")).toBe("a-1000000-viewer-room-the-arithmetic");
    expect(slug("Counters — how many? ([docs/counters.md](docs/counters.md))")).toBe("counters--how-many-docscountersmd");
  });

  it("link only to files and headings that exist", () => {
    const links = DOCS.flatMap(linksOf);
    expect(links.length).toBeGreaterThan(50); // the check reads the links at all
    const broken = links.flatMap((l) => {
      const why = brokenBecause(l);
      return why ? [`${l.file}:${l.line} (${l.target}): ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it("name only npm scripts that package.json has", () => {
    const scripts = Object.keys((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts);
    const named = DOCS.flatMap((file) => scriptsNamed(file).map((s) => ({ ...s, file })));
    expect(named.length).toBeGreaterThan(20);
    const exists = (name: string) => (name.includes("*") ? scripts.some((s) => new RegExp(`^${name.replace(/[.*]/g, (c) => (c === "*" ? ".+" : "\\."))}$`).test(s)) : scripts.includes(name));
    const missing = named.filter((s) => !exists(s.script)).map((s) => `${s.file}:${s.line}: npm run ${s.script}`);
    expect(missing).toEqual([]);
  });

  it("link every doc from the README", () => {
    const linked = new Set(linksOf("README.md").map((l) => l.target.split("#")[0]));
    expect(DOCS.filter((f) => f !== "README.md" && !linked.has(f))).toEqual([]);
  });
});
