/**
 * The launch-script check on vLLM's native multi-node mode (src/script-check/native-rules.ts): each
 * mistake of the family in the styles launch scripts use (variables set from arguments or per
 * role, arrays, line continuations, `docker run -e/--env`, here-documents run by a shell or over
 * ssh, `python -m vllm.entrypoints…`, a launcher in front), and for each a patch that clears it:
 * applied with `git apply`, the script re-checked, the finding gone.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { checkLaunchScript } from '../../src/script-check/index.js'

let pair: Manifest
let trio: Manifest
beforeAll(async () => {
  const { manifest } = await loadManifestFile(join(__dirname, '../../src/manifest/examples/dgx-spark-pair.yml'))
  pair = manifest!
  const worker = pair.nodes.find((n) => n.role === 'worker')!
  trio = {
    ...pair,
    launch: { mode: 'script', path: 'launch.sh', args: [], env: {} } as unknown as Manifest['launch'],
    nodes: [...pair.nodes, { ...worker, name: 'spark-c', fabricIp: '192.168.200.14', ssh: { ...worker.ssh, host: '10.1.230.182' } }],
  }
})

/** `null`: no manifest (undefined would take the default). */
const codes = (text: string, m: Manifest | null = pair) =>
  checkLaunchScript(text, { path: 'launch.sh', ...(m ? { manifest: m } : {}) }).findings.map((f) => `${f.code}:${f.evidence['Script line']?.split(':')[1]}`)

function gitApply(text: string, diff: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-native-patch-'))
  writeFileSync(join(dir, 'launch.sh'), text)
  writeFileSync(join(dir, 'fix.patch'), diff)
  execFileSync('git', ['apply', 'fix.patch'], { cwd: dir, stdio: 'pipe' })
  return readFileSync(join(dir, 'launch.sh'), 'utf8')
}

/** The finding is there; its own patch applies and clears it (and the combined patch clears every finding). */
function clears(text: string, code: string, m: Manifest | null = pair): void {
  const r = checkLaunchScript(text, { path: 'launch.sh', ...(m ? { manifest: m } : {}) })
  const f = r.findings.filter((x) => x.code === code)
  expect(f.length, `${code} in ${JSON.stringify(r.findings.map((x) => x.code))}`).toBeGreaterThan(0)
  for (const one of f) {
    expect(one.patch, `${code} carries a patch`).toBeDefined()
    const patched = gitApply(text, one.patch!)
    expect(
      checkLaunchScript(patched, { path: 'launch.sh', ...(m ? { manifest: m } : {}) }).findings.filter((x) => x.code === code && x.message === one.message),
    ).toEqual([])
  }
  const all = gitApply(text, r.patch!)
  expect(checkLaunchScript(all, { path: 'launch.sh', ...(m ? { manifest: m } : {}) }).findings).toEqual([])
}

// Role by argument, the master address in a variable, continuation lines (the style of vLLM's
// multi-node docs and of per-node wrapper scripts: `./serve.sh <master_ip> <node_rank>`).
const BY_ARG = `#!/bin/bash
set -euo pipefail
MASTER_ADDR=10.1.230.180
ROLE="$1"
if [ "$ROLE" = head ]; then
  vllm serve Qwen/Qwen3-32B \\
    --tensor-parallel-size 2 \\
    --nnodes 2 --node-rank 0 \\
    --master-addr "$MASTER_ADDR" --master-port 29501
else
  vllm serve Qwen/Qwen3-32B \\
    --tensor-parallel-size 2 \\
    --nnodes 2 --node-rank 1 \\
    --master-addr "$MASTER_ADDR" --master-port 29501 --headless
fi
`

