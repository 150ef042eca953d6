// Module hooks that let Node 20 run this project's TypeScript sources as they are (Node strips
// types itself only from 22.6): a `.js` specifier that names no file resolves to the `.ts` beside
// it (the sources import `./x.js`, as the bundler and tsc read them), and a `.ts` file loads as an
// ES module transpiled by the project's own TypeScript (types removed, nothing checked: tsc --noEmit
// checks); a `.json` a source imports loads as a JSON module. For scripts that run sources, such as .ci/generate.mjs; register with
// `register('./ts-hooks.mjs', import.meta.url)`.
import { readFile } from 'node:fs/promises'
import ts from 'typescript'

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context)
  } catch (error) {
    const local = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:')
    if (!local || !specifier.endsWith('.js') || !context.parentURL?.endsWith('.ts')) throw error
    return next(`${specifier.slice(0, -3)}.ts`, context)
  }
}

export async function load(url, context, next) {
  // A JSON module the sources import without an attribute (the bundler and tsc's resolveJsonModule read it so).
  if (url.startsWith('file:') && url.endsWith('.json') && !context.importAttributes?.type)
    return { format: 'json', source: await readFile(new URL(url), 'utf8'), shortCircuit: true }
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context)
  const source = await readFile(new URL(url), 'utf8')
  const { outputText } = ts.transpileModule(source, {
    fileName: url,
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  })
  return { format: 'module', source: outputText, shortCircuit: true }
}
