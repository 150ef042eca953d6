/**
 * The incident's two bugs injected into real public launch scripts (fixtures/real/, sources and
 * licences in its README) in each syntactic style that fits each script (mutation/inject.ts): the
 * checker must name the bug at a line a user edits, carry a patch that `patch -p1` applies, and
 * find nothing wrong after it; the scripts as published give no error. `dev/` is the set the
 * checker was developed against; `held-out/` was added at the end and run once (its score is in
 * the README).
 */
import { fail, ok, problem } from '../../src/result/result.js'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { checkLaunchScript, type ReadSourced } from '../../src/script-check/index.js'
import { FABRIC_IP, type Mutant, mutants, type NativeMutant, nativeMutants } from './mutation/inject.js'

const NAME = 'launch.sh'
type Files = Readonly<Record<string, string>>
/** Reads the files beside the script (a mutant's settings or compose file) by the path the check names them with. */
const reader =
  (files: Files): ReadSourced =>
  (p) => {
    const text = files[p.replace(/^\.\//, '')]
    return text === undefined ? fail(problem('SOURCE_UNREADABLE', 'does not exist')) : ok(text)
  }
const check = (text: string, files: Files = {}) => checkLaunchScript(text, { path: NAME, readSourced: reader(files) })
const errors = (text: string, files: Files = {}) => check(text, files).findings.filter((f) => f.severity === 'error')
/** A published template's placeholders, said as published (TEMPLATES): not what a mutant or its patch is judged by. */
const templateSaid = (f: { code: string; message: string }) => f.code === 'SCRIPT_UNREADABLE' && f.message.includes('is a template with placeholders')
const lineOfFinding = (f: { evidence: Record<string, string> }) => Number(/:(\d+)$/.exec(f.evidence['Script line'] ?? '')?.[1])
/** The file a finding names (`launch.sh`, or a file beside it). */
const fileOfFinding = (f: { evidence: Record<string, string> }) => /^(.*):\d+$/.exec(f.evidence['Script line'] ?? '')?.[1]

/** The lines of the script (`file`) that a unified diff changes. */
const changedLines = (diff: string, file = NAME): number[] => {
  const out: number[] = []
  let line = 0
  let mine = false
  // Lines left in the hunk (old side, new side): inside one, a removed line whose text begins with `--` reads `---…`.
  let oldLeft = 0
  let newLeft = 0
  for (const l of diff.split('\n')) {
    if (oldLeft > 0 || newLeft > 0) {
      if (l.startsWith('-')) {
        oldLeft--
        if (mine) out.push(line)
        line++
      } else if (l.startsWith('+')) newLeft--
      else if (l.startsWith(' ')) {
        oldLeft--
        newLeft--
        line++
      }
      continue
    }
    const h = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(l)
    if (l.startsWith('+++ ')) mine = l === `+++ b/${file}`
    else if (h) {
      line = Number(h[1])
      oldLeft = h[2] === undefined ? 1 : Number(h[2])
      newLeft = h[3] === undefined ? 1 : Number(h[3])
    }
  }
  return out
}

/** The files a unified diff edits. */
const patchedFiles = (diff: string): string[] => [...diff.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]!)

/** Apply a diff with the real tool in a fresh directory holding the script and its files; the patched script and files. */
function patchP1(text: string, files: Files, diff: string): { text: string; files: Files } {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-mut-'))
  writeFileSync(join(dir, NAME), text)
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body)
  writeFileSync(join(dir, 'fix.patch'), diff)
  execFileSync('patch', ['-p1', '--forward', '-i', 'fix.patch'], { cwd: dir, stdio: 'pipe' })
  return { text: readFileSync(join(dir, NAME), 'utf8'), files: Object.fromEntries(Object.keys(files).map((n) => [n, readFileSync(join(dir, n), 'utf8')])) }
}

/** Where the mutant's VLLM_HOST_IP is read by the role's own ray start (`\$VLLM_HOST_IP` in a string a nested shell runs too), the injected value changes nothing: no bug. */
const consistent = (m: Mutant): boolean =>
  m.bug === 'worker' &&
  (m.style === 'export' || m.style === 'source') &&
  /--node-ip-address[= ]"?\\?\$\{?VLLM_HOST_IP\b/.test(m.roleLines.map((l) => m.text.split('\n')[l - 1] ?? '').join('\n'))

