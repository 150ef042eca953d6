/**
 * Moving a stage before the stage that adds what it needs does not compile: the StageList type
 * grows with each stage's outputs (src/deploy/stages/stage.ts). This test compiles lists with
 * the TypeScript compiler itself — the real stages in the real order, then the same with one stage
 * moved — and reads the diagnostics.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'

const root = resolve(__dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'vrd-stage-order-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const src = join(root, 'src')
const imports = `
import { StageList, type StartKey } from '${src}/deploy/stages/stage.js'
import { lockStage, stateStage } from '${src}/deploy/stages/before.js'
import { fingerprintStage, imageStage } from '${src}/deploy/stages/image.js'
import { imageContentsStage } from '${src}/deploy/stages/image-contents-stage.js'
import { weightsStage } from '${src}/deploy/stages/weights.js'
import { fabricTestStage } from '${src}/deploy/stages/fabric-test.js'
import { preflightStage } from '${src}/deploy/stages/gates.js'
import { serveStage } from '${src}/deploy/stages/start.js'
`

const start = `StageList.startingWith<StartKey | 'expectImageId'>()`
const stageType = `import('${src}/deploy/stages/stage.js').Stage`

/** Each list, compiled in one program (one type-check of the sources for all). */
const LISTS: Record<string, string> = {
  'in-order': `${start}.add(lockStage).add(stateStage).add(imageStage).add(imageContentsStage).add(weightsStage).add(fingerprintStage).add(fabricTestStage).add(preflightStage).add(serveStage)`,
  // The image contents before the image (it reads the image ID the image stage adds).
  'contents-first': `${start}.add(imageContentsStage).add(imageStage)`,
  // The fingerprint before the weights (it reads the weights manifest).
  'fingerprint-early': `${start}.add(lockStage).add(stateStage).add(imageStage).add(fingerprintStage).add(weightsStage)`,
  // The fabric test before the host checks it reads its RDMA facts from.
  'fabric-early': `${start}.add(imageStage).add(fabricTestStage).add(stateStage)`,
  // vllm serve before the preflight whose facts it reads.
  'serve-early': `StageList.startingWith<StartKey>().add(serveStage).add(preflightStage)`,
  'when-bad': `{ name: 'image', needs: [], adds: ['imageId'], when: () => true, run: async () => ({ next: 'continue', adds: { imageId: 'x' } }) } satisfies ${stageType}<never, 'imageId'>`,
  'when-good': `{ name: 'fabric-test', needs: [], adds: ['fabricTest'], when: () => true, run: async () => ({ next: 'continue', adds: { fabricTest: undefined } }) } satisfies ${stageType}<never, 'fabricTest'>`,
}

let compiled: Map<string, string> | undefined
/** The type errors of one list, as `TScode: message` lines. */
function errorsOf(name: string): string {
  if (!compiled) {
    const files = Object.entries(LISTS).map(([n, list]) => {
      const file = join(dir, `${n}.ts`)
      writeFileSync(file, `${imports}\nexport const list = ${list}\n`)
      return [n, file] as const
    })
    const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile).config
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root)
    const program = ts.createProgram(
      files.map(([, f]) => f),
      { ...options, noUnusedLocals: false },
    )
    const all = ts.getPreEmitDiagnostics(program)
    compiled = new Map(
      files.map(([n, f]) => [
        n,
        all
          .filter((d) => d.file?.fileName === f)
          .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`)
          .join('\n'),
      ]),
    )
  }
  return compiled.get(name) ?? ''
}

describe('a stage list is typed by what its stages add', () => {
  it('the deploy order compiles; each stage moved before what it needs does not', () => {
    expect(errorsOf('in-order')).toBe('')
    expect(errorsOf('contents-first')).toMatch(/TS2345.*imageId/)
    expect(errorsOf('fingerprint-early')).toMatch(/TS2345.*weights/)
    expect(errorsOf('fabric-early')).toMatch(/TS2345.*hostFacts/)
    expect(errorsOf('serve-early')).toMatch(/TS2345.*facts/)
  }, 120_000)

  it('a stage with `when` may add only outputs that can be undefined (a skipped stage adds them as undefined)', () => {
    expect(errorsOf('when-bad')).toMatch(/TS2322/)
    expect(errorsOf('when-good')).toBe('')
  })
})