// An argument array per role and docker run with -e/--env (eugr/spark-vllm-docker's style of
// containers started with the host network).
const DOCKER_ARRAY = `#!/usr/bin/env bash
HEAD_IP=192.168.200.12
IMAGE=vllm/vllm-openai:v0.20.0
ARGS=(--tensor-parallel-size 2 --nnodes 2 --master-addr "$HEAD_IP")
case "$VRD_ROLE" in
  head)
    docker run -d --network host --gpus all -e NCCL_SOCKET_IFNAME=enp1s0f1np1 --env GLOO_SOCKET_IFNAME=enp1s0f1np1 \\
      "$IMAGE" vllm serve Qwen/Qwen3-32B "\${ARGS[@]}" --node-rank 0
    ;;
  worker)
    docker run -d --network host --gpus all -e NCCL_SOCKET_IFNAME=enp1s0f1np1 --env GLOO_SOCKET_IFNAME=enp1s0f1np1 \\
      "$IMAGE" vllm serve Qwen/Qwen3-32B "\${ARGS[@]}" --node-rank 0 --headless
    ;;
esac
`

// Here-documents: the worker started over ssh with a quoted here-document, the head by a shell
// reading one; python -m and a launcher (uv run) in front.
const HEREDOC = `#!/bin/bash
ssh 10.1.230.181 bash -s <<'EOF'
export VLLM_HOST_IP=192.168.200.12
export NCCL_SOCKET_IFNAME=enp1s0f1np1 GLOO_SOCKET_IFNAME=enP7s7
uv run python3 -m vllm.entrypoints.cli.main serve Qwen/Qwen3-32B -tp 2 --nnodes=3 --node-rank=1 --master-addr=192.168.200.12 --headless
EOF
bash <<EOF
export NCCL_SOCKET_IFNAME=enp1s0f1np1 GLOO_SOCKET_IFNAME=enp1s0f1np1
vllm serve Qwen/Qwen3-32B -tp 2 --nnodes=2 --node-rank=0 --master-addr=192.168.200.12
EOF
`

