/**
 * The lab's adapter (src/tasks/lab-task.ts): whatever a user, this machine or a node makes the lab
 * fail with comes back from src/lab as a Problem, and the CLI prints its message and fix and exits 1,
 * never 3 (the internal-error exit, kept for bugs). Each error source is driven through the real CLI
 * (or the task function, where the CLI stops the input first) with nothing of the lab running: a
 * fake docker client stands in for the daemon, so no lab object is ever touched.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

const root = mkdtempSync(join(tmpdir(), 'vrd-lab-task-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/**
 * A docker client whose daemon answers `version` and refuses everything else, the way a daemon that
 * lost its storage or a client without permission does: `image inspect` finds nothing.
 */
const fakeDocker = join(root, 'docker')
writeFileSync(
  fakeDocker,
  `#!/bin/sh
case "$1" in
  version) echo 27.5.1 ;;
  image) echo "Error: No such image: $3" >&2; exit 1 ;;
  *) echo "fake docker: $1 refused" >&2; exit 1 ;;
esac
`,
)
chmodSync(fakeDocker, 0o755)

let n = 0
let labDir = ''
const holders: ChildProcess[] = []
beforeEach(() => {
  labDir = join(root, `lab-${++n}`)
  mkdirSync(labDir)
  vi.stubEnv('VRD_LAB_DIR', labDir)
  vi.stubEnv('VRD_LAB_INSTANCE', undefined)
  vi.stubEnv('VRD_DOCKER', fakeDocker)
  // Root or not, the same path: the lab's precondition asks process.getuid.
  vi.spyOn(process, 'getuid').mockReturnValue(0)
})
afterEach(() => {
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
  vi.resetModules()
  for (const h of holders.splice(0)) h.kill('SIGKILL')
})

