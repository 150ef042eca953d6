/**
 * The committed contract is what the extraction script makes of the wheels: for each
 * src/command/vllm-contract/vllm-<V>.json, test/contract/extract.py is run again on that release's
 * wheel and must print the same document. The wheels (about 300 MB each) are not in the repository:
 * they are read from $VRD_WHEELS (default /root/.cache/vrd-wheels), where `test/contract/extract.sh
 * fetch` puts their Python sources (vllm-V-sources.zip, 5-10 MB each); a release with neither there is
 * skipped, saying so.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const DATA = fileURLToPath(new URL('../../src/command/vllm-contract/', import.meta.url))
const SCRIPT = fileURLToPath(new URL('./extract.py', import.meta.url))
const WHEELS = process.env.VRD_WHEELS ?? '/root/.cache/vrd-wheels'

const versions = readdirSync(DATA)
  .map((f) => /^vllm-(.+)\.json$/.exec(f)?.[1])
  .filter((v): v is string => v !== undefined)
const wheelOf = (v: string): string | undefined => {
  if (!existsSync(WHEELS)) return undefined
  const w = readdirSync(WHEELS).find((f) => f === `vllm-${v}-sources.zip` || (f.startsWith(`vllm-${v}-`) && f.endsWith('.whl')))
  return w && join(WHEELS, w)
}

function extract(wheel: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', [SCRIPT, 'contract', wheel], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    p.stdout.on('data', (d) => {
      out += d
    })
    p.stderr.on('data', (d) => {
      err += d
    })
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`extract.py ${wheel} exited ${code}: ${err}`))))
  })
}

describe.concurrent('the committed vLLM contract is what extract.py makes of the wheels', () => {
  it('has a contract for each release the tool supports: 0.19, 0.24, 0.28 and 0.34 (the newest on PyPI when read)', () => {
    expect(versions).toEqual(expect.arrayContaining(['0.19.1', '0.24.0', '0.28.0', '0.34.0']))
  })

  for (const v of versions) {
    const wheel = wheelOf(v)
    it.skipIf(wheel === undefined)(
      `vLLM ${v}${wheel ? '' : ` (skipped: no vllm-${v}-*.whl or vllm-${v}-sources.zip in ${WHEELS}; run test/contract/extract.sh fetch)`}`,
      async () => {
        const fresh = JSON.parse(await extract(wheel!))
        const committed = JSON.parse(readFileSync(join(DATA, `vllm-${v}.json`), 'utf8'))
        expect(committed, `src/command/vllm-contract/vllm-${v}.json differs from extract.py's output: run test/contract/extract.sh contract ${v}`).toEqual(
          fresh,
        )
      },
      600_000,
    )
  }
})
