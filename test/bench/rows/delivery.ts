/**
 * Row 4's yardsticks, measured on the lab in the same run as the tool's delivery:
 * - naive: this machine runs `docker save <image> | ssh <node> docker load` to each node in turn
 *   (OpenSSH with the lab's ssh_config), every node cold (the image and its containers removed);
 * - link rate: the same archive's bytes over SSH into `cat > /dev/null` on a node;
 * - one `docker load` on a node, from a file already there (cold node);
 * so the ideal for 2 nodes is bytes ÷ link rate + one docker load;
 * - every node's `docker load` at once, each from a file already there: the floor of any delivery
 *   on this machine, where all nodes share its cores;
 * - relay's topology with raw streams: the archive over this tool's SSH transport into `tee` on the
 *   head, which writes it to /dev/null and into `ssh <worker> 'cat > /dev/null'` over the fabric for
 *   every worker (the head's ssh with the same cipher preference as relay's); plus every node's load
 *   at once, the floor of relay's own shape: the second hop's encryption and decryption included.
 * `pinNodes` gives each node container a core of its own (`docker update --cpuset-cpus`), the way
 * separate machines each have their own CPU; the delivery rows run both ways.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { argv, render, shScript, toFile } from '../../../src/command/shell.js'
import { FABRIC_SSH_SH, RELAY_SSH_OPTIONS, fabricCiphers, fabricSshTarget } from '../../../src/plan/relay-commands.js'
import { dockerBinary } from '../../support/lab.js'
import type { ManifestNode } from '../../../src/manifest/schema.js'
import { sshTargetFor } from '../../../src/transport/targets.js'
import { log, timed } from '../measure.js'
import { type Row, median, samples } from '../table.js'
import type { BenchLab } from './lab-context.js'
import { sshConnected } from '../../support/ssh-connected.js'

export interface DeliveryYardsticks {
  readonly imageRef: string
  readonly imageId: string
  readonly archiveBytes: number
  /** ms, each round = every node in turn. */
  readonly naiveMs: number[]
  /** MB/s over OpenSSH, and over this tool's own SSH transport (ssh2). */
  readonly linkMBps: number[]
  readonly linkSsh2MBps: number[]
  /** ms of one `docker load -i` on a cold node. */
  readonly oneLoadMs: number[]
  /** ms of every node's `docker load -i` at once, each cold: the floor on shared cores. */
  readonly allLoadsMs: number[]
  /** ms of the archive through relay's topology with raw streams (runner → head tee → /dev/null and → ssh → each worker's /dev/null). */
  readonly topologyMs: number[]
  /** ms of each node's own leg of the naive delivery (runner → that node alone), by node. */
  readonly legMs: Readonly<Record<string, number[]>>
  /** Each node on a core of its own (pinNodes) while these were measured. */
  readonly pinned: boolean
  /** bytes ÷ link rate (OpenSSH, median) + one docker load (median), ms. */
  readonly idealMs: number
}

