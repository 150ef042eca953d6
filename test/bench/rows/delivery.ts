/**
 * Row 4's yardsticks, measured on the lab in the same run as the tool's delivery:
 * - naive: this machine runs `docker save <image> | ssh <node> docker load` to each node in turn
 *   (OpenSSH with the lab's ssh_config), every node cold (the image and its containers removed);
 * - link rate: the same archive's bytes over SSH into `cat > /dev/null` on a node;
 * - one `docker load` on a node, from a file already there (cold node);
 * so the ideal for 2 nodes is bytes ÷ link rate + one docker load.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { argv, render, shScript, toFile } from '../../../src/command/shell.js'
import { dockerBinary } from '../../../src/lab/index.js'
import type { ManifestNode } from '../../../src/manifest/schema.js'
import { SshTransport } from '../../../src/transport/ssh.js'
import { sshTargetFor } from '../../../src/transport/targets.js'
import { log, timed } from '../measure.js'
import { median } from '../table.js'
import type { BenchLab } from './lab-context.js'

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

export async function deliveryYardsticks(lab: BenchLab, rounds = 2): Promise<DeliveryYardsticks> {
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
    const head = nodes[0]!
    const t = await SshTransport.connect(sshTargetFor(lab.manifest, head, lab.credentials))
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
      }
    } finally {
      await t.close()
    }
    log(`row 4: link ${linkMBps.map((v) => v.toFixed(0)).join(', ')} MB/s (OpenSSH), ${linkSsh2MBps.map((v) => v.toFixed(0)).join(', ')} MB/s (ssh2)`)

    const oneLoadMs: number[] = []
    const remoteTar = '/tmp/vrd-bench-image.tar'
    await coldNode(lab, head, img.id)
    {
      const p = ssh(lab, head, render(toFile(argv('cat'), remoteTar)))
      createReadStream(archive).pipe(p.stdin!)
      await done(p, 'copy the archive to the node')
    }
    oneLoadMs.push(Number((await sshRun(lab, head, render(shScript(TIMED_LOAD, remoteTar)))).trim()))
    await sshRun(lab, head, render(argv('rm', '-f', remoteTar)))
    log(`row 4: one docker load on a cold node: ${oneLoadMs[0]} ms`)

    const naiveMs: number[] = []
    for (let i = 0; i < rounds; i++) {
      for (const n of nodes) await coldNode(lab, n, img.id)
      const { ms } = await timed(async () => {
        for (const n of nodes) {
          const saver = spawn(dockerBinary(), ['save', img.localRef], { stdio: ['ignore', 'pipe', 'pipe'] })
          const loader = ssh(lab, n, render(argv('docker', 'load')))
          saver.stdout!.pipe(loader.stdin!)
          await Promise.all([done(saver, 'docker save'), done(loader, `docker load on ${n.name}`)])
        }
      })
      naiveMs.push(ms)
      log(`row 4: naive round ${i + 1}: ${Math.round(ms)} ms for ${nodes.length} nodes`)
    }
    const idealMs = (archiveBytes / 1e6 / median(linkMBps)) * 1000 + median(oneLoadMs)
    return { imageRef: img.localRef, imageId: img.id, archiveBytes, naiveMs, linkMBps, linkSsh2MBps, oneLoadMs, idealMs }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
