/**
 * `plan` shows the deploy: the image step as the image gate runs it, then the release's own plan
 * (the one the executor runs), with the commands inside start.sh and serve.sh, and the stages
 * around them. The lab's deploy e2e checks the same plan against a real deploy's steps and files.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { render } from '../../src/command/shell.js'
import { releaseFiles } from '../../src/deploy/release-files.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { imageContentsProbe } from '../../src/plan/image-contents-commands.js'
import { loadImage, pullImage } from '../../src/plan/node-commands.js'
import { activateRelease, appendAudit, pruneReleases } from '../../src/plan/release-commands.js'
import { planRollout } from '../../src/deploy/rollout-plan.js'
import { fabricTestSteps, planRelease } from '../../src/plan/plan.js'
import { renderPlanMarkdown, renderPlanText } from '../../src/report/plan-report.js'
import { planTask } from '../../src/tasks/plan-task.js'

const example = readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8')
const parse = (text: string): Manifest => {
  const { manifest, errors } = parseManifest(text, 'm.yml')
  expect(errors).toEqual([])
  return manifest!
}
const base = parse(example)
const ids = (p: { phases: readonly { steps: readonly { id: string }[] }[] }) => p.phases.flatMap((ph) => ph.steps.map((s) => s.id))

describe('plan shows what deploy runs', () => {
  it('the image phase first, then exactly the release plan the deploy executes', () => {
    const p = planRollout(base, { release: 'abc' })
    expect(p.phases.map((x) => x.name)).toEqual([
      'image',
      'image-contents',
      'fabric-test',
      'fit',
      'release-files',
      'stop-previous',
      'ray-head',
      'ray-workers',
      'ray-cluster',
      'preflight',
      'vllm',
      'smoke',
    ])
    expect(p.phases[1]!.steps.map((s) => [s.id, s.command])).toEqual([['spark-a/image-contents', render(imageContentsProbe(base.image.ref))]])
    expect(p.phases[2]!.steps.map((s) => [s.id, s.command])).toEqual(
      base.nodes.map((n) => [`${n.name}/fabric-test`, render(fabricTestSteps(base, base.image.ref).find((s) => s.node === n.name)!.cmd)]),
    )
    expect(ids({ phases: p.phases.slice(3) })).toEqual(ids(planRelease(base, { release: 'abc', files: 'write' })))
    expect(planRollout({ ...base, preflight: { ...base.preflight, collective: false } }).phases.map((x) => x.name)).not.toContain('fabric-test')
    expect(p.phases[0]!.steps.map((s) => [s.id, s.command])).toEqual([
      ['spark-a/image', render(pullImage(base.image.ref))],
      ['spark-b/image', render(pullImage(base.image.ref))],
    ])
  })

  it('each start and serve step carries the command its release file holds (the file names the image by ID)', () => {
    const p = planRollout(base, { release: 'abc' })
    const steps = p.phases.flatMap((x) => x.steps)
    const id = `sha256:${'e'.repeat(64)}`
    for (const n of base.nodes) {
      const files = releaseFiles({ manifest: base, release: 'abc', imageId: id }, n, { who: 't', createdAt: '2026-12-04T00:00:00Z' })
      const lastLine = (f: string) => files[f]!.content.trimEnd().split('\n').pop()!
      const start = steps.find((s) => s.id === `${n.name}/ray-start`)!
      expect(lastLine('start.sh').endsWith(start.runs!.command.replace(base.image.ref, id))).toBe(true)
      expect(start.runs!.command).toContain(`--node-ip-address=${n.fabricIp}`)
      const serve = steps.find((s) => s.id === `${n.name}/vllm-serve`)
      if (n.role === 'head') expect(lastLine('serve.sh').endsWith(serve!.runs!.command)).toBe(true)
      else expect(serve).toBeUndefined()
    }
  })

  it('an image override reaches the image step and the start commands', () => {
    const p = planRollout(base, { release: 'abc', image: 'registry.lan/vllm:2' })
    expect(p.image).toBe('registry.lan/vllm:2')
    const steps = p.phases.flatMap((x) => x.steps)
    expect(steps.find((s) => s.id === 'spark-b/image')!.command).toBe('docker pull registry.lan/vllm:2')
    expect(steps.find((s) => s.id === 'spark-b/ray-start')!.runs!.command).toContain(' registry.lan/vllm:2 start ')
  })

  it('load streams to every node; relay sends once to the head, which feeds the workers', () => {
    const load = planRollout(parse(example.replace('distribution: pull', 'distribution: load')), {})
    expect(load.phases[0]!.steps.map((s) => [s.id, s.command, s.stdin?.kind])).toEqual([
      ['spark-a/image', render(loadImage()), 'image-archive'],
      ['spark-b/image', render(loadImage()), 'image-archive'],
    ])
    const relay = planRollout(parse(example.replace('distribution: pull', 'distribution: relay')), {})
    expect(relay.phases[0]!.steps.map((s) => s.id)).toEqual(['spark-a/image'])
    expect(relay.phases[0]!.steps[0]!.description).toMatch(/copy the same stream into spark-b \(192\.168\.200\.13\)/)
    expect(JSON.stringify(relay.around!.before)).toMatch(
      /host checks: docker and its NVIDIA runtime, CDI specs, GPUs, the fabric interfaces, disk, OOM guard, head-to-worker SSH/,
    )
  })

  it('shows the stages around the phases with their commands: script check (script mode), lock, state and host checks before; activate, prune, audit, unlock after', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-plan-'))
    writeFileSync(join(dir, 'launch.sh'), '#!/bin/sh\n')
    const scripted = planRollout(parse(example.replace('  mode: builtin\n', '  mode: script\n  path: launch.sh\n')), { release: 'r9' })
    expect(scripted.phases.map((x) => x.name)).toContain('launch-head')
    expect(scripted.around!.before[0]!.description).toMatch(/^read launch\.sh for the seed bug's overrides on this machine \(deploy\.scriptCheck: warn\)$/)
    const p = planRollout(base, { release: 'r9' })
    const names = (xs: readonly { name: string }[]) => xs.map((x) => x.name)
    expect(names(p.around!.before)).toEqual(['lock', 'state'])
    expect(names(p.around!.after)).toEqual(['activate', 'prune', 'audit', 'unlock'])
    const commands = (xs: readonly { steps: readonly { id: string; command: string }[] }[]) => xs.flatMap((x) => x.steps.map((s) => [s.id, s.command]))
    // The exact commands, rendered by the one renderer from the builders the stages run.
    expect(commands(p.around!.before).map(([id]) => id)).toEqual([
      'spark-a/lock',
      'spark-a/state',
      'spark-b/state',
      'spark-a/host-checks',
      'spark-b/host-checks',
    ])
    expect(commands(p.around!.after).find(([id]) => id === 'spark-b/activate')![1]).toBe(render(activateRelease(base, 'r9')))
    expect(commands(p.around!.after).find(([id]) => id === 'spark-a/prune')![1]).toBe(render(pruneReleases(base)))
    expect(commands(p.around!.after).find(([id]) => id === 'spark-a/audit')![1]).toBe(render(appendAudit(base)))
    const text = renderPlanText(p)
    expect(text.indexOf('Before the phases:')).toBeLessThan(text.indexOf('1. image'))
    expect(text.indexOf('After the phases:')).toBeGreaterThan(text.indexOf('9. smoke'))
    expect(text).toMatch(/\$ sh \/var\/lib\/vllm-ray-deploy\/spark-pair\/releases\/r9\/start\.sh\n {5}which runs: docker run /)
    // Gates without commands of their own still get a row in the job summary.
    expect(renderPlanMarkdown(p)).toMatch(/\| smoke \| all \| the smoke test/)
    expect(renderPlanMarkdown(p)).toMatch(/\| lock \| spark-a \| take the deploy lock \|[\s\S]*\| unlock \| spark-a \|/)
    expect(text).toMatch(/ {3}- lock: take the cluster's deploy lock on spark-a[^\n]*\n {3}\[spark-a\] lock: take the deploy lock\n {5}\$ sh -c /)
  })

  it('the plan task (CLI and Action) shows the rollout plan, secrets named but never valued', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-plan-'))
    const path = join(dir, 'm.yml')
    writeFileSync(path, example)
    const o = await planTask(path, { release: 'abc' })
    expect(o.exitCode).toBe(0)
    expect(o.headline).toBe('plan for spark-pair: 12 phases, 18 steps on 2 nodes')
    const json = o.json as {
      around: { before: { name: string; steps: { command: string }[] }[] }
      nodes: { steps: { id: string; runs?: { command: string } }[] }[]
    }
    expect(json.around.before.map((x) => x.name)).toEqual(['lock', 'state'])
    expect(json.around.before[0]!.steps[0]!.command).toMatch(/^sh -c .*mkdir -- "\$dir"/s)
    expect(json.nodes[0]!.steps.map((s) => s.id)[0]).toBe('spark-a/image')
    expect(json.nodes[0]!.steps.find((s) => s.id === 'spark-a/ray-start')!.runs!.command).toMatch(/--env-file \S+\/releases\/abc\/secret\.env/)
    expect(o.text).toContain('write HF_TOKEN to release abc')
  })
})
