import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseContainerInspect, parseImageInspect, parseNetworkInspect } from '../../src/lab/docker-inspect.js'
import { renderLabStatus } from '../../src/lab/status-render.js'
import { labFiles, labHealthy } from '../../src/lab/status.js'
import { labPaths } from '../../src/lab/paths.js'
import type { LabStatus } from '../../src/lab/lab-types.js'
import { downloadedFiles } from '../../src/lab/workload-image.js'

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')

describe('reading docker inspect (captured from a real lab)', () => {
  it('container: state, image, labels and both networks', () => {
    const [c] = parseContainerInspect(fixture('container-inspect-spark-a.json'))
    expect(c).toMatchObject({ name: 'vrd-lab-spark-a', state: 'running', running: true })
    expect(c!.imageId).toMatch(/^sha256:/)
    expect(c!.labels['vrd-lab.node']).toBe('spark-a')
    expect(c!.networks['vrd-lab-mgmt']?.ip).toBe('172.30.230.12')
    expect(c!.networks['vrd-lab-fabric']).toMatchObject({ ip: '172.30.200.12' })
    expect(c!.networks['vrd-lab-fabric']!.aliases).toContain('spark-a-fabric')
  })

  it('a stopped container keeps the fixed address it asked for (IPAMConfig)', () => {
    type Inspect = { State: Record<string, unknown>; NetworkSettings: { Networks: Record<string, { IPAddress: string }> } }
    const raw = JSON.parse(fixture('container-inspect-spark-a.json')) as Inspect[]
    raw[0]!.State = { ...raw[0]!.State, Status: 'exited', Running: false }
    for (const net of Object.values(raw[0]!.NetworkSettings.Networks)) net.IPAddress = ''
    const [c] = parseContainerInspect(JSON.stringify(raw))
    expect(c).toMatchObject({ state: 'exited', running: false })
    expect(c!.networks['vrd-lab-fabric']?.ip).toBe('172.30.200.12')
    expect(c!.networks['vrd-lab-mgmt']?.ip).toBe('172.30.230.12')
  })

  it('network: subnet, internal, bridge name', () => {
    expect(parseNetworkInspect(fixture('network-inspect-fabric.json'))).toEqual([
      { name: 'vrd-lab-fabric', subnets: ['172.30.200.0/24'], internal: true, bridge: 'vrd-lab-fab0', labels: { 'vrd-lab': '1' } },
    ])
  })

  it('image: id, hash label and registry digests', () => {
    const [i] = parseImageInspect(fixture('image-inspect-workload.json'))
    expect(i!.id).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(i!.labels['vrd-lab.hash']).toMatch(/^[0-9a-f]{16}$/)
    expect(i!.repoDigests.some((d) => d.startsWith('127.0.0.1:5000/vrd-lab/vllm-standin@sha256:'))).toBe(true)
    expect(i!.sizeBytes).toBeGreaterThan(100_000_000)
  })

  it('nothing found is an empty list, not an error', () => {
    expect(parseContainerInspect('[]\n')).toEqual([])
    expect(parseImageInspect('')).toEqual([])
  })
})

describe('pip download output', () => {
  it('lists new and cached wheels alike (captured run)', () => {
    const files = downloadedFiles(fixture('pip-download.txt'))
    expect(files).toHaveLength(18)
    expect(files).toContain('/work/main/.lab/cache/wheels/ray-2.52.1-cp311-cp311-manylinux2014_x86_64.whl')
    expect(files.every((f) => f.endsWith('.whl'))).toBe(true)
  })
})

describe('renderLabStatus', () => {
  const healthy: LabStatus = {
    dir: '/repo/.lab',
    docker: { ok: true, binary: '/usr/bin/docker', version: '20.10.24+dfsg1' },
    nodes: [
      {
        name: 'spark-a',
        container: 'vrd-lab-spark-a',
        state: 'running',
        mgmtIp: '172.30.230.12',
        fabricIp: '172.30.200.12',
        sshReachable: true,
        dockerReady: true,
        dockerVersion: '20.10.24+dfsg1',
        storageDriver: 'overlay2',
      },
      {
        name: 'spark-b',
        container: 'vrd-lab-spark-b',
        state: 'exited',
        mgmtIp: '172.30.230.13',
        fabricIp: '172.30.200.13',
        sshReachable: false,
        dockerReady: false,
      },
    ],
    registry: { container: 'vrd-lab-registry', state: 'running', reachable: true, address: '127.0.0.1:5000' },
    networks: [
      { name: 'vrd-lab-mgmt', present: true, subnet: '172.30.230.0/24' },
      { name: 'vrd-lab-fabric', present: true, subnet: '172.30.200.0/24' },
    ],
    egressGuard: { present: true, rules: ['-i vrd-lab-mgmt0 ! -o vrd-lab-mgmt0 -j DROP', '-i vrd-lab-fab0 ! -o vrd-lab-fab0 -j DROP'] },
    volumes: ['vrd-lab-spark-a-docker'],
    files: { dirExists: true, missing: [] },
    healthy: false,
    down: false,
  }

  it('shows one row per node and says what is not answering', () => {
    const text = renderLabStatus(healthy)
    expect(text).toContain('lab /repo/.lab: NOT healthy')
    expect(text).toMatch(/spark-a\s+vrd-lab-spark-a\s+running\s+172\.30\.230\.12\s+172\.30\.200\.12\s+ok\s+ok 20\.10\.24\+dfsg1 overlay2/)
    expect(text).toMatch(/spark-b\s+vrd-lab-spark-b\s+exited .* NO\s+NO/)
    expect(text).toContain('egress    guard in place (2 rule(s) in DOCKER-USER)')
  })

  it('says down when nothing of the lab exists, and when docker is unusable', () => {
    expect(renderLabStatus({ ...healthy, nodes: [], down: true })).toBe('lab /repo/.lab: down (docker 20.10.24+dfsg1)\n')
    expect(renderLabStatus({ ...healthy, docker: { ok: false, binary: 'docker', detail: 'Cannot connect' } })).toContain(
      'docker is not usable (docker: Cannot connect)',
    )
  })

  it('a fresh clone beside a lab another directory set up: not healthy, and it says which directory lacks what', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'vrd-lab-status-')), 'never-created')
    const files = labFiles(labPaths(dir))
    expect(files).toEqual({ dirExists: false, missing: ['manifest.yml', 'id_ed25519', 'known_hosts'] })
    const allUp = {
      nodes: healthy.nodes.map((n) => ({ ...n, state: 'running', sshReachable: true, dockerReady: true })),
      networks: healthy.networks,
      registryOk: true,
      guardPresent: true,
    }
    // Every container answers; only the files are missing: still not a lab this clone can use.
    expect(labHealthy({ ...allUp, files: { dirExists: true, missing: [] } })).toBe(true)
    expect(labHealthy({ ...allUp, files })).toBe(false)
    const text = renderLabStatus({ ...healthy, dir, nodes: allUp.nodes, files, healthy: labHealthy({ ...allUp, files }) })
    expect(text.split('\n')[0]).toBe(`lab ${dir}: NOT healthy (docker 20.10.24+dfsg1)`)
    expect(text).toContain(`${dir} does not exist: the containers below were set up from another directory`)
    expect(text).toContain('files     MISSING manifest.yml, id_ed25519, known_hosts')
  })
})
