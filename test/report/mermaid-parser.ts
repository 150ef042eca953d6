/**
 * The real mermaid parser (the npm package, installed by `.ci/tools mermaid` into the tool cache),
 * so the summary tests check the diagram the way GitHub's renderer reads it. Mermaid sanitises
 * labels with DOMPurify, which needs a browser DOM; here it is given pass-through functions, so
 * what is checked is mermaid's own grammar and model (vertices, edges, subgraphs, labels).
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export interface ParsedFlowchart {
  readonly vertices: ReadonlyMap<string, { readonly text: string; readonly classes: readonly string[] }>
  readonly edges: readonly { readonly start: string; readonly end: string; readonly text: string }[]
  readonly subgraphs: readonly { readonly id: string; readonly title: string; readonly nodes: readonly string[] }[]
}

type Mermaid = { parse(text: string): Promise<unknown>; mermaidAPI: { getDiagramFromText(text: string): Promise<{ db: FlowDb }> } }
type FlowDb = {
  getVertices(): Map<string, { text: string; classes: string[] }>
  getEdges(): { start: string; end: string; text: string }[]
  getSubGraphs(): { id: string; title: string; nodes: string[] }[]
}

let loaded: Promise<Mermaid> | undefined

async function load(): Promise<Mermaid> {
  const dir = execFileSync('bash', ['.ci/tools', 'mermaid'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim()
  const modules = join(dir, 'node_modules')
  const purify = (await import(pathToFileURL(join(modules, 'dompurify', 'dist', 'purify.es.mjs')).href)) as { default: Record<string, unknown> }
  purify.default['sanitize'] = (s: string) => s
  purify.default['addHook'] = () => undefined
  const m = (await import(pathToFileURL(join(modules, 'mermaid', 'dist', 'mermaid.core.mjs')).href)) as { default: Mermaid }
  return m.default
}

/** Mermaid keeps `#34;`-style entities as placeholders until it draws; turn them back into characters. */
const decode = (s: string): string =>
  s.replace(/ﬂ°°(\d+)¶ß/g, (_, code: string) => String.fromCodePoint(Number(code))).replace(/ﬂ°(\w+)¶ß/g, (_, name: string) => `&${name};`)

/** Parse a flowchart with mermaid; throws mermaid's own parse error when the text is not valid. */
export async function parseFlowchart(text: string): Promise<ParsedFlowchart> {
  loaded ??= load()
  const mermaid = await loaded
  await mermaid.parse(text) // registers the diagram types, then checks the grammar
  const { db } = await mermaid.mermaidAPI.getDiagramFromText(text)
  return {
    vertices: new Map([...db.getVertices()].map(([id, v]) => [id, { text: decode(v.text), classes: [...v.classes] }])),
    edges: db.getEdges().map((e) => ({ start: e.start, end: e.end, text: decode(e.text) })),
    subgraphs: db.getSubGraphs().map((s) => ({ id: s.id, title: decode(s.title), nodes: [...s.nodes] })),
  }
}
