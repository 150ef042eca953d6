/** `image.distribution: relay` in the plan: the runner's archive goes to the head only; the head lands it and copies it on to the workers' files as it arrives. */
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import { planRollout } from '../../src/deploy/rollout-plan.js'
import { landedArchive } from '../../src/plan/image-landing-commands.js'

it("the head loads the runner's archive once and copies the same stream to each worker over the fabric", () => {
  const text = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8').replace('distribution: pull', 'distribution: relay')
  const { manifest, errors } = parseManifest(text, 'm.yml')
  expect(errors).toEqual([])
  const plan = planRollout(manifest!, { release: 'r1' })
  const images = plan.phases[0]!.steps.filter((s) => s.action === 'image' || s.action.startsWith('relay-'))
  expect(images.map((s) => [s.id, s.stdin?.kind ?? null])).toEqual([['spark-a/image', 'image-archive']])
  expect(images[0]!.description).toMatch(/once for the whole cluster, and copy the same stream into spark-b \(192\.168\.200\.13\) over the fabric$/)
  // The fixed fan-out script, then: one worker, its port, user and fabric IP, then the ssh options.
  expect(images[0]!.command).toMatch(
    /^sh -c '.*' sh aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr 1 22 root 192\.168\.200\.13 -o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=10$/s,
  )
})

it("image.relayLanding: the head lands the runner's archive once and copies the same stream into a file on each worker over the fabric, then every node loads its file", () => {
  const text = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8').replace('distribution: pull', 'distribution: relay\n  relayLanding: true')
  const { manifest, errors } = parseManifest(text, 'm.yml')
  expect(errors).toEqual([])
  const plan = planRollout(manifest!, { release: 'r1' })
  const images = plan.phases[0]!.steps.filter((s) => s.action === 'image' || s.action.startsWith('relay-'))
  expect(images.map((s) => [s.id, s.stdin?.kind ?? null])).toEqual([['spark-a/image', 'image-archive']])
  const file = landedArchive(manifest!, manifest!.image.ref)
  expect(images[0]!.description).toContain(
    `once for the whole cluster, and copy the same stream into spark-b (192.168.200.13) over the fabric, each node writing ${file} and hashing it as written; then docker load -i ${file} on every node at once`,
  )
  // The fixed landing script, then: the file, the worker's receiver (python3 -c … FILE), one worker, its port, user and fabric IP, then the ssh options.
  expect(images[0]!.command).toMatch(
    new RegExp(
      `^sh -c '.*' sh aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr ${file} 'python3 -c .* ${file}' 1 22 root 192\\.168\\.200\\.13 -o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=10$`,
      's',
    ),
  )
})

it('the schema says what relay needs', () => {
  const schema = JSON.parse(readFileSync('src/manifest/cluster-manifest.schema.json', 'utf8'))
  const d = schema.properties.image.properties.distribution
  // The whole enum is held against the registry in distribution-registry.test.ts; here only that relay is one.
  expect(d.enum).toContain('relay')
  expect(d.description).toMatch(/runner sends the image once.*SSH from the head to each worker's fabric IP without a prompt/s)
})
