/** `image.distribution: relay` in the plan: the runner's archive goes to the head only; the head passes it on. */
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load.js'
import { planDeploy } from '../../src/plan/plan.js'

it("the head loads the runner's archive once and passes it on to each worker over the fabric", () => {
  const text = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8').replace('distribution: pull', 'distribution: relay')
  const { manifest, errors } = parseManifest(text, 'm.yml')
  expect(errors).toEqual([])
  const plan = planDeploy(manifest!, { release: 'r1' })
  const images = plan.phases[0]!.steps.filter((s) => s.action === 'image' || s.action.startsWith('relay-'))
  expect(images.map((s) => [s.id, s.stdin?.kind ?? null])).toEqual([
    ['spark-a/image', 'image-archive'],
    ['spark-a/relay-spark-b', null],
  ])
  expect(images[1]!.command).toBe(
    'docker save hellohal2064/vllm-qwen3.5-gb10:latest | ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=10 -p 22 -l root 192.168.200.13 docker load',
  )
})

it('the schema says what relay needs', () => {
  const schema = JSON.parse(readFileSync('src/manifest/cluster-manifest.schema.json', 'utf8'))
  const d = schema.properties.image.properties.distribution
  expect(d.enum).toEqual(['pull', 'load', 'relay', 'preloaded'])
  expect(d.description).toMatch(/runner sends the image once.*SSH from the head to each worker's fabric IP without a prompt/s)
})
