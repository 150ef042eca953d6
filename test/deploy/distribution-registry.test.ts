/**
 * The registry of image distribution modes is held against the manifest schema: one entry per
 * value of image.distribution, each owning its plan steps, its delivery and its host checks.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DISTRIBUTIONS } from '../../src/deploy/distribution/index.js'
import { planRollout } from '../../src/deploy/rollout-plan.js'
import { ImageSchema } from '../../src/manifest/schema.js'
import { simManifest } from './support/sim-cluster.js'

describe('image distribution registry', () => {
  it('has exactly the modes the schema allows, each under its own name', () => {
    const schema = JSON.parse(readFileSync('src/manifest/cluster-manifest.schema.json', 'utf8'))
    const enumValues: string[] = schema.properties.image.properties.distribution.enum
    expect(Object.keys(DISTRIBUTIONS).sort()).toEqual([...enumValues].sort())
    expect(Object.keys(DISTRIBUTIONS).sort()).toEqual([...ImageSchema.shape.distribution.unwrap().options].sort())
    for (const [name, d] of Object.entries(DISTRIBUTIONS)) expect(d.name).toBe(name)
  })

  it("the plan's image phase is the mode's own steps, run the way the mode says", () => {
    for (const d of Object.values(DISTRIBUTIONS)) {
      const m = simManifest((doc) => {
        ;(doc.image as Record<string, unknown>).distribution = d.name
      })
      const p = planRollout(m, { release: 'r1' })
      const image = p.phases[0]!
      expect(image.name).toBe('image')
      expect(image.parallel, d.name).toBe(d.parallel)
      expect(image.steps).toEqual(m.nodes.flatMap((n) => d.planSteps(m, n, m.image.ref)))
      // Only the modes that send from this machine stream an archive.
      expect(
        image.steps.some((s) => s.stdin?.kind === 'image-archive'),
        d.name,
      ).toBe(d.fromRunner)
      // The host checks' extra look is shown in the plan.
      const hostChecks = JSON.stringify(p.around!.before.find((x) => x.name === 'state'))
      if (d.hostChecks.alsoChecked) expect(hostChecks).toContain(d.hostChecks.alsoChecked)
    }
  })
})