/** `vllm-ray-deploy ...args` with this process's (stubbed) environment, loaded fresh so the lab reads it. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { main } = await import('../../src/cli/cli-main.js')
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env: { ...process.env } })
  return { code, out, err }
}

describe('lab errors are Problems: the CLI prints the message and its fix and exits 1', () => {
  it('a bad $VRD_LAB_INSTANCE: every lab command, before it looks at anything', async () => {
    vi.stubEnv('VRD_LAB_INSTANCE', '3x')
    // A lab dir given (VRD_LAB_DIR) or not: the lab's names would be another instance's either way.
    for (const [dir, ...args] of [
      [labDir, 'lab', 'status'],
      [labDir, 'lab', 'down'],
      [labDir, 'lab', 'scenario', 'healthy'],
      [labDir, 'lab', 'hub', 'status'],
      [undefined, 'lab', 'status'],
      [undefined, 'lab', 'hub', 'up', labDir],
    ]) {
      vi.stubEnv('VRD_LAB_DIR', dir)
      const r = await cli(...(args as string[]))
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.out).toBe(
        'error: VRD_LAB_INSTANCE must be a whole number from 1 to 8; got "3x"\n' +
          'fix: unset VRD_LAB_INSTANCE for the default lab, or set it to the number of the lab to use\n',
      )
      vi.resetModules()
    }
  })

  it('a bad --nodes: a usage error at the CLI, and a Problem with its fix from the task', async () => {
    const usage = await cli('lab', 'up', '--nodes', '7')
    expect(usage.code).toBe(2)
    expect(usage.err).toContain('--nodes must be a whole number from 1 to 4, got 7')
    const { labUpTask } = await import('../../src/tasks/lab-task.js')
    const outcome = await labUpTask(7, () => {})
    expect(outcome.exitCode).toBe(1)
    expect(outcome.text).toBe('error: the lab has 1 to 4 nodes; got 7\nfix: give --nodes a whole number from 1 to 4\n')
    expect(outcome.json).toEqual({ error: 'the lab has 1 to 4 nodes; got 7\nfix: give --nodes a whole number from 1 to 4', code: 'bad-input' })
  })

  it('no docker client, and a daemon that does not answer: what to install or start', async () => {
    vi.stubEnv('VRD_DOCKER', join(root, 'no-such-docker'))
    const missing = await cli('lab', 'down')
    expect(missing.code).toBe(1)
    expect(missing.out).toContain(`error: docker is not installed (looked for ${join(root, 'no-such-docker')}`)
    expect(missing.out).toContain('\nfix: apt-get install -y docker.io debootstrap\n')

    vi.stubEnv('VRD_DOCKER', '/bin/false')
    const silent = await cli('lab', 'down')
    expect(silent.code).toBe(1)
    expect(silent.out).toBe(
      'error: the docker daemon is not answering (/bin/false version)\nfix: start it: dockerd > /var/log/dockerd.log 2>&1 &   (or: systemctl start docker)\n',
    )
  })

  it('not root: how to run it as root', async () => {
    vi.spyOn(process, 'getuid').mockReturnValue(1000)
    const r = await cli('lab', 'down')
    expect(r.code).toBe(1)
    expect(r.out).toContain('\nfix: run it as root, e.g. sudo -E vllm-ray-deploy lab up\n')
  })

  it('the lab lock held by another live process: who holds it, and what to do', async () => {
    const holder = spawn('sleep', ['300'], { stdio: 'ignore' })
    holders.push(holder)
    mkdirSync(join(labDir, 'lock'))
    writeFileSync(join(labDir, 'lock', 'owner'), `${holder.pid} lab up since 2026-12-05T20:00:00Z\n`)
    const r = await cli('lab', 'down')
    expect(r.code).toBe(1)
    expect(r.out).toBe(
      `error: another lab operation is running (${holder.pid} lab up since 2026-12-05T20:00:00Z)\n` +
        `fix: wait for it to finish, or remove ${join(labDir, 'lock')} if it is gone\n`,
    )
  })

  it("a docker command that fails: the step, the command, and the daemon's own words", async () => {
    const r = await cli('lab', 'down')
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/^error: list lab containers failed \(exit 1\): \S+docker ps --all --filter label=vrd-lab=1 /)
    expect(r.out).toContain('\noutput:\n\nfake docker: ps refused\n')
  })

  it('a missing image or lab: what to bring up first', async () => {
    const { ensureNoRayImage } = await import('../../src/lab/image-variants.js')
    const { labFailure } = await import('../../src/tasks/lab-task.js')
    const variant = await ensureNoRayImage()
    if (variant.ok) return expect.unreachable()
    const outcome = labFailure(variant.problem)
    expect(outcome.exitCode).toBe(1)
    expect(outcome.text).toBe('error: vrd-lab/vllm-standin:latest is missing\nfix: run vllm-ray-deploy lab up first\n')

    const scenario = await cli('lab', 'scenario', 'healthy')
    expect(scenario.code).toBe(1)
    expect(scenario.out).toMatch(new RegExp(`^error: the lab's manifest ${join(labDir, 'manifest.yml')} is missing or invalid`))
    expect(scenario.out).toMatch(/\nfix: vllm-ray-deploy lab up\n$/)
  })

  it('a lab whose manifest is there but its SSH key is not: what to run, before any node is dialled', async () => {
    const { renderLabManifest } = await import('../../src/lab/lab-manifest.js')
    const { labLayout } = await import('../../src/lab/layout.js')
    const nodes = labLayout(2).nodes.map((node) => ({
      ...node,
      hostname: node.name,
      mgmtInterface: 'enP7s7',
      fabricInterface: 'enp1s0f0np0',
      sshHost: node.mgmtIp,
      hostKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFnbYhXbSvt96fDrlLv5HxGgrlNWhnwzIOMSeTw/jWgb',
      gpus: 1,
    }))
    const manifest = { nodes, sshUser: 'root', sshPort: 22, fabricInterface: 'enp1s0f0np0', fabricSubnet: '172.30.200.0/24', imageRef: 'vrd-lab/x:1' }
    writeFileSync(join(labDir, 'manifest.yml'), renderLabManifest(manifest))
    const r = await cli('lab', 'scenario', 'healthy')
    expect(r.code).toBe(1)
    expect(r.out).toBe(`error: cannot read the lab's ${join(labDir, 'id_ed25519')}: ENOENT\nfix: vllm-ray-deploy lab up\n`)
  })

  it('a lab dir the file system refuses (under a file, so every write fails): which path, and what to check, from every command that writes there', async () => {
    const file = join(root, `plain-file-${n}`)
    writeFileSync(file, 'not a directory\n')
    vi.stubEnv('VRD_LAB_DIR', join(file, 'lab'))
    const model = join(labDir, 'model')
    mkdirSync(model)
    writeFileSync(join(model, 'config.json'), '{}')
    const hub = await cli('lab', 'hub', 'up', model)
    expect(hub.code).toBe(1)
    expect(hub.out).toMatch(/cannot mkdir .*plain-file-\d+\/lab\/hub: ENOTDIR\nfix: check that the lab dir \(VRD_LAB_DIR\)/)
    const up = await cli('lab', 'up')
    expect(up.code).toBe(1)
    expect(up.out).toMatch(/ENOTDIR\nfix: check that the lab dir/)
  })
})