describe('native-mode launches, read statically', () => {
  it('the master address on the management network, kept in a variable both roles read: one edit where it was written fixes both', () => {
    expect(codes(BY_ARG)).toEqual(['SCRIPT_MASTER_ADDR_NOT_FABRIC:3', 'SCRIPT_MASTER_ADDR_NOT_FABRIC:3'])
    const f = checkLaunchScript(BY_ARG, { path: 'launch.sh', manifest: pair }).findings[0]!
    expect(f.evidence).toMatchObject({ '--master-addr': '10.1.230.180', "Head's fabric IP (manifest)": '192.168.200.12' })
    expect(f.node).toBe('spark-a')
    clears(BY_ARG, 'SCRIPT_MASTER_ADDR_NOT_FABRIC')
  })

  it('a duplicate rank through an argument array inside docker run: the worker is renumbered where its rank is written', () => {
    expect(codes(DOCKER_ARRAY)).toEqual(['SCRIPT_NATIVE_RANK_DUPLICATE:12'])
    clears(DOCKER_ARRAY, 'SCRIPT_NATIVE_RANK_DUPLICATE')
    expect(gitApply(DOCKER_ARRAY, checkLaunchScript(DOCKER_ARRAY, { path: 'launch.sh', manifest: pair }).patch!)).toContain(
      '"${ARGS[@]}" --node-rank 1 --headless',
    )
  })

  it("here-documents over ssh and to a shell: --nnodes against the manifest, VLLM_HOST_IP the head's on a worker, Gloo off the fabric", () => {
    expect(codes(HEREDOC).sort()).toEqual(['SCRIPT_IFNAME_NOT_FABRIC:4', 'SCRIPT_NNODES_MISMATCH:5', 'SCRIPT_VLLM_HOST_IP_OVERRIDE:3'])
    for (const code of ['SCRIPT_NNODES_MISMATCH', 'SCRIPT_VLLM_HOST_IP_OVERRIDE', 'SCRIPT_IFNAME_NOT_FABRIC']) clears(HEREDOC, code)
  })

  it('a worker without --master-addr (vLLM defaults to 127.0.0.1) gets the flag appended to its own command', () => {
    const text = BY_ARG.replace('MASTER_ADDR=10.1.230.180', 'MASTER_ADDR=192.168.200.12').replace(
      '--master-addr "$MASTER_ADDR" --master-port 29501 --headless',
      '--headless',
    )
    expect(codes(text)).toEqual(['SCRIPT_MASTER_ADDR_NOT_FABRIC:14'])
    clears(text, 'SCRIPT_MASTER_ADDR_NOT_FABRIC')
  })

  it('a gap: ranks 0 and 2 of --nnodes 2', () => {
    const text = BY_ARG.replace('10.1.230.180', '192.168.200.12').replace('--nnodes 2 --node-rank 1', '--nnodes 2 --node-rank 2')
    expect(codes(text)).toEqual(['SCRIPT_NATIVE_RANK_GAP:13'])
    clears(text, 'SCRIPT_NATIVE_RANK_GAP')
  })

  it('one worker section with a literal rank, run by two workers (launch.mode: script): the rank becomes VRD_NODE_RANK', () => {
    const text = BY_ARG.replace('10.1.230.180', '192.168.200.12').replaceAll('--nnodes 2', '--nnodes 3')
    expect(codes(text, trio)).toEqual(['SCRIPT_NATIVE_RANK_DUPLICATE:13'])
    clears(text, 'SCRIPT_NATIVE_RANK_DUPLICATE', trio)
    expect(gitApply(text, checkLaunchScript(text, { path: 'launch.sh', manifest: trio }).patch!)).toContain('--nnodes 3 --node-rank $VRD_NODE_RANK')
  })

  it('a rank or master address the script computes per node is not judged on paper; a healthy script has nothing to report', () => {
    const computed = BY_ARG.replace('MASTER_ADDR=10.1.230.180', 'MASTER_ADDR="$2"').replace('--node-rank 1', '--node-rank "$3"')
    expect(codes(computed)).toEqual([])
    expect(codes(BY_ARG.replace('10.1.230.180', '192.168.200.12'))).toEqual([])
  })

  it('without a manifest: only what the script alone shows (a repeated rank, a loopback master)', () => {
    expect(codes(DOCKER_ARRAY, null)).toEqual(['SCRIPT_NATIVE_RANK_DUPLICATE:12'])
    expect(codes(BY_ARG.replace('10.1.230.180', '127.0.0.1'), null)).toEqual(['SCRIPT_MASTER_ADDR_NOT_FABRIC:3', 'SCRIPT_MASTER_ADDR_NOT_FABRIC:3'])
  })
  it("a master address no host answers at (a netmask, the broadcast or a multicast address, Debian's 127.0.1.1), with or without a manifest, in each style", () => {
    for (const bad of ['255.255.255.0', '255.255.0.0', '255.255.255.255', '224.0.0.251', '127.0.1.1']) {
      for (const m of [pair, null]) {
        expect(codes(BY_ARG.replace('10.1.230.180', bad), m), bad).toEqual(['SCRIPT_MASTER_ADDR_NOT_FABRIC:3', 'SCRIPT_MASTER_ADDR_NOT_FABRIC:3'])
        expect(
          codes(DOCKER_ARRAY.replace('HEAD_IP=192.168.200.12', `HEAD_IP=${bad}`).replace('--node-rank 0 --headless', '--node-rank 1 --headless'), m),
          bad,
        ).toEqual(['SCRIPT_MASTER_ADDR_NOT_FABRIC:2', 'SCRIPT_MASTER_ADDR_NOT_FABRIC:2'])
      }
      const f = checkLaunchScript(BY_ARG.replace('10.1.230.180', bad), { path: 'launch.sh' }).findings[0]!
      expect(f.message).toMatch(/a netmask|the broadcast address|a multicast address|a loopback address/)
      expect(f.evidence['--master-addr']).toBe(bad)
    }
    clears(BY_ARG.replace('10.1.230.180', '255.255.255.0'), 'SCRIPT_MASTER_ADDR_NOT_FABRIC')
  })

  it("without a manifest, a worker's literal --master-addr must be the head section's: the worker's value is replaced by the head's", () => {
    const split = BY_ARG.replace('--master-addr "$MASTER_ADDR" --master-port 29501 --headless', '--master-addr 192.168.200.13 --master-port 29501 --headless')
    expect(codes(split, null)).toEqual(['SCRIPT_MASTER_ADDR_NOT_FABRIC:14'])
    const f = checkLaunchScript(split, { path: 'launch.sh' }).findings[0]!
    expect(f.evidence).toMatchObject({ '--master-addr': '192.168.200.13', "The head's --master-addr": '10.1.230.180 (line 9)' })
    clears(split, 'SCRIPT_MASTER_ADDR_NOT_FABRIC', null)
    // Both sections agree, or the head's is computed: nothing to compare on paper.
    expect(codes(BY_ARG, null)).toEqual([])
    expect(codes(split.replace('MASTER_ADDR=10.1.230.180', 'MASTER_ADDR="$2"'), null)).toEqual([])
  })
})

