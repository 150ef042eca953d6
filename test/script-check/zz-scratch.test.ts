import { readFileSync } from 'node:fs'
import { it } from 'vitest'
import { checkLaunchScript } from '../../src/script-check/index.js'
it('scratch', () => {
  for (const f of (process.env.FILES ?? '').split(' ').filter(Boolean)) {
    const r = checkLaunchScript(readFileSync(f, 'utf8'), { path: 'x.sh' })
    console.log('=== ' + f)
    for (const x of r.findings) console.log(x.code, x.evidence['Script line'], x.message.slice(0, 140), x.patch ? 'PATCH' : '')
    if (process.env.SHOWPATCH) console.log(r.patch ?? 'no patch')
    if (r.patched) { const again = checkLaunchScript(r.patched, { path: 'x.sh' }); console.log('again:', again.findings.map((x) => x.code + '@' + x.evidence['Script line'])) }
  }
})
