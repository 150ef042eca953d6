/**
 * The launch script read before it runs: the seeds' incident script (both bugs, with their lines,
 * and a patch that `git apply` and `patch -p1` take and that leaves nothing to report), the lab's
 * scenario scripts, and the ways scripts pick a role (VRD_ROLE, $1, hostname, IP) and start Ray
 * (directly, docker run, bash -c).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { scenarioScript } from '../support/lab.js'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import { checkLaunchScript } from '../../src/script-check/index.js'

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8')
const lines = (r: ReturnType<typeof checkLaunchScript>) => r.findings.map((f) => `${f.code}@${f.evidence['Script line']}`)
const SEED = 'spark-vllm-qwen35.sh'

/** Apply a diff with a real tool in a fresh directory holding the script; returns the patched text. */
function applyWith(tool: 'git' | 'patch', name: string, text: string, diff: string): string {
  const dir = mkdtempSync(join(tmpdir(), `vrd-patch-${tool}-`))
  writeFileSync(join(dir, name), text)
  writeFileSync(join(dir, 'fix.patch'), diff)
  if (tool === 'git') execFileSync('git', ['apply', '--verbose', 'fix.patch'], { cwd: dir, stdio: 'pipe' })
  else execFileSync('patch', ['-p1', '--forward', '-i', 'fix.patch'], { cwd: dir, stdio: 'pipe' })
  return readFileSync(join(dir, name), 'utf8')
}

describe("the seeds' incident script (spark-vllm-qwen35.sh, reconstructed)", () => {
  const text = fixture(SEED)
  const r = checkLaunchScript(text, { path: SEED })

  it("reports both bugs at the lines to edit: the head's ray start without --node-ip-address (21, where its arguments end) and the worker-section override (24)", () => {
    expect(lines(r)).toEqual([`SCRIPT_HEAD_IDENTITY_UNPINNED@${SEED}:21`, `SCRIPT_VLLM_HOST_IP_OVERRIDE@${SEED}:24`])
    const [head, worker] = r.findings
    expect(head!.severity).toBe('error')
    expect(head!.evidence['VLLM_HOST_IP']).toBe('192.168.200.12 (set at line 9 (export))')
    expect(head!.fix).toContain('--node-ip-address=192.168.200.12')
    expect(worker!.evidence['Earlier VLLM_HOST_IP']).toBe('192.168.200.12 (set at line 9 (export))')
    expect(worker!.message).toContain('192.168.200.12 → 192.168.200.13')
    // Each finding carries its own diff; the combined patch has both.
    expect(head!.patch).toContain('+    $IMAGE ray start --head --port=6379 --block --node-ip-address=192.168.200.12')
    expect(worker!.patch).toContain('+    $IMAGE ray start --address=$HEAD_IP:6379 --block --node-ip-address=192.168.200.13')
    expect(r.patch).toContain(`--- a/${SEED}\n+++ b/${SEED}\n`)
  })

  for (const tool of ['git', 'patch'] as const) {
    it(`the patch applies with ${tool === 'git' ? 'git apply' : 'patch -p1'}, and the patched script has nothing left to report`, () => {
      const patched = applyWith(tool, SEED, text, r.patch!)
      expect(patched).toBe(r.patched)
      expect(checkLaunchScript(patched, { path: SEED }).findings).toEqual([])
    })
  }

  it('with the manifest, names the nodes and accepts the fabric interface', async () => {
    const { manifest } = await loadManifestFile(join(__dirname, '../../src/manifest/examples/dgx-spark-pair.yml'))
    const withM = checkLaunchScript(text, { path: SEED, manifest: manifest! })
    expect(withM.findings.map((f) => [f.code, f.node])).toEqual([
      ['SCRIPT_HEAD_IDENTITY_UNPINNED', 'spark-a'],
      ['SCRIPT_VLLM_HOST_IP_OVERRIDE', 'spark-b'],
    ])
    // Near miss for the interface rule: a name that is not the fabric's is reported, with its fix as a patch.
    const wrong = checkLaunchScript(text.replace('IFACE=enp1s0f1np1', 'IFACE=enP7s7'), { path: SEED, manifest: manifest! })
    const ifname = wrong.findings.filter((f) => f.code === 'SCRIPT_IFNAME_NOT_FABRIC')
    // NCCL and Gloo, on the head and on the worker: four findings, all pointing at the one assignment.
    expect(ifname.map((f) => `${f.node}:${f.evidence['Script line']}`).sort()).toEqual([
      `spark-a:${SEED}:8`,
      `spark-a:${SEED}:8`,
      `spark-b:${SEED}:8`,
      `spark-b:${SEED}:8`,
    ])
    expect(ifname[0]!.patch).toContain('-IFACE=enP7s7\n+IFACE=enp1s0f1np1')
    expect(checkLaunchScript(wrong.patched!, { path: SEED, manifest: manifest! }).findings).toEqual([])
  })
})