// An env file the script writes from a here-document and hands to docker run --env-file.
const ENV_FILE = `#!/bin/bash
cat > /tmp/vllm.env <<EOF
VLLM_HOST_IP=192.168.200.12
NCCL_SOCKET_IFNAME=enp1s0f1np1
GLOO_SOCKET_IFNAME=enp1s0f1np1
EOF
if [ "$VRD_ROLE" = head ]; then
  docker run -d --network host --env-file /tmp/vllm.env vllm/vllm-openai:v0.20.0 vllm serve m --nnodes 2 --node-rank 0 --master-addr 192.168.200.12
else
  docker run -d --network host --env-file /tmp/vllm.env vllm/vllm-openai:v0.20.0 vllm serve m --nnodes 2 --node-rank 1 --master-addr 192.168.200.12 --headless
fi
`

describe('env files', () => {
  it("a VLLM_HOST_IP in a shared env file is the head's on the worker: the line in the here-document is emptied (vLLM's unset)", () => {
    expect(codes(ENV_FILE)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE:3'])
    clears(ENV_FILE, 'SCRIPT_VLLM_HOST_IP_OVERRIDE')
    expect(gitApply(ENV_FILE, checkLaunchScript(ENV_FILE, { path: 'launch.sh', manifest: pair }).patch!)).toContain('\nVLLM_HOST_IP=\n')
  })

  it('a socket interface off the fabric in the env file is fixed there', () => {
    const text = ENV_FILE.replace('VLLM_HOST_IP=192.168.200.12\n', '').replace('GLOO_SOCKET_IFNAME=enp1s0f1np1', 'GLOO_SOCKET_IFNAME=enP7s7')
    expect(codes(text)).toEqual(['SCRIPT_IFNAME_NOT_FABRIC:4', 'SCRIPT_IFNAME_NOT_FABRIC:4'])
    clears(text, 'SCRIPT_IFNAME_NOT_FABRIC')
  })
})

describe("every rank given the master's address as VLLM_HOST_IP, wherever the environment is set (issue 36)", () => {
  const check = (text: string) => checkLaunchScript(text, { path: 'launch.sh', manifest: pair })
  const fixedBy = (text: string): string => {
    const r = check(text)
    expect(r.patch).toBeDefined()
    const patched = gitApply(text, r.patch!)
    expect(check(patched).findings.filter((f) => f.code === 'SCRIPT_VLLM_HOST_IP_OVERRIDE')).toEqual([])
    return patched
  }

  it("apptainer exec --env VLLM_HOST_IP=$MASTER,…: the worker's own --env is rewritten, the shared MASTER is not", () => {
    const text = [
      '#!/bin/bash',
      'MASTER=192.168.200.12',
      'if [ "$ROLE" = head ]; then',
      '  apptainer exec --nv --env VLLM_HOST_IP=$MASTER,NCCL_SOCKET_IFNAME=enp1s0f1np1 vllm.sif vllm serve m --nnodes 2 --node-rank 0 --master-addr $MASTER',
      'else',
      '  apptainer exec --nv --env VLLM_HOST_IP=$MASTER,NCCL_SOCKET_IFNAME=enp1s0f1np1 vllm.sif vllm serve m --nnodes 2 --node-rank 1 --master-addr $MASTER --headless',
      'fi',
      '',
    ].join('\n')
    expect(codes(text)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE:6'])
    const patched = fixedBy(text)
    expect(patched).toContain('MASTER=192.168.200.12\n')
    expect(patched).toContain('--env VLLM_HOST_IP=192.168.200.13,NCCL_SOCKET_IFNAME')
  })

  it('apptainer --cleanenv and env -i drop the exported value; --env sets it under them', () => {
    const base = (cmd: string) =>
      `#!/bin/bash\nexport VLLM_HOST_IP=192.168.200.12\nvllm serve m --nnodes 2 --node-rank 0 --master-addr 192.168.200.12 &\n${cmd} vllm serve m --nnodes 2 --node-rank 1 --master-addr 192.168.200.12 --headless\n`
    expect(codes(base('apptainer exec vllm.sif'))).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE:2'])
    expect(codes(base('apptainer exec --cleanenv vllm.sif'))).toEqual([])
    expect(codes(base('env -i PATH=/usr/bin'))).toEqual([])
    expect(codes(base('apptainer exec -e --env=VLLM_HOST_IP=192.168.200.12 vllm.sif'))).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE:4'])
  })

  it("a here-document fed to ssh that exports the master's address: the reference in it is rewritten, quoted delimiters read as the remote shell does", () => {
    const text = [
      '#!/bin/bash',
      'MASTER=192.168.200.12',
      'vllm serve m --nnodes 2 --node-rank 0 --master-addr $MASTER &',
      'ssh spark-b bash <<EOF',
      'export VLLM_HOST_IP=$MASTER',
      'vllm serve m --nnodes 2 --node-rank 1 --master-addr $MASTER --headless',
      'EOF',
      '',
    ].join('\n')
    expect(codes(text)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE:5'])
    expect(fixedBy(text)).toContain('export VLLM_HOST_IP=192.168.200.13\n')
    const quoted = text
      .replace('bash <<EOF', "bash -s <<'EOF'")
      .replace('$MASTER\nvllm', '192.168.200.12\nvllm')
      .replace('--master-addr $MASTER --headless', '--master-addr 192.168.200.12 --headless')
    expect(codes(quoted)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE:5'])
  })

  it("docker run -e VLLM_HOST_IP of the master in the worker's container, the serve exec'd into it over ssh", () => {
    const text = [
      '#!/bin/bash',
      'docker run -d --name vllm --network host -e VLLM_HOST_IP=192.168.200.12 img sleep infinity',
      'docker exec -d vllm vllm serve m --nnodes 2 --node-rank 0 --master-addr 192.168.200.12',
      'ssh spark-b "docker run -d --name vllm --network host -e VLLM_HOST_IP=192.168.200.12 img sleep infinity"',
      'ssh spark-b "docker exec -d vllm vllm serve m --nnodes 2 --node-rank 1 --master-addr 192.168.200.12 --headless"',
      '',
    ].join('\n')
    expect(codes(text)).toEqual(['SCRIPT_VLLM_HOST_IP_OVERRIDE:4'])
    expect(fixedBy(text)).toContain('ssh spark-b "docker run -d --name vllm --network host -e VLLM_HOST_IP=192.168.200.13 img')
  })
})