const done = (p: ChildProcess, what: string): Promise<void> =>
  new Promise((resolve, reject) => {
    let err = ''
    p.stderr?.on('data', (c) => (err += c))
    p.on('error', reject)
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${what} exited ${code}: ${err.trim().slice(-400)}`))))
  })

/** `ssh -F <lab ssh_config> <node> <remote line>`, the remote line rendered by the one quoting function. */
function ssh(lab: BenchLab, node: ManifestNode, remote: string, stdio: 'pipe' | 'ignore' = 'pipe'): ChildProcess {
  return spawn('ssh', ['-F', lab.info.sshConfigPath, '-o', 'BatchMode=yes', node.name, remote], {
    stdio: [stdio === 'pipe' ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  })
}

async function sshRun(lab: BenchLab, node: ManifestNode, remote: string): Promise<string> {
  const p = ssh(lab, node, remote, 'ignore')
  let out = ''
  p.stdout!.on('data', (c) => (out += c))
  await done(p, `ssh ${node.name}`)
  return out
}

/** Remove the image (every tag of its id) and the containers made from it: the node is cold. */
const COLD =
  'id=$1; c=$(docker ps -aq --filter ancestor="$id"); [ -z "$c" ] || docker rm -f $c >/dev/null; docker rmi -f "$id" >/dev/null 2>&1; ! docker image inspect "$id" >/dev/null 2>&1'
export const coldNode = (lab: BenchLab, node: ManifestNode, imageId: string): Promise<string> => sshRun(lab, node, render(shScript(COLD, imageId)))

/** Remote-side wall time of `docker load -i <file>`, ms. */
const TIMED_LOAD = 's=$(date +%s%N); docker load -i "$1" >/dev/null || exit 1; e=$(date +%s%N); echo $(( (e - s) / 1000000 ))'

/**
 * On the head (POSIX sh): $1 the fabric cipher preference, $2 N, N triples "port user ip", then ssh
 * options. stdin into /dev/null and, through `tee`, into `ssh <worker> 'cat > /dev/null'` for each.
 */
const RAW_TOPOLOGY = `set -u
pref=$1; n=$2; shift 2
${FABRIC_SSH_SH}d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
i=0
while [ "$i" -lt "$n" ]; do
  i=$((i + 1)); p=$1; u=$2; h=$3
  mkfifo "$d/f$i" || exit 1
  (shift $((3 * (n - i + 1))); fssh "$d/e$i" "$@" -p "$p" -l "$u" "$h" 'cat > /dev/null' <"$d/f$i"; echo "$?" >"$d/rc$i") &
  shift 3
done
tee "$d"/f* >/dev/null
wait
cat "$d"/rc* | grep -qvx 0 && { cat "$d"/e* >&2; exit 1; }
exit 0
`

function rawTopology(lab: BenchLab) {
  const workers = lab.manifest.nodes.slice(1)
  const triples = workers.flatMap((w) => {
    const t = fabricSshTarget(lab.manifest, w)
    return [String(t.port), t.user, t.ip]
  })
  return shScript(RAW_TOPOLOGY, fabricCiphers(lab.manifest), String(workers.length), ...triples, ...RELAY_SSH_OPTIONS)
}

/**
 * Each node container on a core of its own (node i on core i mod cores), or back on every core.
 * The runner's own processes (docker save, ssh) stay on every core.
 */
export async function pinNodes(lab: BenchLab, pinned: boolean): Promise<void> {
  const cores = availableParallelism()
  // cgroup v1 refuses to narrow a node's cpuset below its nested dockerd's own cgroups, and never
  // widens those again: so every node is made cold, stopped, updated and started again, and its
  // nested cgroups are made anew from the new set.
  for (const n of lab.manifest.nodes) await coldNode(lab, n, lab.info.workloadImage.id)
  for (const [i, n] of lab.info.nodes.entries()) {
    const set = pinned ? String(i % cores) : `0-${cores - 1}`
    for (const args of [
      ['stop', '-t', '10', n.container],
      ['update', '--cpuset-cpus', set, n.container],
      ['start', n.container],
    ]) {
      const p = spawn(dockerBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] })
      await done(p, `docker ${args.join(' ')}`)
    }
  }
  for (const n of lab.manifest.nodes) {
    const until = Date.now() + 120_000
    for (;;) {
      try {
        await sshRun(lab, n, 'docker info >/dev/null')
        break
      } catch (err) {
        if (Date.now() > until) throw new Error(`${n.name} did not come back after docker update: ${(err as Error).message}`)
        await new Promise((r) => setTimeout(r, 500))
      }
    }
  }
  log(pinned ? `nodes pinned: ${lab.info.nodes.map((n, i) => `${n.name} on core ${i % cores}`).join(', ')}` : 'nodes back on every core')
}

export async function deliveryYardsticks(lab: BenchLab, opts: { rounds?: number; pinned?: boolean } = {}): Promise<DeliveryYardsticks> {
  const rounds = opts.rounds ?? 2
  const img = lab.info.workloadImage
  const nodes = lab.manifest.nodes
  const dir = mkdtempSync(join(tmpdir(), 'vrd-bench-image-'))
  const archive = join(dir, 'image.tar')
  try {
    const save = spawn(dockerBinary(), ['save', '-o', archive, img.localRef], { stdio: ['ignore', 'ignore', 'pipe'] })
    await done(save, 'docker save')
    const archiveBytes = statSync(archive).size
    log(`row 4: ${img.localRef} is ${(archiveBytes / 1e6).toFixed(0)} MB as a docker save archive`)

    const linkMBps: number[] = []
    const linkSsh2MBps: number[] = []
    const topologyMs: number[] = []
    const head = nodes[0]!
    const t = await sshConnected(sshTargetFor(lab.manifest, head, lab.credentials))
    try {
      for (let i = 0; i < 3; i++) {
        const { ms } = await timed(async () => {
          const p = ssh(lab, head, render(toFile(argv('cat'), '/dev/null')))
          createReadStream(archive).pipe(p.stdin!)
          await done(p, 'ssh cat')
        })
        linkMBps.push(archiveBytes / 1e6 / (ms / 1000))
        const r = await timed(() => t.run(toFile(argv('cat'), '/dev/null'), { stdin: createReadStream(archive), timeoutMs: 600_000 }))
        if (r.value.code !== 0) throw new Error(`ssh2 cat failed: ${r.value.stderr}`)
        linkSsh2MBps.push(archiveBytes / 1e6 / (r.ms / 1000))
        const topo = await timed(() => t.run(rawTopology(lab), { stdin: createReadStream(archive), timeoutMs: 600_000 }))
        if (topo.value.code !== 0) throw new Error(`the raw relay topology failed: ${topo.value.stderr}`)
        topologyMs.push(topo.ms)
      }
    } finally {
      await t.close()
    }
    log(`row 4: link ${linkMBps.map((v) => v.toFixed(0)).join(', ')} MB/s (OpenSSH), ${linkSsh2MBps.map((v) => v.toFixed(0)).join(', ')} MB/s (ssh2)`)
    log(`row 4: relay's topology with raw streams: ${topologyMs.map((v) => `${Math.round(v)} ms`).join(', ')}`)

    const oneLoadMs: number[] = []
    const allLoadsMs: number[] = []
    const remoteTar = '/tmp/vrd-bench-image.tar'
    for (const n of nodes) {
      await coldNode(lab, n, img.id)
      const p = ssh(lab, n, render(toFile(argv('cat'), remoteTar)))
      createReadStream(archive).pipe(p.stdin!)
      await done(p, `copy the archive to ${n.name}`)
    }
    oneLoadMs.push(Number((await sshRun(lab, head, render(shScript(TIMED_LOAD, remoteTar)))).trim()))
    log(`row 4: one docker load on a cold node: ${oneLoadMs[0]} ms`)
    for (const n of nodes) await coldNode(lab, n, img.id)
    const all = await timed(() => Promise.all(nodes.map((n) => sshRun(lab, n, render(shScript(TIMED_LOAD, remoteTar))))))
    allLoadsMs.push(all.ms)
    log(`row 4: every node's docker load at once: ${Math.round(all.ms)} ms (${all.value.map((v) => v.trim()).join(', ')} ms on the nodes)`)
    for (const n of nodes) await sshRun(lab, n, render(argv('rm', '-f', remoteTar)))

    const naiveMs: number[] = []
    const legMs: Record<string, number[]> = {}
    for (let i = 0; i < rounds; i++) {
      for (const n of nodes) await coldNode(lab, n, img.id)
      const legs: number[] = []
      const { ms } = await timed(async () => {
        for (const n of nodes) {
          const leg = await timed(async () => {
            const saver = spawn(dockerBinary(), ['save', img.localRef], { stdio: ['ignore', 'pipe', 'pipe'] })
            const loader = ssh(lab, n, render(argv('docker', 'load')))
            saver.stdout!.pipe(loader.stdin!)
            await Promise.all([done(saver, 'docker save'), done(loader, `docker load on ${n.name}`)])
          })
          legs.push(leg.ms)
          legMs[n.name] = [...(legMs[n.name] ?? []), leg.ms]
        }
      })
      naiveMs.push(ms)
      log(
        `row 4: naive round ${i + 1}: ${Math.round(ms)} ms for ${nodes.length} nodes (${nodes.map((n, j) => `${n.name} ${Math.round(legs[j]!)} ms`).join(', ')})`,
      )
    }
    const idealMs = (archiveBytes / 1e6 / median(linkMBps)) * 1000 + median(oneLoadMs)
    return {
      imageRef: img.localRef,
      imageId: img.id,
      archiveBytes,
      naiveMs,
      linkMBps,
      linkSsh2MBps,
      oneLoadMs,
      legMs,
      allLoadsMs,
      topologyMs,
      idealMs,
      pinned: opts.pinned ?? false,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The yardstick rows, ids `4y…` (shared cores) or `4p-y…` (a core per node). */
export function yardstickRows(y: DeliveryYardsticks, n: number): Row[] {
  const id = (k: string) => (y.pinned ? `4p-y${k}` : `4y${k}`)
  const where = y.pinned ? ' (a core per node)' : ''
  return [
    {
      id: id('1'),
      figure: `yardstick${where}: naive delivery, \`docker save | ssh node docker load\` to ${n} nodes in turn (${(y.archiveBytes / 1e6).toFixed(0)} MB archive, cold nodes)`,
      value: samples('ms', y.naiveMs),
      baselineLabel: '',
      goal: { kind: 'none' },
      note: `each node's own leg (runner → that node alone): ${Object.entries(y.legMs)
        .map(([name, v]) => `${name} ${v.map((x) => `${(x / 1000).toFixed(1)} s`).join(', ')}`)
        .join('; ')}`,
    },
    {
      id: id('2'),
      figure: `yardstick${where}: link rate, archive bytes over SSH into \`cat > /dev/null\` (OpenSSH)`,
      value: samples('MB/s', y.linkMBps),
      baselineLabel: '',
      goal: { kind: 'none' },
      note: `the same bytes over this tool's own transport (ssh2): ${y.linkSsh2MBps.map((v) => v.toFixed(0)).join(', ')} MB/s`,
    },
    {
      id: id('3'),
      figure: `yardstick${where}: ideal for ${n} nodes, bytes ÷ link rate + one \`docker load\``,
      value: samples('ms', [y.idealMs]),
      baselineLabel: `one docker load on a cold node: ${y.oneLoadMs.map((v) => `${(v / 1000).toFixed(2)} s`).join(', ')}`,
      goal: { kind: 'none' },
    },
    {
      id: id('4'),
      figure: `yardstick${where}: every node's \`docker load\` at once, each from a file already there (no transfer at all)`,
      value: samples('ms', y.allLoadsMs),
      baselineLabel: '',
      goal: { kind: 'none' },
    },
    {
      id: id('5'),
      figure: `yardstick${where}: relay's topology with raw streams, the archive over this tool's SSH transport into \`tee\` on the head, to /dev/null and into \`ssh <worker> 'cat > /dev/null'\` over the fabric for each worker`,
      value: samples('ms', y.topologyMs),
      baselineLabel: '',
      goal: { kind: 'none' },
    },
  ]
}