describe("the lab's scenario scripts (common.sh + scenario, as the lab runs them)", () => {
  it('healthy: nothing to report', () => {
    expect(checkLaunchScript(scenarioScript('healthy'), { path: 'healthy.sh' }).findings).toEqual([])
  })

  it('seed-bug: the head (and the worker) start Ray without --node-ip-address; the patch makes it the healthy script', () => {
    const r = checkLaunchScript(scenarioScript('seed-bug'), { path: 'seed-bug.sh' })
    expect(r.findings.map((f) => f.code)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED', 'SCRIPT_WORKER_IDENTITY_UNPINNED'])
    // The flag goes at the call in the head's section, through start_ray's "$@".
    expect(r.findings[0]!.evidence['ray start written at']).toBe('line 19')
    expect(r.patch).toContain('+  start_ray "$VRD_NODE_IP" --head --port="$VRD_RAY_PORT" --include-dashboard=false --node-ip-address="$VRD_NODE_IP"')
    expect(checkLaunchScript(r.patched!, { path: 'seed-bug.sh' }).findings).toEqual([])
  })

  it("worker-override: the worker's VLLM_HOST_IP ($(mgmt_ip)) differs from its Ray identity; the patch passes VRD_NODE_IP instead", () => {
    const r = checkLaunchScript(scenarioScript('worker-override'), { path: 'worker-override.sh' })
    expect(r.findings.map((f) => `${f.code}@${f.node}`)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE@null'])
    expect(r.findings[0]!.evidence['VLLM_HOST_IP']).toContain('$(mgmt_ip)')
    expect(r.patch).toContain('+  start_ray "$VRD_NODE_IP" --address=')
    expect(checkLaunchScript(r.patched!, { path: 'worker-override.sh' }).findings).toEqual([])
  })
})

describe('roles, however a script picks them, and Ray, however it is started', () => {
  const check = (text: string) => checkLaunchScript(text, { path: 'l.sh' })

  it('by positional argument (case "$1"), with ray start run directly and VLLM_HOST_IP exported', () => {
    const r = check(
      [
        '#!/bin/bash',
        'case "$1" in',
        '  head)',
        '    export VLLM_HOST_IP=10.0.0.1',
        '    ray start --head --port=6379',
        '    ;;',
        '  worker)',
        '    export VLLM_HOST_IP=10.0.0.2',
        '    ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2',
        '    ;;',
        'esac',
      ].join('\n'),
    )
    expect(lines(r)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@l.sh:5'])
    expect(r.patch).toContain('+    ray start --head --port=6379 --node-ip-address=10.0.0.1')
  })

  it('by hostname, with the command in a bash -c string inside docker run: the patch goes inside the string', () => {
    const r = check(
      ['H=$(hostname)', 'if [[ "$H" == spark-a* ]]; then', '  docker run -d -e VLLM_HOST_IP=192.168.200.12 img bash -c "ray start --head --block"', 'fi'].join(
        '\n',
      ),
    )
    expect(lines(r)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@l.sh:3'])
    expect(r.findings[0]!.patch).toContain(
      '+  docker run -d -e VLLM_HOST_IP=192.168.200.12 img bash -c "ray start --head --block --node-ip-address=192.168.200.12"',
    )
    expect(check(r.patched!).findings).toEqual([])
  })

  it('by IP, with the value passed through a function and docker --env=', () => {
    const r = check(
      [
        'run() { docker run --env=VLLM_HOST_IP=$1 --entrypoint ray img start "${@:2}"; }',
        'if ip -4 addr | grep -q 192.168.200.13; then',
        '  run 127.0.0.1 --address=192.168.200.12:6379 --node-ip-address=127.0.0.1',
        'fi',
      ].join('\n'),
    )
    expect(r.findings.map((f) => f.code)).toContain('SCRIPT_LOOPBACK_IDENTITY')
  })

  it('a worker given the head address as its own, and a worker pointed at 127.0.0.1', () => {
    const same = check('ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.1')
    expect(same.findings.map((f) => f.code)).toEqual(['SCRIPT_WORKER_USES_HEAD_IP'])
    const loop = check('ray start --address=127.0.0.1:6379 --node-ip-address=10.0.0.2')
    expect(loop.findings.map((f) => [f.code, f.evidence['--address (the head)']])).toEqual([['SCRIPT_LOOPBACK_IDENTITY', '127.0.0.1']])
  })

  it("an identity or head address no host answers at: a netmask, the broadcast address, Debian's 127.0.1.1 (hostname -i)", () => {
    for (const [script, what, value, phrase] of [
      ['ray start --head --node-ip-address=255.255.255.0', '--node-ip-address', '255.255.255.0', 'a netmask'],
      ['export VLLM_HOST_IP=127.0.1.1\nray start --head --node-ip-address=$VLLM_HOST_IP', '--node-ip-address', '127.0.1.1', 'a loopback address'],
      ['ray start --address=255.255.0.0:6379 --node-ip-address=10.0.0.2', '--address (the head)', '255.255.0.0', 'a netmask'],
      ['ray start --address=255.255.255.255:6379 --node-ip-address=10.0.0.2', '--address (the head)', '255.255.255.255', 'the broadcast address'],
    ] as const) {
      const [f] = check(script).findings.filter((x) => x.code === 'SCRIPT_LOOPBACK_IDENTITY')
      expect(f?.evidence[what], script).toBe(value)
      expect(f!.message).toContain(phrase)
    }
    // Host addresses that end in .0 or .255 are hosts in a /16: nothing.
    expect(check('ray start --address=10.0.1.0:6379 --node-ip-address=10.0.2.255').findings).toEqual([])
    // An empty VLLM_HOST_IP is how a script unsets it: not an identity.
    expect(check('export VLLM_HOST_IP=\nray start --head --node-ip-address=10.0.0.1').findings.filter((f) => f.code === 'SCRIPT_LOOPBACK_IDENTITY')).toEqual([])
  })

  it('near misses: pinned identities that agree with VLLM_HOST_IP, and VLLM_HOST_IP not passed into the container', () => {
    expect(check('export VLLM_HOST_IP=10.0.0.1\nray start --head --node-ip-address=$VLLM_HOST_IP').findings).toEqual([])
    // Exported on the host but not given to docker with -e: Ray in the container never sees it.
    expect(check('export VLLM_HOST_IP=10.0.0.1\ndocker run img ray start --head').findings).toEqual([])
  })

  it('a script that is not bash, and one that never starts Ray', () => {
    const bad = check('if then fi (')
    expect(bad.findings.map((f) => f.code)).toEqual(['SCRIPT_UNREADABLE'])
    expect(bad.findings[0]!.evidence['Script line']).toMatch(/^l\.sh:1:\d+$/)
    expect(check('echo hello').findings.map((f) => [f.code, f.severity])).toEqual([['SCRIPT_NO_RAY_START', 'warning']])
  })
})

describe('a run_cluster.sh-style script: the ray start command built as a string per role, run by bash -c in docker', () => {
  const script = (headFlags: string, workerEnv = '-e VLLM_HOST_IP=192.168.200.13 -e RAY_OVERRIDE_NODE_IP_ADDRESS=192.168.200.13') =>
    [
      '#!/bin/bash',
      'IMAGE="$1"; HEAD="$2"; ROLE="$3"; shift 3',
      'CMD="ray start --block"',
      'if [ "$ROLE" == "--head" ]; then',
      `  CMD+=" --head ${headFlags} --port=6379"`,
      '  ENV=(-e VLLM_HOST_IP=192.168.200.12 -e RAY_OVERRIDE_NODE_IP_ADDRESS=192.168.200.12)',
      'else',
      '  CMD+=" --address=${HEAD}:6379"',
      `  ENV=(${workerEnv})`,
      'fi',
      'docker run --entrypoint /bin/bash --network host "${ENV[@]}" "$IMAGE" -c "$CMD"',
    ].join('\n')

  it('reads Ray identity from --node-ip-address or RAY_OVERRIDE_NODE_IP_ADDRESS inside the string: nothing to report when they agree', () => {
    expect(checkLaunchScript(script('--node-ip-address=192.168.200.12'), { path: 'run.sh' }).findings).toEqual([])
    expect(checkLaunchScript(script(''), { path: 'run.sh' }).findings).toEqual([])
  })

  it("a --node-ip-address in the string that differs from VLLM_HOST_IP, and a worker handed the head's identity", () => {
    const differs = checkLaunchScript(script('--node-ip-address=10.1.230.180'), { path: 'run.sh' })
    expect(differs.findings.map((f) => `${f.code}@${f.evidence['Script line']}`)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE@run.sh:6'])
    const same = checkLaunchScript(script('', '-e VLLM_HOST_IP=192.168.200.12 -e RAY_OVERRIDE_NODE_IP_ADDRESS=192.168.200.12'), { path: 'run.sh' })
    expect(same.findings.map((f) => f.code)).toEqual(['SCRIPT_WORKER_USES_HEAD_IP'])
  })
})

describe('the syntax real launch scripts use: every role reached, the line to edit named, a patch that clears the finding', () => {
  const check = (text: string) => checkLaunchScript(text, { path: 'l.sh' })
  const clean = (r: ReturnType<typeof checkLaunchScript>) => expect(check(r.patched!).findings.filter((f) => f.severity === 'error')).toEqual([])

  it('an argument loop with usage/exit inside main "$@": both roles are reached (the arguments are unknown, not absent)', () => {
    const r = check(
      [
        'usage() { echo "usage: $0 --head|--worker" >&2; exit 1; }', // 1
        'main() {',
        '  local role=""',
        '  while [[ $# -gt 0 ]]; do',
        '    case "$1" in',
        '      --head) role=head; shift ;;',
        '      --worker) role=worker; shift ;;',
        '      *) usage ;;',
        '    esac',
        '  done', // 10
        '  [[ -z "$role" ]] && usage',
        '  export VLLM_HOST_IP=10.0.0.1',
        '  if [[ $role == head ]]; then',
        '    ray start --head --port=6379',
        '  else',
        '    VLLM_HOST_IP=10.0.0.9 ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2',
        '  fi',
        '}',
        'main "$@"',
      ].join('\n'),
    )
    expect(lines(r)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@l.sh:14', 'SCRIPT_VLLM_HOST_IP_OVERRIDE@l.sh:16'])
    expect(r.patch).toContain('+    ray start --head --port=6379 --node-ip-address=10.0.0.1')
    expect(r.patch).toContain('+    VLLM_HOST_IP=10.0.0.2 ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2')
    clean(r)
  })

  it('exec env VAR=… ray start, and env VAR=… inside a container command', () => {
    const r = check('exec env VLLM_HOST_IP=10.0.0.1 ray start --head --block')
    expect(lines(r)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@l.sh:1'])
    clean(r)
    const c = check('docker run --network host img env VLLM_HOST_IP=10.0.0.1 ray start --head')
    expect(lines(c)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@l.sh:1'])
    clean(c)
  })

  it('docker run -e after an array expansion: the -e line is named and rewritten, and the finding clears', () => {
    const r = check(
      [
        'DOCKER_ARGS=(--network host --gpus all)',
        'DOCKER_ARGS+=(-v /data:/data)',
        'export VLLM_HOST_IP=10.0.0.1',
        'if [ "$1" = worker ]; then',
        '  docker run "${DOCKER_ARGS[@]}" "$@" \\',
        '    -e VLLM_HOST_IP=10.0.0.7 \\',
        '    img ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2',
        'fi',
      ].join('\n'),
    )
    expect(lines(r)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE@l.sh:6'])
    expect(r.patch).toContain('+    -e VLLM_HOST_IP=10.0.0.2 \\')
    clean(r)
  })
})

describe('strings another shell runs (ssh, docker exec, podman run, bash -c): positions mapped back to the file', () => {
  const check = (text: string) => checkLaunchScript(text, { path: 'l.sh' })
  const clean = (r: ReturnType<typeof checkLaunchScript>) => expect(check(r.patched!).findings.filter((f) => f.severity === 'error')).toEqual([])

  it('docker run -e VLLM_HOST_IP=$OTHER in the worker section: the -e line is named and rewritten, not where OTHER was set', () => {
    const r = check(
      [
        'OTHER=10.0.0.7',
        'export VLLM_HOST_IP=10.0.0.1',
        'case "$1" in',
        '  worker) docker run --gpus all "$@" -e "VLLM_HOST_IP=$OTHER" img ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2 ;;',
        'esac',
      ].join('\n'),
    )
    expect(lines(r)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE@l.sh:4'])
    expect(r.patch).toContain('+  worker) docker run --gpus all "$@" -e "VLLM_HOST_IP=10.0.0.2" img')
    expect(r.patch).not.toContain('-OTHER=')
    clean(r)
  })

  it('ssh host "…" strings: each role found at its line, the pin written inside the string', () => {
    const r = check(
      [
        'HEAD=10.0.0.1',
        'ssh -p 22 spark-a "VLLM_HOST_IP=$HEAD ray start --head --port=6379"',
        "ssh spark-b 'VLLM_HOST_IP=10.0.0.2 ray start --address=10.0.0.1:6379'",
      ].join('\n'),
    )
    expect(lines(r)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@l.sh:2', 'SCRIPT_WORKER_IDENTITY_UNPINNED@l.sh:3'])
    expect(r.patch).toContain('+ssh -p 22 spark-a "VLLM_HOST_IP=$HEAD ray start --head --port=6379 --node-ip-address=10.0.0.1"')
    expect(r.patch).toContain("+ssh spark-b 'VLLM_HOST_IP=10.0.0.2 ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.2'")
    clean(r)
  })

  it('docker exec and podman run with sh -c: the container environment is their -e options', () => {
    const r = check(
      [
        'podman run -d --name n -e VLLM_HOST_IP=10.0.0.1 img sleep infinity',
        "docker exec -e VLLM_HOST_IP=10.0.0.1 n bash -c 'ray start --head --block'",
        'podman run --rm -e VLLM_HOST_IP=10.0.0.1 img sh -c "exec ray start --head --port 6379"',
      ].join('\n'),
    )
    expect(lines(r)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@l.sh:2', 'SCRIPT_HEAD_IDENTITY_UNPINNED@l.sh:3'])
    clean(r)
  })

  it('a value inserted through a variable in the string goes after the reference, not into its definition', () => {
    const r = check(['port=6379', 'export VLLM_HOST_IP=10.0.0.1', 'bash -c "ray start --head --port=$port"'].join('\n'))
    expect(r.patch).toContain('+bash -c "ray start --head --port=$port --node-ip-address=10.0.0.1"')
    expect(r.patch).not.toContain('-port=6379')
    clean(r)
  })
})

describe('roles however a script tells them apart', () => {
  const check = (text: string) => checkLaunchScript(text, { path: 'l.sh' })
  const clean = (r: ReturnType<typeof checkLaunchScript>) => expect(check(r.patched!).findings.filter((f) => f.severity === 'error')).toEqual([])

  it('a role tested twice on an unknown argument is decided the same way the second time (no head-then-worker path)', () => {
    const r = check(
      [
        'TYPE="$1"; HEAD="$2"; IP="$3"; shift 3',
        // (A path that took this as head and the next test as worker would give the worker the head's address as its own.)
        'if [[ "$TYPE" == --head ]]; then HEAD="$IP"; fi',
        'CMD="ray start --block"',
        'if [ "$TYPE" == --head ]; then CMD+=" --head --node-ip-address=$HEAD"; else CMD+=" --address=$HEAD:6379 --node-ip-address=$IP"; fi',
        'bash -c "$CMD"',
      ].join('\n'),
    )
    expect(r.findings).toEqual([])
  })

  it('roles by IP comparison and by a command (ip addr | grep -q): both branches are followed', () => {
    const r = check(
      [
        "MY_IP=$(hostname -I | awk '{print $1}')",
        'HEAD_IP=10.0.0.1',
        'export VLLM_HOST_IP=$MY_IP',
        'if [ "$MY_IP" = "$HEAD_IP" ]; then',
        '  ray start --head --port=6379',
        'elif ip -4 addr show | grep -q 10.0.0.2; then',
        '  ray start --address=$HEAD_IP:6379',
        'fi',
      ].join('\n'),
    )
    expect(lines(r)).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@l.sh:5', 'SCRIPT_WORKER_IDENTITY_UNPINNED@l.sh:7'])
    // A computed address is pinned by the variable that holds it.
    expect(r.patch).toContain('+  ray start --head --port=6379 --node-ip-address=$MY_IP')
    clean(r)
  })

  it('near miss: a literal VLLM_HOST_IP against an identity the user passes in is not compared', () => {
    expect(check('export VLLM_HOST_IP=10.0.0.1\nray start --head --node-ip-address="$1"').findings).toEqual([])
  })
})

describe('containers as state: docker run -e … sleep infinity, then docker exec … ray start (spark-docker-exec.sh)', () => {
  const NAME = 'spark-docker-exec.sh'
  const text = fixture(NAME)
  const r = checkLaunchScript(text, { path: NAME })

  it("finds the seed incident in the head's docker exec: the container's VLLM_HOST_IP, no --node-ip-address", () => {
    expect(lines(r)).toEqual([`SCRIPT_HEAD_IDENTITY_UNPINNED@${NAME}:32`])
    const f = r.findings[0]!
    expect(f.evidence['VLLM_HOST_IP']).toBe('192.168.200.12 (set at line 17 (docker -e))')
    expect(f.evidence['Container']).toMatch(/^vllm \(started at line 16;/)
  })

  it('carries a patch that git apply and patch -p1 take, after which nothing is reported', () => {
    for (const tool of ['git', 'patch'] as const) {
      const patched = applyWith(tool, NAME, text, r.patch!)
      expect(patched).toBe(r.patched)
      expect(patched).toContain('docker exec "$NAME" ray start --head --port "$PORT" --node-ip-address=192.168.200.12')
      expect(lines(checkLaunchScript(patched, { path: NAME }))).toEqual([])
    }
  })

  const head = (exec: string, run = 'docker run -d --name vllm --network host -e VLLM_HOST_IP=192.168.200.12 img sleep infinity') =>
    lines(checkLaunchScript(`#!/bin/bash\nC=vllm\n${run}\n${exec}\n`, { path: 't.sh' }))

  it('by name, by a variable that holds the name, and by $(docker ps -q …); podman alike', () => {
    expect(head('docker exec vllm ray start --head')).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@t.sh:4'])
    expect(head('docker exec -d "$C" ray start --head')).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@t.sh:4'])
    expect(head('docker exec "$(docker ps -q --filter name=vllm)" bash -c "ray start --head --port 6379"')).toEqual(['SCRIPT_HEAD_IDENTITY_UNPINNED@t.sh:4'])
    expect(head('podman exec vllm ray start --head', 'podman run -d --name vllm -e VLLM_HOST_IP=192.168.200.12 img sleep infinity')).toEqual([
      'SCRIPT_HEAD_IDENTITY_UNPINNED@t.sh:4',
    ])
  })

  it("the exec's own -e wins; another container's environment, or one started on another host, does not reach it", () => {
    expect(head('docker exec -e VLLM_HOST_IP= vllm ray start --head')).toEqual([])
    expect(head('docker exec other ray start --head')).toEqual([])
    expect(head('docker exec vllm ray start --head', 'ssh spark-2 "docker run -d --name vllm -e VLLM_HOST_IP=192.168.200.13 img sleep infinity"')).toEqual([])
    expect(head('docker exec vllm ray start --head', 'docker run -d --name vllm img sleep infinity')).toEqual([])
  })

  it('a line continuation inside a string ssh runs keeps the words apart (the worker container gets its -e)', () => {
    const out = checkLaunchScript(
      '#!/bin/bash\nssh w2 "docker run -d --name vllm \\\n  -e VLLM_HOST_IP=10.0.0.2 img sleep infinity"\nssh w2 "docker exec vllm ray start --address=10.0.0.1:6379 --node-ip-address=10.0.0.3"\n',
      { path: 't.sh' },
    )
    expect(out.findings.map((f) => f.code)).toContain('SCRIPT_VLLM_HOST_IP_OVERRIDE')
  })
})
