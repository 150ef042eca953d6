/**
 * The lab on the real Docker of this machine: nodes come up, answer over SSH with their pinned
 * host keys, run host-network containers inside their own network namespace, pull from the lab
 * registry, and go away without a trace. Skips (loudly) only when docker is absent.
 */
import { statSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { LocalTransport } from '../../src/transport/local.js'
import { type LabInfo, dockerBinary, labDown, labStatus, labUp } from '../support/lab.js'
import { findProgram } from '../../src/lab/preconditions.js'
import { GUARD_COMMENT } from '../../src/lab/host-commands.js'
import { MGMT_NETWORK, PREFIX, labLayout } from '../../src/lab/layout.js'

const DOCKER = dockerBinary()
const local = new LocalTransport()
const dockerAnswers = findProgram(DOCKER)
  ? (await local.run(argv(DOCKER, 'version', '--format', '{{.Server.Version}}'), { timeoutMs: 20_000 })).code === 0
  : false
if (!dockerAnswers) {
  console.warn(`\n!!!!!!!! LAB TESTS SKIPPED: no usable docker (${DOCKER}). CI has docker: these must run there. !!!!!!!!\n`)
}

const progress = (m: string) => process.stderr.write(`[lab] ${m}\n`)

/** Run a command on a node with the system ssh client, pinned host key, lab key only. */
async function ssh(info: LabInfo, host: string, command: string, opts: { knownHosts?: string; timeoutMs?: number } = {}) {
  return local.run(
    argv(
      'ssh',
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      `UserKnownHostsFile=${opts.knownHosts ?? info.knownHostsPath}`,
      '-o',
      'GlobalKnownHostsFile=/dev/null',
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      'BatchMode=yes',
      '-o',
      'ConnectTimeout=5',
      '-i',
      info.sshKeyPath,
      '-p',
      String(info.sshPort),
      `${info.sshUser}@${host}`,
      command,
    ),
    { timeoutMs: opts.timeoutMs ?? 30_000 },
  )
}

async function sshOk(info: LabInfo, host: string, command: string, timeoutMs?: number): Promise<string> {
  const r = await ssh(info, host, command, timeoutMs ? { timeoutMs } : {})
  expect(r.code, `${host}: ${command}\n${r.stdout}\n${r.stderr}`).toBe(0)
  return r.stdout
}

const hostLines = async (...args: string[]) => (await local.run(argv(DOCKER, ...args), { timeoutMs: 30_000 })).stdout

describe.skipIf(!dockerAnswers)('lab on real docker', () => {
  let info: LabInfo
  let downDone = false

  beforeAll(async () => {
    info = await labUp({ nodes: 2, onProgress: progress })
  }, 1_800_000)

  afterAll(async () => {
    if (!downDone && info) await labDown({ onProgress: progress })
  }, 300_000)

  it('a second up reuses everything and is fast (first, so an edit of src/lab/workload meanwhile cannot count)', async () => {
    const again = await labUp({ nodes: 2 })
    expect(again.changed).toEqual([])
    expect(again.nodes.map((n) => n.hostKey)).toEqual(info.nodes.map((n) => n.hostKey))
  })

  it('brings up two nodes and writes the key, the pinned known_hosts and the manifest', () => {
    // This lab instance's addresses (instance 1: 172.30.230.12/172.30.200.12, ...; layout.test.ts has them all).
    const want = labLayout(2)
    expect(want.nodes[0]!.mgmtIp).toMatch(/^172\.30\.23[0-7]\.12$/)
    expect(info.nodes.map((n) => [n.name, n.role, n.mgmtIp, n.fabricIp])).toEqual([
      ['spark-a', 'head', want.nodes[0]!.mgmtIp, want.nodes[0]!.fabricIp],
      ['spark-b', 'worker', want.nodes[1]!.mgmtIp, want.nodes[1]!.fabricIp],
    ])
    expect(statSync(info.sshKeyPath).mode & 0o777).toBe(0o600)
    const known = readFileSync(info.knownHostsPath, 'utf8')
    for (const n of info.nodes) {
      expect(n.hostKey).toMatch(/^ssh-ed25519 AAAA/)
      expect(known).toContain(`${n.mgmtIp},${n.name},${n.fabricIp},${n.name}-fabric ${n.hostKey}`)
    }
    const manifest = readFileSync(info.manifestPath, 'utf8')
    expect(manifest).toContain('cluster: lab')
    expect(manifest).toContain(`ref: ${info.workloadImage.ref}`)
    expect(manifest).toContain('tensorParallelSize: 2')
  })

  it('each node answers over SSH with its pinned host key, as its own hostname', async () => {
    for (const n of info.nodes) expect((await sshOk(info, n.mgmtIp, 'hostname')).trim()).toBe(n.name)
  })

  it('refuses a node whose host key is not the pinned one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-lab-test-'))
    const wrong = join(dir, 'known_hosts')
    const [a, b] = info.nodes
    writeFileSync(wrong, `${a!.mgmtIp} ${b!.hostKey}\n`) // spark-b's key claimed for spark-a
    const r = await ssh(info, a!.mgmtIp, 'true', { knownHosts: wrong })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/HOST IDENTIFICATION HAS CHANGED|Host key verification failed/)
  })

  it('holds the default route on mgmt (enP7s7) and the fabric on enp1s0f0np0, docker names kept as altnames', async () => {
    for (const n of info.nodes) {
      const route = JSON.parse(await sshOk(info, n.mgmtIp, 'ip -j route show default')) as { dev: string; gateway: string }[]
      expect(route).toEqual([expect.objectContaining({ dev: 'enP7s7', gateway: MGMT_NETWORK.gateway })])
      const fabric = JSON.parse(await sshOk(info, n.mgmtIp, 'ip -j addr show dev enp1s0f0np0')) as {
        altnames?: string[]
        addr_info: { family: string; local: string }[]
      }[]
      expect(fabric[0]!.addr_info.filter((x) => x.family === 'inet').map((x) => x.local)).toEqual([n.fabricIp])
      expect(fabric[0]!.altnames?.length).toBe(1)
      const get = await sshOk(info, n.mgmtIp, `ip route get ${info.nodes.find((m) => m !== n)!.fabricIp}`)
      expect(get).toContain(`dev enp1s0f0np0 src ${n.fabricIp}`)
    }
  })

  it('shows one NVIDIA GB10 through the fake nvidia-smi', async () => {
    const out = await sshOk(
      info,
      info.nodes[0]!.mgmtIp,
      'nvidia-smi --query-gpu=index,name,uuid,driver_version,compute_cap --format=csv,noheader; nvidia-smi -L',
    )
    const [query, list] = out.trim().split('\n')
    expect(query).toMatch(/^0, NVIDIA GB10, GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}, 580\.95\.05, 12\.1$/)
    expect(list).toMatch(/^GPU 0: NVIDIA GB10 \(UUID: GPU-/)
  })

  it('pulls the workload from the lab registry; a host-network container sees its own node only', async () => {
    const ref = info.workloadImage.ref
    for (const n of info.nodes) {
      const other = info.nodes.find((m) => m !== n)!
      const out = await sshOk(info, n.mgmtIp, `docker pull -q ${ref} >/dev/null && docker run --rm --network host --pull never ${ref} ip -4 -o addr`, 180_000)
      expect(out).toContain(`inet ${n.fabricIp}/24`)
      expect(out).toContain(`inet ${n.mgmtIp}/24`)
      expect(out).not.toContain(other.fabricIp)
      expect(out).not.toContain(other.mgmtIp)
    }
  }, 400_000)

  it('accepts `docker run --gpus all` and the NGC flags inside a node', async () => {
    const out = await sshOk(
      info,
      info.nodes[1]!.mgmtIp,
      `docker run --rm --pull never --gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 ${info.workloadImage.ref} sh -c 'echo $NVIDIA_VISIBLE_DEVICES; python -c "import ray; print(ray.__version__)"'`,
      60_000,
    )
    const [visible, ray] = out.trim().split('\n')
    expect(visible).toBe('all')
    expect(ray).toMatch(/^\d+\.\d+\.\d+$/)
  }, 90_000)

  it('runs detached containers in a node and `docker exec`s into them (cgroups writable, name=systemd too)', async () => {
    const ref = info.workloadImage.ref
    const out = await sshOk(
      info,
      info.nodes[0]!.mgmtIp,
      `docker run -d --name vrd-lab-exec-test --pull never ${ref} sleep 300 >/dev/null && docker exec vrd-lab-exec-test python -c "print(42)"; rc=$?; docker rm -f vrd-lab-exec-test >/dev/null; exit $rc`,
      60_000,
    )
    expect(out.trim()).toBe('42')
  }, 90_000)

  it('`docker exec`s into a container started with the flags real Spark scripts use (--ulimit memlock=-1, --ipc=host, --shm-size, --privileged, --device=/dev/infiniband)', async () => {
    // The Spark scripts' pattern (docker run -e ... then docker exec ... ray start): on a host without
    // CAP_SYS_RESOURCE the exec carried memlock=-1 into runc and failed ("error setting rlimit type 8").
    const ref = info.workloadImage.ref
    const out = await sshOk(
      info,
      info.nodes[0]!.mgmtIp,
      `docker run -d --name vrd-lab-ngc-exec --pull never --gpus all --ipc=host --shm-size 1g --ulimit memlock=-1 --ulimit stack=67108864 ${ref} sleep 300 >/dev/null && docker exec vrd-lab-ngc-exec python -c "print(42)"; rc=$?; docker rm -f vrd-lab-ngc-exec >/dev/null; exit $rc`,
      60_000,
    )
    expect(out.trim()).toBe('42')
    // eugr's and NVIDIA's scripts also run privileged and map the RDMA devices (a missing
    // /dev/infiniband made docker refuse the run: the lab's nodes carry stand-in device nodes).
    const rdma = await sshOk(
      info,
      info.nodes[1]!.mgmtIp,
      `docker run -d --name vrd-lab-rdma-exec --pull never --privileged --network host --device=/dev/infiniband ${ref} sleep 300 >/dev/null && docker exec vrd-lab-rdma-exec sh -c 'ls /dev/infiniband'; rc=$?; docker rm -f vrd-lab-rdma-exec >/dev/null; exit $rc`,
      60_000,
    )
    expect(rdma.split('\n')).toEqual(expect.arrayContaining(['rdma_cm', 'uverbs0']))
  }, 90_000)

  it('survives a stop: the next up starts the node again, interfaces and images intact', async () => {
    const b = info.nodes[1]!
    expect((await local.run(argv(DOCKER, 'stop', b.container), { timeoutMs: 60_000 })).code).toBe(0)
    const again = await labUp({ nodes: 2 })
    expect(again.changed).toEqual([`started ${b.container}`])
    const route = await sshOk(info, b.mgmtIp, 'ip route show default; docker image inspect --format ok ' + info.workloadImage.ref)
    expect(route).toContain(`default via ${MGMT_NETWORK.gateway} dev enP7s7`)
    expect(route).toContain('ok')
  }, 120_000)

  it('lets nodes reach each other over the fabric by name, with pinned keys', async () => {
    expect((await sshOk(info, info.nodes[0]!.mgmtIp, 'ssh -o BatchMode=yes spark-b-fabric hostname')).trim()).toBe('spark-b')
  })

  it('keeps lookups of outside names on the machine: they fail fast', async () => {
    const drops = async () => {
      const rules = (await local.run(argv('iptables', '-w', '5', '-L', 'DOCKER-USER', '-v', '-n', '-x'), { timeoutMs: 10_000 })).stdout
      return rules
        .split('\n')
        .filter((l) => l.split(/\s+/).includes(GUARD_COMMENT))
        .map((l) => Number(l.trim().split(/\s+/)[0]))
    }
    const before = await drops()
    expect(before).toHaveLength(2)
    const r = await ssh(info, info.nodes[0]!.mgmtIp, 'docker pull docker.io/library/alpine:3')
    expect(r.code).not.toBe(0)
    expect(r.stdout + r.stderr).toMatch(/lookup registry-1\.docker\.io/)
    // Nothing even tried to leave: the lookup died inside the node, the guard saw no packet.
    expect(await drops()).toEqual(before)
  })

  it('reports itself healthy', async () => {
    const s = await labStatus({})
    expect(s.healthy).toBe(true)
    expect(s.nodes.map((n) => [n.name, n.state, n.sshReachable, n.dockerReady, n.storageDriver])).toEqual([
      ['spark-a', 'running', true, true, 'overlay2'],
      ['spark-b', 'running', true, true, 'overlay2'],
    ])
    expect(s.registry.reachable).toBe(true)
    expect(s.egressGuard.present).toBe(true)
  })

  it('up --nodes 3 adds spark-c (known to the others at once); up --nodes 2 removes it', async () => {
    const three = await labUp({ nodes: 3 })
    expect(three.changed).toEqual([`node ${PREFIX}-spark-c`])
    expect((await sshOk(three, three.nodes[0]!.mgmtIp, 'ssh -o BatchMode=yes spark-c-fabric hostname')).trim()).toBe('spark-c')
    const two = await labUp({ nodes: 2 })
    expect(two.changed).toEqual([`removed ${PREFIX}-spark-c`])
    expect(await hostLines('volume', 'ls', '--quiet', '--filter', `name=${PREFIX}-spark-c`)).toBe('')
  }, 120_000)

  it('down leaves nothing behind', async () => {
    const r = await labDown({ onProgress: progress })
    downDone = true
    // Nothing of this lab instance is left (`<prefix>-`: `vrd-lab-` for instance 1); another instance
    // running beside it on this machine (.ci/test runs two) keeps its own objects.
    const mine = `${PREFIX}-`
    expect(r.containers).toEqual(expect.arrayContaining([`${mine}spark-a`, `${mine}spark-b`, `${mine}registry`]))
    expect(r.guardRules).toBe(2)
    expect(await hostLines('ps', '-a', '--format', '{{.Names}}')).not.toContain(mine)
    expect(await hostLines('network', 'ls', '--format', '{{.Name}}')).not.toContain(mine)
    expect(await hostLines('volume', 'ls', '--format', '{{.Name}}')).not.toContain(mine)
    const chain = (await local.run(argv('iptables', '-w', '5', '-S', 'DOCKER-USER'), { timeoutMs: 10_000 })).stdout
    expect(chain).not.toContain(mine)
    expect(chain.split(/\s+/)).not.toContain(GUARD_COMMENT)
    const links = (await local.run(argv('ip', '-o', 'link'), { timeoutMs: 10_000 })).stdout
    expect(links).not.toContain(mine)
    expect((await labStatus({})).down).toBe(true)
  }, 120_000)
})