export function checkMutant(m: Mutant, published: readonly string[] = []): void {
  const r = check(m.text, m.files)
  // (a published template's placeholders, said as published: TEMPLATES; the rest is read with them as inputs; a bug the script is
  // published with, said of its own values, not the injected ones: PUBLISHED_WITH_BUG)
  const publishedCodes = new Set(published.map((p) => p.split('@')[0]))
  const publishedOwn = (f: { code: string; message: string }) => publishedCodes.has(f.code) && !/\b10\.99\.0\.[12]\b/.test(f.message)
  const errs = r.findings.filter((f) => f.severity === 'error' && !templateSaid(f) && !publishedOwn(f))
  if (consistent(m)) {
    expect(errs, 'the injected value is the one the ray start uses').toEqual([])
    return
  }
  // A script that pins Ray by its environment (RAY_OVERRIDE_NODE_IP_ADDRESS, which Ray 2.x reads as --node-ip-address) keeps the
  // head pinned without the flag: the injected VLLM_HOST_IP then differs from that identity.
  const envPinned = /^[^#\n]*\bRAY_OVERRIDE_NODE_IP_ADDRESS\b/m.test(m.text)
  const codes =
    m.bug === 'head'
      ? ['SCRIPT_HEAD_IDENTITY_UNPINNED', ...(envPinned ? ['SCRIPT_VLLM_HOST_IP_OVERRIDE'] : [])]
      : ['SCRIPT_VLLM_HOST_IP_OVERRIDE', 'SCRIPT_WORKER_IDENTITY_UNPINNED']
  const f = codes
    .map((code) => errs.find((x) => x.code === code && x.message.includes(m.bug === 'head' ? '10.99.0.1' : '10.99.0.2')))
    .find((x) => x !== undefined)
  expect(f, `${codes.join('|')} in ${JSON.stringify(errs.map((x) => `${x.code}@${x.evidence['Script line']}`))}`).toBeDefined()
  expect(f!.patch, 'the finding carries its patch').toBeDefined()
  // The line named is where the value was injected, or a line of the role's ray start that the patch edits.
  const edited = changedLines(f!.patch!)
  const line = lineOfFinding(f!)
  // A finding in a file beside the script names the file the value was injected into; one in the script, a line of the role or the injection.
  const file = fileOfFinding(f!)
  if (file !== NAME) expect(Object.keys(m.files), `finding in ${file}`).toContain(file)
  else expect([...m.injectedLines, ...edited.filter((l) => m.roleLines.includes(l))], `line ${line}`).toContain(line)
  expect(
    edited.every((l) => m.injectedLines.includes(l) || m.roleLines.includes(l)),
    `edits ${edited} stay on the role's lines`,
  ).toBe(true)
  expect(
    patchedFiles(f!.patch!).every((p) => p === NAME || p in m.files),
    'the patch edits the script and the files it reads',
  ).toBe(true)
  // A value injected into a command both roles share reaches the worker too: it claims the head's address, which has no
  // mechanical fix, and it meets identities the user passes in; those findings name the injected value and stay.
  // A worker pinned to its own identity (by the flag, or RAY_OVERRIDE_NODE_IP_ADDRESS) does not claim the head's in Ray: its
  // VLLM_HOST_IP, now the head's, is the override.
  const workerOverride = (x: { code: string; message: string }) =>
    x.code === 'SCRIPT_VLLM_HOST_IP_OVERRIDE' &&
    (envPinned ? /^The worker's\b/ : new RegExp(`^The worker's VLLM_HOST_IP is ${FABRIC_IP.replace(/\./g, '\\.')}\\b`)).test(x.message)
  if (m.shared)
    expect(
      errs.some((x) => x.code === 'SCRIPT_WORKER_USES_HEAD_IP' || workerOverride(x)),
      JSON.stringify(errs.map((x) => x.code)),
    ).toBe(true)
  const consequence = (x: { code: string; evidence: Record<string, string> }) =>
    m.shared && x.code !== 'SCRIPT_HEAD_IDENTITY_UNPINNED' && (x.evidence['VLLM_HOST_IP'] ?? '').startsWith(FABRIC_IP)
  const patched = patchP1(m.text, m.files, r.patch!)
  expect(patched.text).toBe(r.patched ?? m.text)
  expect(
    errors(patched.text, patched.files)
      .filter((x) => !consequence(x) && !templateSaid(x) && !publishedOwn(x))
      .map((x) => `${x.code}@${x.evidence['Script line']}`),
  ).toEqual([])
}

let pair: Manifest
beforeAll(async () => {
  pair = (await loadManifestFile(join(__dirname, '../../src/manifest/examples/dgx-spark-pair.yml'))).manifest!
})

/**
 * The example manifest with `n` nodes on the head's /24: the head at `headIp` (FABRIC_IP, or the script's own literal
 * --master-addr), the workers after it (10.99.0.3 on).
 */
function manifestOf(n: number, headIp = FABRIC_IP, ifname?: string): Manifest {
  const [head, worker] = [pair.nodes.find((x) => x.role === 'head')!, pair.nodes.find((x) => x.role === 'worker')!]
  const [a, b, c, d] = headIp.split('.').map(Number) as [number, number, number, number]
  const first = headIp === FABRIC_IP ? 3 : d < 200 ? d + 1 : 10
  const nodes = [
    { ...head, fabricIp: headIp },
    ...Array.from({ length: n - 1 }, (_, i) => ({ ...worker, name: `w${i + 1}`, fabricIp: `${a}.${b}.${c}.${first + i}` })),
  ]
  return { ...pair, fabric: { ...pair.fabric, subnet: `${a}.${b}.${c}.0/24`, ...(ifname ? { interfaces: [ifname] } : {}) }, nodes }
}

/** A native-mode mutant: found at a line of the role or the injection, with a patch that applies and leaves no error. */
/** `template`: a published template's own finding (TEMPLATES), there before and after the bug. */
export function checkNativeMutant(m: NativeMutant, template: readonly string[] = []): void {
  const manifest = manifestOf(m.nodes, m.headIp, m.ifname)
  const errs = (text: string) => checkLaunchScript(text, { path: NAME, manifest }).findings.filter((f) => f.severity === 'error')
  const r = checkLaunchScript(m.text, { path: NAME, manifest })
  const code = m.bug === 'master-addr' ? 'SCRIPT_MASTER_ADDR_NOT_FABRIC' : 'SCRIPT_VLLM_HOST_IP_OVERRIDE'
  const found = r.findings.filter((f) => f.severity === 'error' && f.code === code)
  expect(found.length, `${code} in ${JSON.stringify(r.findings.map((x) => `${x.code}@${x.evidence['Script line']}`))}`).toBeGreaterThan(0)
  for (const f of found) {
    expect(f.patch, 'the finding carries its patch').toBeDefined()
    expect([...m.injectedLines, ...m.roleLines]).toContain(lineOfFinding(f))
  }
  const patched = patchP1(m.text, {}, r.patch!)
  // (a template's finding moves with the lines the bug added: its code stays)
  expect(errs(patched.text).map((x) => (template.length > 0 ? x.code : `${x.code}@${x.evidence['Script line']}`))).toEqual(template.map((t) => t.split('@')[0]))
}

export function realScripts(folder: string): { name: string; text: string }[] {
  const dir = join(__dirname, 'fixtures', 'real', folder)
  return readdirSync(dir)
    .filter((n) => n.endsWith('.sh'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }))
}

/**
 * Scripts published with one of the incident's bugs (fixtures/real/README.md says why each is one): the check names it
 * at the line, and its patch clears it.
 */
const PUBLISHED_WITH_BUG: Readonly<Record<string, readonly string[]>> = {
  // held-out24: OpenRLHF's README starts the head with `--node-ip-address 0.0.0.0`, the wildcard, which no peer reaches.
  'openrlhf-readme-ray-ppo.sh': ['SCRIPT_LOOPBACK_IDENTITY@launch.sh:4'],
  // export VLLM_HOST_IP=$(hostname --ip-address …), then ray start --head without --node-ip-address (the seed incident).
  'mn5-ray_head.sh': ['SCRIPT_HEAD_IDENTITY_UNPINNED@launch.sh:35'],
  // VLLM_HOST_IP from ib0 ("not the ethernet"), ray start --address without --node-ip-address: Ray takes the default route.
  'mn5-ray_worker.sh': ['SCRIPT_WORKER_IDENTITY_UNPINNED@launch.sh:36'],
  // The worker's bash -c exports its own `hostname --ip-address` over the head's, and its ray start is not pinned to it.
  'kempner-init_cluster.sh': ['SCRIPT_VLLM_HOST_IP_OVERRIDE@launch.sh:90'],
  // `--ulimit stack=67108864` with no `\` after it: bash ends the `docker run` there and runs `--name …` as a command, so the
  // container never gets its name, its image or its `-c "${RAY_START_CMD}"` (held-out9; found by the first run's misses).
  'makiisthenes-run_cluster_persistent.sh': ['SCRIPT_CONTINUATION_BROKEN@launch.sh:152'],
  // `docker run … -e VLLM_HOST_IP="$SELF_IP" … --entrypoint ray "$IMAGE" $RAY_CMD`, RAY_CMD="start --head …" with no --node-ip-address
  // (the seed incident in the eugr style's other form: the env on the container, Ray's words after the image; held-out10).
  'jahangir-node-up.sh': ['SCRIPT_HEAD_IDENTITY_UNPINNED@launch.sh:51', 'SCRIPT_WORKER_IDENTITY_UNPINNED@launch.sh:51'],
  // A GB10 pair's Compose `command:` folded block (`- >-`) given to `bash -c`: its flags on more-indented lines keep their line
  // breaks, so `ray start` runs alone, each flag as a command, and the head's `&& sleep 60` / `&& vllm serve` lines are bash's syntax
  // error (held-out10; found by the first run: SCRIPT_UNREADABLE and, for the worker, no finding).
  'timothystewart6-compose-head-command.sh': [
    'SCRIPT_CONTINUATION_BROKEN@launch.sh:9',
    'SCRIPT_CONTINUATION_BROKEN@launch.sh:1',
    'SCRIPT_CONTINUATION_BROKEN@launch.sh:10',
  ],
  'timothystewart6-compose-worker-command.sh': ['SCRIPT_CONTINUATION_BROKEN@launch.sh:1'],
  // AWS's EC2 test launcher: `tmux new-session … "docker run … -e VLLM_HOST_IP=$HEAD_IP … $IMAGE_URI -c 'ray start --block --head
  // --port=6379'"`, the head unpinned while the container's VLLM_HOST_IP is set (the seed incident, inside a tmux string; held-out11).
  'aws-dlc-head_node_setup.sh': ['SCRIPT_HEAD_IDENTITY_UNPINNED@launch.sh:34'],
  // BSC's MareNostrum 5 job (held-out15; mn5-ray_head.sh's centre): `singularity exec --env VLLM_HOST_IP=$ip_addr … ray start --block --head`
  // with ip_addr from `hostname --ip-address` and no --node-ip-address, the same for each worker.
  'bsc-magma-addons-vllm.sh': ['SCRIPT_HEAD_IDENTITY_UNPINNED@launch.sh:63', 'SCRIPT_WORKER_IDENTITY_UNPINNED@launch.sh:78'],
  // held-out17: a Compose benchmark's head pinned to the wildcard address (`--node-ip-address=0.0.0.0`), and SaladCloud's start script
  // pinned to `localhost` after joining Tailscale: peers on other nodes cannot reach either.
  'robbypambudi-case2-head-command.sh': ['SCRIPT_LOOPBACK_IDENTITY@launch.sh:1'],
  'salad-ray-cluster-start.sh': ['SCRIPT_LOOPBACK_IDENTITY@launch.sh:44'],
  // held-out18: prime-rl's inference head as published before its author's fix: no `\` after `--api-key …`, so every data-parallel flag
  // after it runs as a command of its own.
  'aghyad-prime-rl-run_inference_head-a58ea38.sh': ['SCRIPT_CONTINUATION_BROKEN@launch.sh:2'],
  // held-out19: a ROCm pair whose head starts Ray over ssh without --node-ip-address while vLLM's serve on it runs with VLLM_HOST_IP=$HEAD_IP,
  // the address the worker joins (the seed incident, the variable on the serve); a systemd unit pinning the head to `%h`, the user's home.
  'beam-run_rocm_cluster.sh': ['SCRIPT_HEAD_IDENTITY_UNPINNED@launch.sh:66'],
  'pierce403-systemd-ray-head-execstart.sh': ['SCRIPT_LOOPBACK_IDENTITY@launch.sh:43'],
  // held-out22: Polaris workers started over ssh with `export VLLM_HOST_IP=$(hostname -i …)` and `ray start --address=…` without
  // --node-ip-address (the head is pinned).
  'shwgao-polaris-z-run-cluster.sh': ['SCRIPT_WORKER_IDENTITY_UNPINNED@launch.sh:79'],
  // held-out23: Apolo's DeepSeek-R1 guide opens the worker's `-- -c '` string and never closes it: bash cannot read the text as published.
  'apolo-docs-deepseek-r1-apolo-run.sh': ['SCRIPT_UNREADABLE@launch.sh:6:7'],
}

/**
 * Published bugs with no mechanical fix: a wildcard or loopback pin, where the address to pin is the node's own, which the script does not
 * name (held-out17).
 */
const NO_PATCH_AS_PUBLISHED: ReadonlySet<string> = new Set([
  // held-out24: the head's wildcard --node-ip-address, with no fabric address in the block to put there
  'openrlhf-readme-ray-ppo.sh',
  'robbypambudi-case2-head-command.sh',
  'salad-ray-cluster-start.sh',
  'pierce403-systemd-ray-head-execstart.sh',
  // (the worker's VLLM_HOST_IP is `$(hostname -i | cut -d" " -f1)` in a single-quoted ssh string: no word to pin it to there)
  'shwgao-polaris-z-run-cluster.sh',
  'apolo-docs-deepseek-r1-apolo-run.sh',
])

/**
 * Published templates whose angle-bracket placeholders (`--port <node1_port>`, `OPENRLHF_PATH=<OPENRLHF_ROOT_PATH>`) bash refuses as
 * written: the check says so once (SCRIPT_UNREADABLE at the first placeholder) and reads the rest with each as an input (held-out13).
 */
const TEMPLATES: Readonly<Record<string, readonly string[]>> = {
  'ms-swift-server_multi_node.sh': ['SCRIPT_UNREADABLE@launch.sh:14'],
  'openrlhf-train_ppo_ray_slurm.sh': ['SCRIPT_UNREADABLE@launch.sh:15'],
  // held-out14: a blog's worker block, `export HEAD_NODE_IP=<NODE_1_IP_ADDRESS>  # replace with Node 1's QSFP IP`.
  'soypete-blog-ray-worker.sh': ['SCRIPT_UNREADABLE@launch.sh:3'],
  // held-out24: documentation blocks with unquoted placeholders (`… --worker ~/.cache/huggingface \ -e VLLM_HOST_IP=<WORKER_IP>`, ten
  // `export NAME=<…>` lines, `bash run_cluster.sh \ <HEAD_NODE_IP> …`).
  'nvidia-spark-playbook-vllm-worker.sh': ['SCRIPT_UNREADABLE@launch.sh:12'],
  'vllm-ascend-qwen38-worker-nodes.sh': ['SCRIPT_UNREADABLE@launch.sh:4:38'],
  'vllm-docs-parallelism-scaling-head.sh': ['SCRIPT_UNREADABLE@launch.sh:6'],
  // `--master-addr <HEAD_NODE_IP> \` / `--master-port <MASTER_PORT> \`: placeholders bash parses, as redirections.
  'vllm-ascend-pp-mp-worker.sh': ['SCRIPT_UNREADABLE@launch.sh:9'],
}

/**
 * Scripts that start nothing themselves: they run another script of their repository (over ssh and locally), so no
 * bug can be injected into a start of theirs; as published they give no error.
 */
const NO_START_OF_ITS_OWN: ReadonlySet<string> = new Set([
  // held-out30: a LeaderWorkerSet worker's command that runs the image's ray_init.sh by name (the script itself is in the set); a Helm
  // chart's serve loop that waits for `ray status` to count its replicas and starts the API server on that cluster (no Ray node of its own).
  'gpu-recipes-a3mega-lws-worker-command.sh',
  'kubeblocks-llm-vllm-serve-loop.sh',
  // held-out29: a launch profile that holds only the head's serve (the Ray nodes are its launcher's); a three-Spark launcher whose containers
  // run entrypoint scripts it copies to each host (/entrypoint.sh: the entrypoints are files of their own in the set).
  'sonusflow-vllm-qwen35-397b-tp4.sh',
  'tomdoerr-start-vllm-pp3.sh',
  // held-out28: a Llumnix serve whose Ray head the serving process starts itself from HEAD_NODE=1 and HEAD_NODE_IP (no `ray start` written).
  'llumnix-disagg-fork-online.sh',
  // held-out24/25: guides whose Ray nodes are vLLM's run_cluster.sh, run by name (`bash run_cluster.sh $VLLM_IMAGE $VLLM_HOST_IP --head …`,
  // then `vllm serve` in that container); a settings file two launchers source; a controller whose nodes are `docker compose up -d
  // glm53-head` / `glm53-worker` services (their compose file is not in the set) sent over two ssh hops; a deployer that copies a
  // template to each node and runs it by name.
  'nvidia-spark-playbook-vllm-head.sh',
  'nvidia-spark-playbook-vllm-worker.sh',
  'vllm-docs-parallelism-scaling-head.sh',
  'hy3-dcu-env.sh',
  'amasu-cluster.sh',
  'deploy-glm52-deploy.sh',
  // held-out19/20: vLLM's api_server given --ray-address (the Ray nodes are the repository's other units); launchers that run other
  // scripts (vLLM's run_cluster.sh fetched at run time, a head and a worker script by name); a settings file the serve scripts source.
  'pierce403-08-vllm-serve.sh',
  'dataforgex-start-cluster.sh',
  'dataforgex-start-head.sh',
  'dataforgex-start-worker.sh',
  'nacyot-serve-common.sh',
  // held-out21/22: controllers that start each node's script by name over ssh or systemd-run (node.sh, pair.sh), a launcher whose boot script
  // is not in the repository, and a Slurm job whose `srun ray start --block` has neither --head nor --address (broken as published).
  'tsw2k-cluster.sh',
  'strixhalo-pair.sh',
  'tech2wild-launch.sh',
  'miraclexeon-srun-multi-node.sh',
  // An Ansible task's block that runs `vllm serve` on Ray in the head's container (`docker exec … bash -lc "nohup python3 -m
  // vllm.entrypoints.openai.api_server … --distributed-executor-backend ray"`): the Ray nodes are the other two tasks' (held-out9).
  'ladam-ansible-run_model.sh',
  'limechain-start-tp2.sh',
  // `srun … -w $node_1 start-head.sh $ip $redis_password &`: scripts run by name, found on PATH when the job runs (no `bash`,
  // no `./`), which the check cannot know; the repository's start-head.sh is held-out5/fairchem-start-head.sh.
  'fairchem-submit-ray-cluster.sbatch.sh',
  // `./raymaster.sh $head_node $head_node_ip $port` and `./rayworkers.sh $node_i $ip_head`: its starts are those files'
  // (held-out7/cesga-raymaster.sh, cesga-rayworkers.sh).
  'cesga-ray.sbatch.sh',
  // Systemd installers: unquoted here-documents write `start-ray-head.sh` / `start-ray-worker.sh` (vLLM's run_cluster.sh with
  // `-e VLLM_HOST_IP=…`) and the units that run them at boot; the script itself starts nothing.
  'keeratita-deploy-master.sh',
  'keeratita-deploy-worker.sh',
  // held-out10: the orchestrators copy node-up.sh to NFS and run the copy (`bash "$NFS_DIR/node-up.sh" head …`, `ssh … "bash
  // $NFS_DIR/node-up.sh worker …"`), then `docker exec … vllm serve` on the Ray they started; launch-vllm.sh is that serve alone;
  // deploy-cluster.sh brings Ray up with Docker Compose files it does not hold.
  'jahangir-cluster-up.sh',
  'jahangir-cluster-up-012b3e3.sh',
  'jahangir-launch-vllm.sh',
  'jahangir-deploy-cluster.sh',
  // held-out11: the worker runs vLLM's examples/online_serving/run_cluster.sh from a shared file system inside a tmux session.
  'aws-dlc-worker_node_setup.sh',
  // held-out12: oumi's PBS job runs the per-rank script under mpiexec; SRCE Supek's launcher and cluster script dispatch to
  // ray-head.sh / ray-worker.sh by the PALS rank.
  'oumi-polaris-vllm_job.sh',
  'srce-supek-ray-launcher.sh',
  'srce-supek-ray-cluster.sh',
  // held-out13: ms-swift's rollout servers are `swift rollout` (vLLM, no Ray); open-r1's trainer runs `trl vllm-serve` on its last node.
  'ms-swift-server_multi_node.sh',
  'open-r1-train.slurm.sh',
  // held-out14: a DGX Spark blog's two blocks run vLLM's run_cluster.sh fetched beside them (not in the repository: a warning says what
  // its ray start depends on); LeaderWorkerSet's commands run vLLM's multi-node-serving.sh from the image; a GX10 pair's node script
  // brings vLLM up with a Compose file it does not hold.
  'soypete-blog-ray-head.sh',
  'soypete-blog-ray-worker.sh',
  'lws-gpu-leader-command.sh',
  'lws-gpu-worker-command.sh',
  'anemll-dspark-start-node.sh',
  // held-out15: LSU's submit script runs start-head.sh / start-worker.sh by name under srun (found on PATH when the job runs), as fairchem's;
  // the repository's two are held-out15/lsu-start-head.sh and lsu-start-worker.sh.
  'lsu-submit.sh',
])

/**
 * Scripts with starts the harness cannot inject into, each with why: as published they give no error, and they take no
 * mutant (the class tests cover what they show).
 */
const NO_MUTANT: Readonly<Record<string, string>> = {
  // held-out29: a GB10 pair's data-parallel head and its --headless secondary at --data-parallel-start-rank 1.
  'tomdoerr-vllm-dp-head.sh': "vLLM's data-parallel mode, not the native one",
  'tomdoerr-vllm-dp-worker.sh': "vLLM's data-parallel mode, not the native one",
  // held-out24/25: vLLM's data-parallel mode across nodes (`--data-parallel-size 16 --data-parallel-size-local 8 --data-parallel-address
  // …`, the secondary `--headless --data-parallel-start-rank 8`; a decode template's `--data-parallel-address $5`), no Ray and no --nnodes.
  'step3-deploy-bf16-dp-tp.sh': "vLLM's data-parallel mode, not the native one",
  'vllm-ascend-qwen38-worker-nodes.sh': "vLLM's data-parallel mode, not the native one",
  'vllm-recipes-kimi-k2-dp-ep.sh': "vLLM's data-parallel mode, not the native one",
  'deploy-glm52-run_dp_decode_template.sh': "vLLM's data-parallel mode, not the native one",
  // A container entrypoint whose native-mode words are an array built from the environment (`args+=(--nnodes 2 --node-rank "$NODE_RANK")`,
  // `--headless` when `${HEADLESS:-}` is set) and run as `exec vllm serve "${args[@]}"`: the harness edits words written in a command.
  'amasu-exec-vllm.sh': 'the serve is an array run by exec',
  // `ssh_cmd "$HEAD_NODE" "${REMOTE_PREFIX}$NCCL_ENVS && cd $PROJECT_DIR && ray start --head …"`: the starts are strings a function
  // sends over ssh with the environment as a variable's words; no VLLM_HOST_IP is set anywhere for a bug to keep.
  'guanyazhou-verl-launch_multinode.sh': 'its starts are strings a function sends over ssh',
  // `ray start $* --block` in a function whose roles are its arguments (`start_container 0 ray-head --head --port 6379`),
  // run over `ssh $SSH_OPTS …` in a `podman run`: the harness finds a role by `--head`/`--address` in the start's own words.
  'strixhalo-cluster_up.sh': "the roles are a function's arguments",
  // vLLM's data-parallel mode (`--headless --data-parallel-start-rank … --data-parallel-address $MASTER_ADDR`, no
  // --nnodes/--node-rank): neither Ray nor the native multi-node rendezvous, so neither bug has a place in it.
  'vllm-ascend-multi_node_dp.sh': "vLLM's data-parallel mode, not the native one",
  // The same mode across nodes (`--data-parallel-address "${NODE1_IP}" --data-parallel-rpc-port …`, the secondary
  // `--data-parallel-start-rank … --headless`).
  'uccl-launch_vllm_head.sh': "vLLM's data-parallel mode, not the native one",
  'uccl-launch_vllm_worker.sh': "vLLM's data-parallel mode, not the native one",
  // A library a workspace sources: its functions are called there, and its serve is the image's entrypoint given an array
  // (`args+=( "$IMAGE" "${serve_args[@]}" )`, run as `docker "${args[@]}"` or `ssh … "docker $(printf '%q ' "${args[@]}")"`).
  'epappas-twonode.sh': 'a library of functions its callers run; the serve is an array given to the image',
  // The serve is a string a container runs (`VLLM_CMD="vllm serve … --master-addr \"$HEAD_IP\" …"`, then `docker run … --entrypoint
  // /bin/bash "$IMAGE" -lc "$VLLM_CMD"` with no `-e VLLM_HOST_IP`): no setting of this shell reaches it, and its --master-addr is an
  // input (`--head-ip`), so neither bug has a literal place.
  'makiisthenes-run_vllm_mp_persistent.sh': 'the serve is a string a container runs; its master address is an input',
  // Ray started through a variable holding its path (`RAY_BIN="$VENV/bin/ray"`, `$RAY_BIN start --head …` over ssh): the harness
  // finds a start by the words `ray start`.
  'pjavinash-start_vllm_multinode_ssh.sh': 'ray run through a variable holding its path ($RAY_BIN start)',
  // `srun … ray start --block` with neither --head nor --address (the role comes from the environment Ray reads): no role to inject into.
  'miraclexeon-srun_multi_node.sh': 'a ray start with neither --head nor --address',
  // Ray's words are a string after the image (`--entrypoint ray "$IMAGE" $RAY_CMD`, RAY_CMD="start --head …"): no `ray start` written.
  'jahangir-node-up.sh': "Ray's subcommand and flags are a string after the image",
  // As published, `ray start` is cut from its flags (SCRIPT_CONTINUATION_BROKEN): the start has no role to inject into.
  'timothystewart6-compose-head-command.sh': 'its ray start is cut from its flags as published',
  'timothystewart6-compose-worker-command.sh': 'its ray start is cut from its flags as published',
  // vllm-ascend's multi-node test across LeaderWorkerSet pods: `--data-parallel-address $local_ip` / `$leader_ip`, no Ray (held-out11).
  'ascend-lws-launch_server_leader.sh': "vLLM's data-parallel mode, not the native one",
  'ascend-lws-launch_server_worker.sh': "vLLM's data-parallel mode, not the native one",
  // Ray's command built in an array by rank (`RAY_START_CMD=(ray start -v --block)`, `+=(--head --node-ip-address=…)`), run as
  // "${RAY_START_CMD[@]}": the harness finds a role by `--head`/`--address` in the start's own words (held-out12).
  'oumi-polaris-vllm_worker.sh': "Ray's command is an array built by rank",
  // vllm-ascend's external data-parallel template (`--data-parallel-address $5`): no Ray, not the native mode (held-out13).
  'vllm-ascend-run_dp_template.sh': "vLLM's data-parallel mode, not the native one",
  // AWS's EC2 head (held-out11): its docker run sets VLLM_HOST_IP itself (`-e VLLM_HOST_IP=$HEAD_IP`) and the head is published unpinned
  // (PUBLISHED_WITH_BUG): a value this shell sets does not reach Ray, and the bug is there already (its three host-style mutants, counted
  // before held-out15, only re-found the published bug).
  'aws-dlc-head_node_setup.sh': 'its docker run sets VLLM_HOST_IP itself and the head is published with the bug',
  // held-out14: AWS's DeepSeek-V3 prefill pod (`--data-parallel-address "$MY_IP"`, NIXL's side channel on the same address).
  'awsome-dsv3-prefill-command.sh': "vLLM's data-parallel mode, not the native one",
  // Mooncake's prefill/decode pairs on one host (`VLLM_HOST_IP=… MASTER_ADDR=… python3 -m vllm.entrypoints.openai.api_server`, no
  // --nnodes, no Ray): KV transfer between two servers, neither bug has a place in it.
  'mooncake-vllm-integration-zh-run.sh': "one host's disaggregated prefill/decode servers, neither Ray nor the native mode",
  'mooncake-vllm-benchmarks.sh': "one host's disaggregated prefill/decode servers, neither Ray nor the native mode",
  // A GB10 cluster's per-rank `docker run` built in an array by a function (`cmd+=(--nnodes … --master-addr …)`), the image's
  // entrypoint its serve, sent to each rank as `ssh -- "$host" "$(printf '%q ' …)"` (as epappas-twonode.sh's).
  'pulsar-gb10-start-cluster.sh': "the serve is the image's entrypoint given an array built per rank",
  // held-out18: vLLM's data-parallel mode across nodes under mpirun or from env files (kzwrime's fork), and prime-rl's own `uv run inference`
  // entry point given vLLM's data-parallel flags: neither Ray nor the native --nnodes mode.
  'kzwrime-serve_headless_mpi_template.sh': "vLLM's data-parallel mode, not the native one",
  'kzwrime-serve_headless_mpi_mp_rpc_template.sh': "vLLM's data-parallel mode, not the native one",
  'kzwrime-serve_head_only_template.sh': "vLLM's data-parallel mode, not the native one",
  'kzwrime-serve_headless_dp_only_template.sh': "vLLM's data-parallel mode, not the native one",
  'aghyad-prime-rl-run_inference_head.sh': "prime-rl's own inference entry point in vLLM's data-parallel mode",
  'aghyad-prime-rl-run_inference_head-a58ea38.sh': "prime-rl's own inference entry point in vLLM's data-parallel mode",
  'aghyad-prime-rl-run_inference_child1.sh': "prime-rl's own inference entry point in vLLM's data-parallel mode",
  'aghyad-prime-rl-run_inference_child2.sh': "prime-rl's own inference entry point in vLLM's data-parallel mode",
  // held-out19: an Ansible role's torchrun ranks running vLLM's api_server with the external_launcher executor (torchrun's rendezvous);
  // the ROCm pair published with the seed incident (PUBLISHED_WITH_BUG).
  'cylon-ansible-torchrun-leader.sh': "torchrun's ranks with vLLM's external_launcher executor: neither Ray nor the native mode",
  'cylon-ansible-torchrun-follower.sh': "torchrun's ranks with vLLM's external_launcher executor: neither Ray nor the native mode",
  // held-out21: DGX Spark launchers whose serve is the image's `vllm` entrypoint given an array built per rank, or a profile's array quoted
  // word by word for ssh; a Strix Halo pair's torchrun ranks with the external_launcher executor.
  'tsw2k-node.sh': "the serve is the image's entrypoint given an array built per rank",
  'spark8-run-node.sh': "the serve is the image's `vllm` entrypoint given an array that begins with `serve`",
  'ring4-launch-ring.sh': "the serve's words are a sourced profile's array, quoted word by word into an ssh command",
  'strixhalo-launch-node.sh': "torchrun's ranks with vLLM's external_launcher executor: neither Ray nor the native mode",
  'beam-run_rocm_cluster.sh': 'its starts run over ssh through a function (`n0() { ssh … "$@"; }`), which passes no variable of this shell',
}

/**
 * Scripts whose starts take fewer than three styles, each with why: a container launcher that sets VLLM_HOST_IP itself for the start
 * gives Ray that one, so a value this shell sets (a prefix, `env`, an export, a settings file) does not reach it (held-out15).
 */
const FEW_STYLES: Readonly<Record<string, string>> = {
  // held-out29: `ssh_run HOST "docker run … bash -c '… ray start …'"`, a function that sends each start over ssh as one string.
  'tomdoerr-start-vllm-multinode-dualrail.sh': 'starts sent as strings through an ssh helper into docker run',
  'medllmbench-vllm_serve.sh': 'each start runs under `env SINGULARITYENV_VLLM_HOST_IP=…`',
  // held-out20: native ranks whose serve flags are an array a sourced file builds (`exec vllm serve "${ARGS[@]}" --node-rank 0`).
  'nacyot-serve-head.sh': 'a serve given an array from a sourced file: a prefix and an export',
  // held-out22: `uv --project P run ray start` inside an srun string that computes and exports VLLM_HOST_IP itself: `env` only.
  'mehdidc-pi-vllm-uv.sh': 'the start runs through `uv run` in a string that sets VLLM_HOST_IP itself: `env VLLM_HOST_IP=…` only',
  'nacyot-serve-worker.sh': 'a serve given an array from a sourced file: a prefix and an export',
  'nacyot-dsv41-serve-node.sh': 'a serve given an array built over many branches: a prefix and an export',
}

/**
 * Mutants the check misses, by script and `bug style`, each with why (fixtures/real/README.md, held-out4): run as
 * expected failures, so one that starts passing is noticed.
 */
const KNOWN_MISSES: Readonly<Record<string, { readonly why: string; readonly mutants: readonly string[] }>> = {
  // The worker's ray start is in a function (start_ray_worker) that only a nested `ssh "$worker" "bash -l -c '… source
  // \$COMMON_SETUP_SCRIPT; setup_environment; stop_ray; start_ray_worker'"` calls, after sourcing the script itself by a
  // placeholder path (/path/to/setup_ray_cluster.sh) on the node: the check does not know that file is this one.
  'argonne-setup_ray_cluster.sh': {
    why: 'a function called only by a remote shell that sources this script by a placeholder path',
    mutants: [
      'worker prefix',
      'worker env',
      'worker exec env',
      'worker export',
      'worker docker exec',
      'worker docker exec ps',
      'worker source',
      'worker compose run',
    ],
  },
  // The worker's identity is $NODE_IP, a variable the script does not export: the compose service's VLLM_HOST_IP cannot name it
  // (compose reads it empty), and no literal fits every path (WORKER_IP, HEAD_IP, the NIC's address): found, with no patch.
  'avarok-dgx-vllm-entrypoint.sh': { why: 'found, but no patch: the identity is an unexported variable compose cannot read', mutants: ['worker compose run'] },
  // A notebook of both nodes' commands (a Makefile's recipes in one file): the worker's injected top-level export reaches the
  // `vllm serve` on Ray after it too, the head's driver, so the check will not rewrite it for the worker: found, with no patch.
  // The worker pins Ray to its second argument (`--node-ip-address '${WORKER_IP}'`, WORKER_IP="$2") inside the container's
  // `bash -c`: the injected literal VLLM_HOST_IP=10.99.0.2 is not known to differ from an address the operator passes in
  // (the check compares a literal with another literal or with an address the node computes, not with an input).
  'comp0235-start_worker.sh': {
    why: "the worker's identity is an input ($2): a literal VLLM_HOST_IP beside it is a warning (not known to differ), with the input as its patch",
    mutants: ['worker prefix', 'worker env', 'worker docker -e'],
  },
  // The same class: the worker pins Ray to an input (`--node-ip-address="${HOST_IP}"`, set by the container's environment), so
  // the injected literal VLLM_HOST_IP=10.99.0.2 is not known to differ from it.
  'magnusfroste-cluster-entrypoint.sh': {
    why: "the worker's identity is an input (${HOST_IP}): a literal VLLM_HOST_IP beside it is a warning (not known to differ), with the input as its patch",
    mutants: ['worker prefix', 'worker env', 'worker exec env', 'worker export', 'worker source'],
  },
  // The worker pins Ray to an input (`--node-ip-address="$NODE_IP"`, from a sourced config.sh that is not published): as
  // comp0235's and magnusfroste's, a literal VLLM_HOST_IP beside it is a warning (not known to differ), with the input as its patch (held-out9).
  'tasd12-ray_cluster.sh': {
    why: "the worker's identity is an input ($NODE_IP from an unpublished config.sh): a literal VLLM_HOST_IP beside it is a warning (not known to differ), with the input as its patch",
    mutants: [
      'worker prefix',
      'worker env',
      'worker exec env',
      'worker export',
      'worker docker exec',
      'worker docker exec ps',
      'worker source',
      'worker compose run',
    ],
  },
  // Its Jinja placeholders (`--name ray-worker-{{ inventory_hostname }}`) are one word each now (bash-ast.ts maskTemplates), so the
  // worker's start is read and the injected VLLM_HOST_IP found; but the pin it differs from is `$(hostname -I | awk '{print $1}')`,
  // which the host shell computes inside the container's double-quoted command: no literal fits it, so the finding has no patch
  // (avarok's class).
  'ladam-ansible-start_ray_worker.sh': {
    why: 'found, but no patch: the identity is an address the host shell computes inside the container command',
    mutants: ['worker prefix', 'worker env', 'worker exec env', 'worker docker -e'],
  },
  // Its `docker run` is cut by a missing `\` (found as SCRIPT_CONTINUATION_BROKEN): bash never runs the ray start an injection goes into.
  'makiisthenes-run_cluster_persistent.sh': {
    why: 'the published docker run is cut by a missing `\\` (SCRIPT_CONTINUATION_BROKEN): its ray start never runs',
    mutants: ['head prefix', 'head env', 'head exec env', 'head docker -e'],
  },
  // The worker pins Ray to an input (`--node-ip-address="${WORKER_ROCE_IP}"`, set by Compose's environment): as tasd12's, a literal
  // VLLM_HOST_IP is not known to differ from it (held-out11).
  'ybz21-runtime-entrypoint.sh': {
    why: "the worker's identity is an input (${WORKER_ROCE_IP}): a literal VLLM_HOST_IP beside it is a warning (not known to differ), with the input as its patch",
    mutants: ['worker prefix', 'worker env', 'worker exec env', 'worker export', 'worker source'],
  },
  // As ybz21's: the worker pins Ray to an input (`--node-ip-address=${NODE_IP_ADDRESS}`, from the PBS job), inside `apptainer exec`.
  'srce-supek-ray-worker.sh': {
    why: "the worker's identity is an input (${NODE_IP_ADDRESS}): a literal VLLM_HOST_IP beside it is a warning (not known to differ), with the input as its patch",
    mutants: ['worker prefix', 'worker env', 'worker exec env', 'worker export', 'worker source'],
  },
  // Ray's command is a string run by an unquoted expansion (`RAY_START_CMD="ray start --block"`, `+=" --head …"`, then `${RAY_START_CMD}`):
  // a prefix put inside the string is no assignment once expanded (bash runs `VLLM_HOST_IP=…` as a command), and `env …` in it is found at
  // the line that runs the string, which the harness does not count as the role's (held-out12).
  'ohadrubin-tpu-start_ray.sh': {
    why: "the head's ray start is a string run by an unquoted expansion",
    mutants: ['head prefix', 'head env', 'head exec env'],
  },
  // xtuner's Ascend worker pins Ray to `--node-ip-address="$(hostname -i)"`: an override written in the same shell takes the same words
  // as its patch (held-out13's class, session 59); one in a settings file the section sources is found, with no patch yet.
  'xtuner-run_rl_submit_npu.sh': {
    why: 'found, but no patch: the override is in a sourced settings file and the identity an address the node computes ($(hostname -i))',
    mutants: ['worker source'],
  },
  // held-out16: Ray's old Kubernetes example pins each worker to its pod's own IP (`--node-ip-address=$MY_POD_IP`, the downward API): as
  // ybz21's and srce's, a literal VLLM_HOST_IP is not known to differ from an input.
  // held-out23: a Makefile's worker pinned to `--node-ip-address=${CURRENT_HOST}`, an input with a computed default (the input-identity
  // class); a value exported for the head reaches that worker's line too, where it is such a warning as well.
  'digaplan-Makefile-ray-recipes.sh': {
    why: "the worker's identity is an input (${CURRENT_HOST:-$(hostname -I …)}): a literal VLLM_HOST_IP beside it is a warning (not known to differ), with the input as its patch",
    mutants: [
      'head export',
      'head source',
      'worker prefix',
      'worker env',
      'worker exec env',
      'worker export',
      'worker bash -c',
      'worker ssh',
      'worker docker exec',
      'worker docker exec ps',
      'worker source',
      'worker compose run',
    ],
  },
  'apolo-docs-deepseek-r1-apolo-run.sh': {
    why: "the guide's worker string `-- -c '…` is never closed: bash cannot read the published text, so no mutant of it is read either",
    mutants: ['worker prefix', 'worker env', 'worker export'],
  },
  // held-out19: an Ansible role's worker pinned to `--node-ip-address="{{ spark_interconnect_ip }}"`, a template's input (the input-identity class).
  'cylon-ansible-ray-worker.sh': {
    why: "the worker's identity is a template's input ({{ spark_interconnect_ip }}): a literal VLLM_HOST_IP beside it is a warning (not known to differ), with the input as its patch",
    mutants: ['worker prefix', 'worker env', 'worker exec env', 'worker docker -e'],
  },
  'ray-k8s-podip-worker-args.sh': {
    why: "the worker's identity is an input ($MY_POD_IP): a literal VLLM_HOST_IP beside it is a warning (not known to differ), with the input as its patch",
    mutants: [
      'worker prefix',
      'worker env',
      'worker exec env',
      'worker export',
      'worker bash -c',
      'worker ssh',
      'worker docker exec',
      'worker docker exec ps',
      'worker source',
      'worker compose run',
    ],
  },
  // held-out17: a Compose entrypoint pins each worker to `--node-ip-address=$NODE_IP_ADDRESS`, an input (the input-identity class).
  'robbypambudi-ray-docker-compose-entrypoint.sh': {
    why: "the worker's identity is an input ($NODE_IP_ADDRESS): a literal VLLM_HOST_IP beside it is a warning (not known to differ), with the input as its patch",
    mutants: [
      'worker prefix',
      'worker env',
      'worker exec env',
      'worker export',
      'worker docker exec',
      'worker docker exec ps',
      'worker source',
      'worker compose run',
    ],
  },
  'lqr-vllm-distributed-Makefile.sh': {
    why: "found, but no patch: the worker's export reaches the head's vllm serve after it in the same file",
    mutants: ['worker export', 'worker source'],
  },
  // held-out25/26 (session 61)
  'hy3-dcu-run_pp2_80l.sh': {
    why: "found, but at the line of node 0's own serve, not the remote rank's string the harness edited",
    mutants: ['native master-addr dropped'],
  },
  'tenhkspark-start-worker.sh': {
    why: 'a `-e VLLM_HOST_IP=…` the harness adds to a docker run whose command exports VLLM_HOST_IP=$MY_IP itself: the export wins, no bug',
    mutants: ['worker docker -e'],
  },
  'daskbench-ec2-worker_bootstrap.sh': {
    why: 'found, but no patch: the worker pins `$(hostname -I | awk …)` inside the compose service the harness wraps it in',
    mutants: ['worker compose run'],
  },
  'ocean-ray-worker-startup.sh': {
    why: 'found, but no patch: the sourced env file the harness adds sets VLLM_HOST_IP for a start run through `start.sh ray start`',
    mutants: ['worker source'],
  },
  'tomdoerr-start-vllm-multinode.sh': {
    why: "the harness's `-e VLLM_HOST_IP=…` comes before the script's own `-e VLLM_HOST_IP=$WORKER_IP` (in $ENV_WORKER), and docker takes the last: no bug",
    mutants: ['worker docker -e'],
  },
  'tomdoerr-vllm-worker-entrypoint.sh': {
    why: 'the worker pins its identity to the VLLM_HOST_IP it inherits, so the value the harness writes differs from it only where that input does: a warning, not an error',
    mutants: ['worker prefix', 'worker env', 'worker exec env'],
  },
  'llumnix-fork-download-notes.sh': {
    why: "found, but no patch: a notes page whose two clusters' starts run one after another in one shell, so the harness's export before the first worker also reaches the second cluster's head, and no one edit clears both",
    mutants: ['worker export', 'worker source'],
  },
}

for (const set of [
  'dev',
  'held-out',
  'held-out2',
  'held-out3',
  'held-out4',
  'held-out5',
  'held-out6',
  'held-out7',
  'held-out8',
  'held-out9',
  'held-out10',
  'held-out11',
  'held-out12',
  'held-out13',
  'held-out14',
  'held-out15',
  'held-out16',
  'held-out17',
  'held-out18',
  'held-out19',
  'held-out20',
  'held-out21',
  'held-out22',
  'held-out23',
  'held-out24',
  'held-out25',
  'held-out26',
  'held-out27',
  'held-out28',
  'held-out29',
  'held-out30',
] as const)
  describe(`real launch scripts (${set} set), as published and with the incident bugs injected`, () => {
    for (const { name, text } of realScripts(set)) {
      describe(name, () => {
        const published = PUBLISHED_WITH_BUG[name] ?? []
        const template = TEMPLATES[name]
        if (template)
          it('as published: a template, its placeholders said once', () => {
            expect(errors(text).map((x) => `${x.code}@${x.evidence['Script line']}`)).toEqual(template)
          })
        else
          it(published.length === 0 ? 'as published: no error' : 'as published: its bug, and a patch that clears it', () => {
            expect(errors(text).map((x) => `${x.code}@${x.evidence['Script line']}`)).toEqual(published)
            if (published.length === 0 || NO_PATCH_AS_PUBLISHED.has(name)) return
            const r = check(text)
            expect(r.patch).toBeDefined()
            expect(errors(patchP1(text, {}, r.patch!).text)).toEqual([])
          })
        const ms = mutants(text)
        const native = nativeMutants(text)
        if (NO_START_OF_ITS_OWN.has(name) || NO_MUTANT[name] !== undefined)
          it(NO_MUTANT[name] ? `takes no mutant (${NO_MUTANT[name]})` : 'has no start of its own to take a bug', () => {
            expect(ms.length + native.length).toBe(0)
          })
        else if (FEW_STYLES[name] !== undefined)
          it(`takes a bug in fewer styles (${FEW_STYLES[name]})`, () => {
            expect(ms.length + native.length).toBeGreaterThan(0)
          })
        else
          it('takes a bug in at least three styles', () => {
            expect(ms.length + native.length).toBeGreaterThanOrEqual(3)
          })
        const misses = KNOWN_MISSES[name]?.mutants ?? []
        for (const m of ms)
          if (misses.includes(`${m.bug} ${m.style}`))
            it.fails(`${m.bug} bug, ${m.style} (known miss: ${KNOWN_MISSES[name]!.why})`, () => checkMutant(m, published))
          else it(`${m.bug} bug, ${m.style}`, () => checkMutant(m, published))
        for (const m of native)
          if (misses.includes(`native ${m.bug} ${m.style}`))
            it.fails(`native ${m.bug} bug, ${m.style} (known miss: ${KNOWN_MISSES[name]!.why})`, () => checkNativeMutant(m, template))
          else it(`native ${m.bug} bug, ${m.style}`, () => checkNativeMutant(m, template))
        if (native.length > 0)
          it('native mode, as published with a manifest of its nodes: no error', () => {
            const manifest = manifestOf(native[0]!.nodes, native[0]!.headIp, native[0]!.ifname)
            expect(
              checkLaunchScript(text, { path: NAME, manifest })
                .findings.filter((f) => f.severity === 'error')
                .map((x) => `${x.code}@${x.evidence['Script line']}`),
            ).toEqual(template ?? [])
          })
      })
    }
  })
