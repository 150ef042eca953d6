/**
 * The cluster manifest, version 1: one zod definition that is at once the validator, the source of
 * the TypeScript types (`Manifest` has every default applied) and, through `json-schema.ts`, the
 * JSON Schema editors use. Every field's `.describe()` text is its documentation.
 *
 * Single values are checked here (types, ranges, formats); rules that compare several values
 * (one head, unique addresses, fabric IPs inside the subnet, TP x PP <= GPUs, ...) are in
 * `semantic.ts`.
 */
import { z } from 'zod'
import { describeValue } from './describe-value.js'
import {
  byteSize,
  cidrBlock,
  devicePath,
  envMap,
  envName,
  hostKeyPin,
  imageDigest,
  imageReference,
  interfaceName,
  ipv4Address,
  port,
  resourceName,
  scalarText,
  sshHost,
  volumeSpec,
  wholeNumber,
  seconds,
  minutes,
  milliseconds,
  collectiveSeconds,
} from './formats.js'
import { exactlyOneModelSource, hubEndpointAllowed, isRegex, pathWithoutDotParts, regexError, revisionWithoutDotDot } from './format-rules.js'
import { MAX_CLUSTER_NODES, ON_FAILURE } from './manifest-constants.js'

export { EXTENSION_KEY_PREFIX, MAX_CLUSTER_NODES, MAX_RAY_NODES, ON_FAILURE, type OnFailure } from './manifest-constants.js'

const gpusError = (issue: { readonly input?: unknown }) => `expected "all", a GPU count like 1, or "device=0,1", got ${describeValue(issue.input)}`

const containerGpus = () =>
  z
    .union(
      [
        z.literal('all'),
        wholeNumber({ min: 1 }),
        z
          .string()
          .regex(/^device=\S+$/, { error: gpusError })
          .meta({ title: 'device=<ids>' }),
      ],
      { error: gpusError },
    )
    .meta({ examples: ['all', 1, 'device=0,1'] })

const hostKeys = () =>
  z
    .array(hostKeyPin())
    .default([])
    .describe(
      'Pinned host keys: each an OpenSSH fingerprint `SHA256:...` (as printed by `ssh-keygen -lf`) or a public key line `ssh-ed25519 AAAA...`. The connection is refused unless the host presents one of them. Empty: the host is checked against the known_hosts given to the action or CLI.',
    )

export const JumpHostSchema = z
  .strictObject({
    host: sshHost().describe('Hostname or IP address of the jump (bastion) host.'),
    port: port().default(22).describe('SSH port of the jump host.'),
    user: z.string().min(1).optional().describe('Login user on the jump host. Default: `ssh.user`.'),
    hostKeys: hostKeys(),
  })
  .describe('Reach every node through this SSH jump host (like `ssh -J`).')

export const SshSchema = z
  .strictObject({
    user: z.string().min(1).default('root').describe('Login user on every node, unless a node sets its own `ssh.user`.'),
    port: port().default(22).describe('SSH port on every node, unless a node sets its own `ssh.port`.'),
    connectTimeoutSeconds: seconds().default(20).describe('Give up connecting to a node after this many seconds.'),
    commandTimeoutSeconds: seconds()
      .default(1800)
      .describe(
        'Upper bound on any single command run on a node (each deploy step, the facts probe, each poll of the vLLM watch); image pulls and loads get exactly this long. Steps with a shorter timeout of their own keep it.',
      ),
    jumpHost: JumpHostSchema.optional(),
    fabricCiphers: z
      .array(z.string().regex(/^[a-z0-9][a-z0-9@.-]*$/, 'an OpenSSH cipher name, e.g. aes128-gcm@openssh.com'))
      .min(1)
      .optional()
      .describe(
        "Ciphers the head's ssh offers a worker over the fabric (`relay` of the image and the weights), most wanted first; those the head's ssh does not know are left out, and if the worker accepts none of them the head connects again with OpenSSH's defaults. Default: AES-GCM first (hardware AES on x86 and Arm server cores: 1.6× chacha20-poly1305, OpenSSH's default, on the lab), then every other OpenSSH default cipher.",
      ),
  })
  .describe('How to reach the nodes over SSH. Private keys are never part of the manifest: they come from the action inputs or the environment.')

export const FabricSchema = z
  .strictObject({
    interfaces: z
      .array(interfaceName())
      .min(1)
      .describe('Network interface name(s) of the fast fabric (RoCE/InfiniBand/Ethernet) that NCCL, Gloo, Ray and vLLM must use, e.g. `enp1s0f1np1`.'),
    subnet: cidrBlock().describe('The fabric subnet in CIDR form. Every node `fabricIp` must lie inside it; Ray and vLLM are pinned to addresses in it.'),
    mtu: wholeNumber({ min: 576, max: 65536 })
      .optional()
      .describe(
        'Expected MTU of every fabric interface, e.g. `9000`. The preflight and the host checks always require the fabric interfaces of all nodes to share one MTU (a mismatch hangs NCCL); with this set they must also equal it.',
      ),
    linkSpeedGbps: wholeNumber({ min: 1 })
      .optional()
      .describe(
        'Expected link speed of every fabric interface in Gb/s, e.g. `200` on a DGX Spark pair. A link that negotiated less (read from `/sys/class/net/IF/speed`) is a warning: it works, at a fraction of the tensor-parallel speed.',
      ),
  })
  .describe('The high-speed network between the nodes, as opposed to the management network SSH uses.')

export const NodeSshSchema = z
  .strictObject({
    host: sshHost().describe('Management address (hostname or IP) to SSH to.'),
    port: port().optional().describe('SSH port of this node. Default: `ssh.port`.'),
    user: z.string().min(1).optional().describe('Login user on this node. Default: `ssh.user`.'),
    hostKeys: hostKeys(),
  })
  .describe('How to reach this node over SSH.')

export const NodeSchema = z
  .strictObject({
    name: resourceName('spark-a').describe('Unique node name, used in logs, findings and Ray resources.'),
    role: z.enum(['head', 'worker']).describe('`head` runs the Ray head and the vLLM API server (exactly one node); `worker` joins it.'),
    ssh: NodeSshSchema,
    fabricIp: ipv4Address().describe(
      "This node's address on the fabric subnet. Ray's node IP, VLLM_HOST_IP and the NCCL/Gloo interfaces are all pinned to it.",
    ),
    gpus: wholeNumber({ min: 0 }).describe('Number of GPUs on this node that vLLM may use.'),
  })
  .describe('One machine of the cluster.')

export const ImageSchema = z
  .strictObject({
    ref: imageReference().describe('Container image with vLLM and Ray, e.g. `vllm/vllm-openai:v0.11.0` or `registry:5000/team/vllm:tag@sha256:...`.'),
    digest: imageDigest().optional().describe('Expected image digest `sha256:<64 hex>`. When set, every node must run exactly this image.'),
    distribution: z
      .enum(['pull', 'load', 'relay', 'preloaded'])
      .default('pull')
      .describe(
        "How the image gets onto the nodes: `pull` from its registry on each node; `load` by streaming a `docker save` archive from the runner to every node over SSH; `relay` by streaming it from the runner to the head only, which loads it and, from the same stream at the same time, feeds every worker's `docker load` over SSH on the fabric (with `relayLanding: true` it lands the archive in a file on every node first; a head that already holds the image runs `docker save | ssh <worker fabricIp> docker load`): the runner sends the image once, for clusters whose fabric is much faster than the runner's link. `relay` needs SSH from the head to each worker's fabric IP without a prompt (a key the worker accepts, its host key in the head's known_hosts), which the host checks verify before a deploy. `preloaded` when it is already there (only checked). Any way, a node that already holds the exact image ID is skipped.",
      ),
    relayLanding: z
      .boolean()
      .default(false)
      .describe(
        "With `distribution: relay`: land the archive in a file on every node before loading it. The head writes it under the release state (`/var/lib/vllm-ray-deploy/<cluster>/image-landing`) and, from the same stream at the same time, into a file on every worker over the fabric, each hashed as written and kept only when it matches the runner's SHA-256 and size; then every node runs `docker load -i` from its own file at once and the file is removed (also after a failure or a cancel). A node without the room for the archive (its size + 10 % + 64 MiB) or without python3 gets the stream instead, with a warning. Off by default: `docker load` untars the whole archive into a temp directory before it registers a layer, so a file adds one write and one read of the archive per node, and on the 2-core lab it was not faster than the stream (test/bench/NOTES.md); try it where SSH decryption and the untar contend for a node's cores.",
      ),
    runnerArchiveCache: z
      .boolean()
      .default(true)
      .describe(
        "With `distribution: relay`: keep the runner's `docker save` archive of the image (one image: the newest, by image ID and ref) under `$XDG_CACHE_HOME/vllm-ray-deploy/images` (else `~/.cache/...`), written as the relay streams it, and send that file the next time the same image is relayed (to new or cold nodes, a retried deploy, another cluster) without running `docker save`, which writes the whole image into a temp directory before it sends a byte. Written only where the file system keeps 2 GiB and a tenth of the image free beyond it, kept only when the save ended well; a cached archive a relay failed with is removed. `false`: `docker save` every time, nothing written on the runner.",
      ),
  })
  .describe('The container image every node runs.')

export const ContainerSchema = z
  .strictObject({
    name: resourceName('vllm-ray').default('vllm-ray').describe('Name of the Ray/vLLM container on every node.'),
    gpus: containerGpus().default('all').describe('Value of `docker run --gpus`: `all`, a count, or `device=<ids>`.'),
    shmSize: byteSize().optional().describe('Value of `docker run --shm-size`, e.g. `16g`. Leave unset when `--ipc=host` is in `extraArgs`.'),
    devices: z.array(devicePath()).default([]).describe('Devices to pass in (`docker run --device`), e.g. `/dev/infiniband` for RDMA.'),
    volumes: z.array(volumeSpec()).default([]).describe('Bind mounts `host:container[:options]` (`docker run -v`), e.g. the Hugging Face cache.'),
    extraArgs: z.array(scalarText()).prefault([]).describe('Further `docker run` arguments, one list item per argument, e.g. `["--ulimit", "memlock=-1"]`.'),
    env: envMap().prefault({}).describe('Environment variables set in the container on every node. Numbers and booleans are taken as their text.'),
    secretEnv: z
      .array(envName())
      .default([])
      .describe(
        'Names of environment variables whose values are secret (e.g. `HF_TOKEN`). Only the names are listed; the values are taken from the environment of the action or CLI and never logged.',
      ),
  })
  .describe('How the container is run on every node.')

export const RaySchema = z
  .strictObject({
    port: port().default(6379).describe('Port of the Ray head (GCS), on the fabric IP of the head node.'),
    dashboard: z.boolean().default(false).describe('Start the Ray dashboard on the head node.'),
    dashboardPort: port().default(8265).describe('Port of the Ray dashboard, when `dashboard` is true.'),
    objectStoreMemoryBytes: wholeNumber({ min: 1 })
      .optional()
      .describe('Size of the Ray object store per node in bytes (`ray start --object-store-memory`). Default: chosen by Ray.'),
    extraArgs: z.array(scalarText()).prefault([]).describe('Further `ray start` arguments on every node, one list item per argument.'),
  })
  .describe('The Ray cluster vLLM uses as its distributed executor.')

export const VllmSchema = z
  .strictObject({
    model: z.string().min(1).describe('Model to serve: a Hugging Face id like `Qwen/Qwen3.5-122B-A10B-FP8` or a path inside the container.'),
    servedModelName: z.string().min(1).optional().describe('Model name clients use in API requests (`--served-model-name`). Default: `model`.'),
    tensorParallelSize: wholeNumber({ min: 1 }).describe(
      'GPUs each model layer is split across (`--tensor-parallel-size`). Together with `pipelineParallelSize` it must fit in the GPUs of all nodes.',
    ),
    pipelineParallelSize: wholeNumber({ min: 1 }).default(1).describe('Pipeline stages (`--pipeline-parallel-size`).'),
    port: port().default(8000).describe('Port of the OpenAI-compatible API server on the head node.'),
    args: z
      .array(scalarText())
      .prefault([])
      .describe(
        'Further `vllm serve` arguments, one list item per argument, e.g. `["--max-model-len", "32768"]`. Flags the manifest already sets (parallel sizes, port, executor) do not belong here.',
      ),
    env: envMap().prefault({}).describe('Environment variables for the vLLM process only (on top of `container.env`).'),
    executorBackend: z
      .enum(['ray', 'mp'])
      .default('ray')
      .describe(
        "vLLM's distributed executor (`--distributed-executor-backend`). `ray`: a Ray cluster across the nodes (`ray start` on every node), `vllm serve` on the head; the image needs Ray. `mp`: vLLM's native multi-node mode, no Ray: `vllm serve --nnodes N --node-rank 0 --master-addr <head fabric IP> --master-port <masterPort>` on the head and `--headless --node-rank i` on every other node; needs a vLLM with `--nnodes` (stock images without Ray, vLLM 0.19 and later). With `mp`, tensorParallelSize x pipelineParallelSize must equal the nodes x the GPUs of each node, and the `ray` keys must stay at their defaults.",
      ),
    version: z
      .string()
      .regex(/^v?\d+\.\d+(?:\.\d+)?\S*$/, 'a vLLM version such as 0.24.0')
      .optional()
      .describe(
        "The vLLM version the image holds, e.g. `0.24.0`, when `image.ref`'s tag does not name it. `validate` and `plan` warn when `args` uses a flag that release's `vllm serve` does not have (`VLLM_FLAG_NOT_IN_VERSION`); the deploy reads the image's own version and checks again. Unset: the tag's version (`vllm/vllm-openai:v0.24.0`), else no check before the deploy.",
      ),
    kvCacheMemoryBytes: wholeNumber({ min: 1 })
      .optional()
      .describe(
        "The KV cache per GPU in bytes (`vllm serve --kv-cache-memory-bytes`), instead of the share `--gpu-memory-utilization` leaves it. On unified memory (GB10) a fraction of a pool the host shares means different bytes from one start to the next; a byte size does not. vLLM then ignores the utilisation for the KV cache. The fit before launch (`plan`, `preflight`, the deploy's `fit` stage) proposes a value that leaves the host its reserve; the deploy stops before anything changes when the image's vLLM has no such flag. Unset: vLLM sizes the KV cache from `--gpu-memory-utilization`.",
      ),
    masterPort: port()
      .default(29501)
      .describe(
        "With `executorBackend: mp`: the port of torch's rendezvous store on the head's fabric IP (`--master-port`), which every node connects to. vLLM's default 29501. Leave it unset with `ray`.",
      ),
  })
  .describe('The vLLM server.')

const HF_REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/
const REVISION = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/

export const HubSourceSchema = z
  .strictObject({
    repo: z
      .string()
      .regex(HF_REPO, { error: (issue) => `expected a Hugging Face repository id like Qwen/Qwen3.5-122B-A10B-FP8, got ${describeValue(issue.input)}` })
      .meta({ examples: ['Qwen/Qwen3.5-122B-A10B-FP8'] })
      .describe('The Hugging Face model repository, `org/name`.'),
    revision: z
      .string()
      .regex(REVISION, { error: (issue) => `expected a commit (40 hex digits), a tag or a branch, got ${describeValue(issue.input)}` })
      .refine(revisionWithoutDotDot, { error: 'a revision cannot contain ".."' })
      .meta({ examples: ['0123456789abcdef0123456789abcdef01234567', 'main'] })
      .describe(
        'The revision to download: a commit (40 hex digits) pins the weights; a tag or a branch is accepted with a warning, because what it names can move (then the fingerprint still names the words, not the files).',
      ),
    endpoint: z
      .string()
      .regex(/^https?:\/\/[^\s]+$/i, { error: (issue) => `expected an http(s) URL, got ${describeValue(issue.input)}` })
      .optional()
      .meta({ examples: ['https://hf-mirror.example.com'] })
      .describe(
        "A hub mirror (the client's `HF_ENDPOINT`), reached from the node that downloads; absent: the client's default, https://huggingface.co. A plain `http://` endpoint needs `allowInsecure: true`.",
      ),
    allowInsecure: z
      .boolean()
      .optional()
      .describe(
        'Allow a plain `http://` endpoint: the token and the files then cross the network unencrypted, and anyone on the path can change the bytes (the download is still checked against the digests the endpoint lists). Default false.',
      ),
  })
  .refine(hubEndpointAllowed, {
    path: ['endpoint'],
    error: (issue) =>
      `${describeValue((issue.input as { endpoint?: unknown }).endpoint)} is plain http: the token and the weights would cross the network unencrypted. Use an https:// endpoint, or set model.source.hub.allowInsecure: true for a mirror on a network you trust`,
  })
  .describe(
    'Download a Hugging Face repository at a revision with the real `huggingface_hub` client; the token comes from the `hf-token` input / `HF_TOKEN`, never argv or logs.',
  )

export const RunnerSourceSchema = z
  .strictObject({
    dir: z
      .string()
      .min(1)
      .describe(
        'A directory on the runner (the machine the action or CLI runs on) holding the model files, relative to the directory of the manifest file or absolute. Names starting with `.` are left out.',
      ),
  })
  .describe('Send the model from a directory on the runner.')

export const ModelSourceSchema = z
  .strictObject({
    hub: HubSourceSchema.optional(),
    runner: RunnerSourceSchema.optional(),
    nodes: z
      .strictObject({})
      .optional()
      .describe('The files are already on every node at `model.path`: they are only verified (every worker against the head), never fetched.'),
  })
  .refine(exactlyOneModelSource, {
    error: 'give exactly one source: hub, runner or nodes',
  })
  .describe('Where the model files come from: exactly one of `hub`, `runner`, `nodes`.')

const ABSOLUTE_DIR = /^\/(?:[A-Za-z0-9._@+-]+\/)*[A-Za-z0-9._@+-]+$/

export const ModelSchema = z
  .strictObject({
    path: z
      .string()
      .regex(ABSOLUTE_DIR, {
        error: (issue) => `expected an absolute directory like /var/lib/vrd/models/qwen, letters, digits and ._@+- only, got ${describeValue(issue.input)}`,
      })
      .refine(pathWithoutDotParts, { error: 'the model path cannot contain . or .. parts' })
      .meta({ examples: ['/var/lib/vrd/models/qwen3.5-122b-fp8'] })
      .describe(
        'Absolute directory on every node that holds the model files. It is mounted read-only into the container at the same path, `vllm serve` is given this path instead of `vllm.model` (which stays the served model name unless `vllm.servedModelName` is set) and the container runs with `HF_HUB_OFFLINE=1`, so serving never downloads.',
      ),
    source: ModelSourceSchema,
    distribution: z
      .enum(['relay', 'each'])
      .default('relay')
      .describe(
        "`relay` (the default): fetched once (a hub download on the head, a runner directory sent to the head), then copied from the head to every worker over the fabric (SSH from the head to each worker's fabric IP, as `image.distribution: relay`): the runner's or the internet link is crossed once. `each`: every node fetches for itself (a runner directory is sent to every node). Either way a file already present with its size and SHA-256 is not moved again, and a cut transfer resumes where it stopped.",
      ),
    streams: z
      .number()
      .int()
      .min(1)
      .max(8)
      .optional()
      .describe(
        "How many SSH streams the weights move over at once to each node (default 1): the files a node lacks are spread over them by size, each stream one command on the node that writes and hashes its files as they arrive. One SSH stream is bound by one core's cipher (a few Gbit/s on an Arm server core, far below a 200 Gb/s fabric); several fill more of the link where the nodes have cores to spare: set 4 to 8 on many-core nodes, above all for a hub source, where the head feeds every worker over the fabric with one OpenSSH connection per stream (streams under 1 GB each share one connection per worker; on a 2-core machine more streams only compete for the cores). sshd allows 10 sessions per connection (MaxSessions), so at most 8.",
      ),
  })
  .describe(
    "The model's files on every node, at one path, verified by SHA-256 (the weights stage, after the image and before anything stops). Absent: `vllm.model` is given to `vllm serve` as it is and each node fetches on its own.",
  )

export const BuiltinLaunchSchema = z
  .strictObject({
    mode: z
      .literal('builtin')
      .describe(
        'Use the built-in sequence: `docker run` and `ray start` on every node, then `vllm serve` on the head (`executorBackend: ray`); or `docker run` on every node, then `vllm serve --headless` on the workers and `vllm serve` on the head (`executorBackend: mp`).',
      ),
  })
  .describe('Built-in launch.')

export const ScriptLaunchSchema = z
  .strictObject({
    mode: z.literal('script').describe('Run your own launch script instead of the built-in sequence.'),
    path: z.string().min(1).describe('Path of the launch script, relative to the directory of the manifest file.'),
    allowOutsideRepository: z
      .boolean()
      .optional()
      .describe('Allow a launch.path outside the repository (after following symlinks). Off: a script elsewhere on the runner is refused. Default false.'),
    args: z.array(scalarText()).prefault([]).describe('Arguments passed to the script.'),
    env: envMap().prefault({}).describe('Environment variables set for the script.'),
  })
  .describe('Launch through your own script.')

export const LaunchSchema = z
  .discriminatedUnion('mode', [BuiltinLaunchSchema, ScriptLaunchSchema])
  .prefault({ mode: 'builtin' })
  .describe('How Ray and vLLM are started on the nodes.')

export const SmokePromptSchema = z
  .strictObject({
    prompt: z.string().min(1).describe('Text sent to the model.'),
    maxTokens: wholeNumber({ min: 1 }).default(32).describe('`max_tokens` of the request.'),
    chat: z.boolean().default(false).describe('Send it to `/v1/chat/completions` as a user message (true) or to `/v1/completions` (false).'),
    expect: z
      .strictObject({
        contains: z.string().min(1).optional().describe('The answer must contain this text (case-sensitive).'),
        minCompletionTokens: wholeNumber({ min: 0 }).optional().describe('The answer must have at least this many completion tokens.'),
        regex: z
          .string()
          .min(1)
          .refine(isRegex, { error: (issue) => `not a valid regular expression: ${regexError(String(issue.input))}` })
          .optional()
          .meta({ format: 'regex', examples: ['^\\s*\\w+'] })
          .describe('The answer must match this regular expression (JavaScript syntax, no flags; use `(?i)`-free patterns such as `[Hh]ello`).'),
        finishReason: z
          .enum(['stop', 'length'])
          .optional()
          .describe(
            'The answer must end for this reason: `stop` (the model finished or hit a stop string) or `length` (it used all of `maxTokens`). Unset: either.',
          ),
      })
      .prefault({})
      .describe('What the answer must satisfy. Empty: any successful answer passes.'),
  })
  .describe('One request of the smoke test.')

export const SmokeSchema = z
  .strictObject({
    readyTimeoutSeconds: seconds().default(1800).describe('How long to wait for the API server to report ready (model download and load included).'),
    /*
     * Defaults from real start-ups, with room: a phase is stalled only well past what a slow but
     * healthy start takes. config: imports and config take 10-60 s. NCCL/Gloo init: seconds on a
     * working fabric; torch's own store timeout is 600 s. Weights: 96 shards at 4.8 s each took
     * 7.7 min from a local disk (vllm#25848); 120 GB over NFS at 100 MB/s takes 20 min.
     * torch.compile/autotune: 16-30 s for a dense model (vllm#48214), minutes for a cold FlashInfer
     * autotune of a large MoE (vllm#30515), which can also deadlock (vllm#52291). KV cache
     * profiling: 34 s for an 8B model (gateway-api-inference-extension#550). CUDA graphs: 14-38 s
     * for 35-67 shapes (vllm#11349, vllm#25848). API server: seconds after the engine is up.
     */
    phaseBudgetSeconds: z
      .strictObject({
        config: seconds().default(300).describe('Reading the arguments and the model config, starting the engine.'),
        distributedInit: seconds().default(600).describe('NCCL/Gloo init and the Ray placement group.'),
        weightsLoading: seconds().default(1800).describe('Loading the weights (from "Starting to load model" to "Model loading took").'),
        compilation: seconds().default(1200).describe('torch.compile and kernel autotuning (FlashInfer).'),
        kvCacheProfiling: seconds().default(600).describe('The memory profile run and sizing the KV cache.'),
        cudaGraphCapture: seconds().default(600).describe('Capturing CUDA graphs.'),
        apiServer: seconds().default(300).describe('From the engine being up to the API server answering.'),
      })
      .prefault({})
      .describe(
        "How long a node may stay in each phase of vLLM's start before the start-up watcher reports it as stalled there (`spark-b stalled in weights loading for 1805 s`), with its last log lines, instead of waiting for readyTimeoutSeconds. Defaults from real start-ups, with room.",
      ),
    requestTimeoutSeconds: seconds().default(120).describe('Timeout of each smoke request.'),
    url: z
      .url({ protocol: /^https?$/, error: (issue) => `expected an http:// or https:// URL, got ${describeValue(issue.input)}` })
      .optional()
      .meta({ examples: ['https://llm.example.internal:8443'] })
      .describe(
        'Base URL of the OpenAI-compatible API as the runner reaches it (without `/v1`), e.g. behind a load balancer. Unset (the default): an SSH tunnel through the head node to `127.0.0.1:<vllm.port>` there, so no port has to be open to the runner. Readiness and the cluster proof always go through SSH on the head.',
      ),
    apiKeySecret: envName()
      .optional()
      .describe(
        'Name of the environment variable (e.g. a workflow secret mapped into `env:`) holding the API key vLLM was started with (`--api-key`). It is sent only as `Authorization: Bearer <key>` and never logged. Unset: no key is sent.',
      ),
    stream: z
      .boolean()
      .default(true)
      .describe('Also send the first prompt once as a streamed request (SSE, with usage), to measure time to first token and inter-token latency.'),
    burst: z
      .strictObject({
        requests: wholeNumber({ min: 0, max: 1024 })
          .default(0)
          .describe('How many copies of the first prompt to send at once, after the other checks (at most 1024). 0: no burst.'),
        maxTokens: wholeNumber({ min: 1 }).default(32).describe('`max_tokens` of each burst request.'),
      })
      .prefault({})
      .describe('An optional concurrent burst: p50/p95 latency and output tokens per second under load.'),
    metrics: z
      .boolean()
      .default(true)
      .describe(
        "Scrape vLLM's `/metrics` before and after and require its request and generation-token counters to have grown by at least what the smoke requests produced.",
      ),
    clusterProof: z
      .boolean()
      .default(true)
      .describe(
        "Ask Ray on the head for vLLM's placement group and require it to be CREATED, with tensorParallelSize x pipelineParallelSize bundles, on the manifest's GPU nodes at their fabric IPs.",
      ),
    prompts: z
      .array(SmokePromptSchema)
      .min(1)
      .default([{ prompt: 'Say hello.', maxTokens: 16, chat: false, expect: { minCompletionTokens: 1 } }])
      .describe('Requests sent once the server is ready; every one must pass. Default: one short completion.'),
    latency: z
      .strictObject({
        maxTimeToFirstTokenMs: milliseconds().optional().describe('Fail when the first token of any smoke request takes longer than this.'),
        maxTotalMs: milliseconds().optional().describe('Fail when any smoke request takes longer than this in total.'),
        maxInterTokenMs: milliseconds().optional().describe('Fail when the mean inter-token latency of the streamed request is above this.'),
        maxP95Ms: milliseconds()
          .optional()
          .describe('Fail when the 95th percentile of request latency (burst requests, or all smoke requests without a burst) is above this.'),
        minTokensPerSecond: z
          .number()
          .positive()
          .optional()
          .describe('Fail when output tokens per second (the burst, or the streamed request without a burst) is below this.'),
      })
      .prefault({})
      .describe('Latency limits for the smoke requests. Unset: not checked.'),
    regression: z
      .strictObject({
        action: z
          .enum(['fail', 'warn', 'off'])
          .default('warn')
          .describe(
            "What a deploy does when a figure of the new release's smoke (TTFT, TPOT, ITL, decode tokens/s, the burst's p50/p95 and tokens/s) is worse than the running release's by more than `maxSlowdown`, under the same smoke load: `warn` (the default: one smoke's figures are a small sample), `fail` the smoke gate (on-failure applies), or `off`. The figures are kept per release on the head and compared only when the model, the first prompt and the burst are the same.",
          ),
        maxSlowdown: z
          .number()
          .min(1)
          .default(1.5)
          .describe(
            "How many times worse a figure may be than the running release's before it counts as a regression (1.5: 50 % slower, or two thirds of the throughput).",
          ),
      })
      .prefault({})
      .describe("The performance gate: this release's smoke figures against the running release's."),
  })
  .describe('The smoke test run against the new server before a deploy counts as done.')

export const DeploySchema = z
  .strictObject({
    onFailure: z
      .enum(ON_FAILURE)
      .default('rollback')
      .describe('What to do when a deploy fails: `rollback` to the previous release, `stop` the new containers, or `keep` them running for debugging.'),
    lockTtlMinutes: minutes().default(60).describe('A deploy lock older than this is considered stale and may be broken.'),
    releasesKept: wholeNumber({ min: 1 }).default(3).describe('How many past releases (for rollback) are kept on the nodes.'),
    teardownTimeoutSeconds: seconds()
      .default(60)
      .describe(
        'How long stop-previous waits, on each node, for every process of the release being replaced to be gone (its leftovers outside the container are killed: they carry `VRD_RELEASE`) and for the GPU to hold no process. Anything left then stops the deploy before the launch, naming its PID and command.',
      ),
    memoryWatchdog: z
      .strictObject({
        enabled: z
          .enum(['auto', 'on', 'off'])
          .default('auto')
          .describe(
            "`auto`: watch the nodes whose GPU shares the host's memory (the host checks' facts say unified memory: GB10 / DGX Spark), where running out wedges or resets the host instead of failing with a CUDA out-of-memory; `on`: every node; `off`: none.",
          ),
        floorBytes: wholeNumber({ min: 1 })
          .optional()
          .describe('The floor as bytes of `MemAvailable`. With `floorPercent` as well, the higher of the two counts.'),
        floorPercent: z
          .number()
          .min(0)
          .max(50)
          .default(5)
          .describe(
            "The floor as a share of the node's `MemTotal`, in percent (5: about 6 GiB of a GB10's 121.7 GiB; earlyoom's own default sends SIGKILL at 5 % available). 0 with no `floorBytes`: only the pressure figure counts.",
          ),
        pressureFullAvg10Max: z
          .number()
          .min(0)
          .max(100)
          .default(60)
          .describe(
            "The most memory pressure the node may show (`/proc/pressure/memory` `full avg10`: the share of the last 10 s in which every runnable task waited on memory) before the watchdog stops the start (60: systemd-oomd's default memory-pressure limit, oomd.conf(5)); a kernel without PSI leaves only the floor.",
          ),
        intervalSeconds: wholeNumber({ min: 1, max: 60 })
          .default(2)
          .describe('How often each watched node is read while vLLM starts (one `cat /proc/meminfo /proc/pressure/memory` per node per read).'),
      })
      .prefault({})
      .describe(
        "While vLLM loads and profiles (the `vllm` stage, until `/health` answers), each watched node's `MemAvailable`, swap and PSI memory pressure is read every `intervalSeconds`. Under the floor (or over the pressure limit) the watchdog kills the release's container on every node before the host wedges and fails the deploy with `MEMORY_FLOOR_REACHED`: the node, the start-up phase it was in, and the figures; `deploy.onFailure` then applies (by default the previous release is started again).",
      ),
    scriptCheck: z
      .enum(['warn', 'block'])
      .default('warn')
      .describe(
        'With `launch.mode: script`, the deploy first reads the launch script statically (the checks of `diagnose --launch-script`). `warn`: its findings are reported as warnings and the live gates (the identity preflight above all) decide; `block`: an error in the script stops the deploy before anything on the nodes changes.',
      ),
  })
  .describe('How deploys behave.')

export const FitSchema = z
  .strictObject({
    nodeMemory: z
      .strictObject({
        unified: z
          .boolean()
          .describe('The GPU takes its memory from the host (GB10 / DGX Spark: one pool); false: discrete GPUs with their own memory (two pools).'),
        bytes: wholeNumber({ min: 1 }).describe(
          'Unified: the pool (what `cudaMemGetInfo` reports as total, about `MemTotal`; 121.69 GiB = 130662000000 bytes on a GB10); discrete: the memory of one GPU.',
        ),
      })
      .optional()
      .describe(
        "What each node has, for `plan`, which reaches no node. `preflight` and the deploy's `fit` stage read each node's own figures (`/proc/meminfo`, `nvidia-smi`) instead. Unset: `plan` prints the footprint without a verdict.",
      ),
  })
  .describe(
    "The fit before launch: the model's footprint per node (the weights' share, the KV cache for `max-model-len` × `max-num-seqs`, an activation reserve and, on unified memory, the host's reserve) against what the node has ([fit.md](fit.md)).",
  )

export const PreflightSchema = z
  .strictObject({
    collective: z
      .boolean()
      .default(true)
      .describe(
        "Run a real all-reduce over the fabric before a deploy changes anything (the `fabric-test` stage) and in `preflight`: one throw-away container of the release's image per node, all at once, with the release's env (torch.distributed: NCCL with `NCCL_DEBUG=INFO` on GPU nodes, reading the transport NCCL chose; Gloo without CUDA; a standard-library TCP ring where the image has no torch). It fails the deploy when the collective fails or hangs (FABRIC_COLLECTIVE_FAILED) or NCCL falls back to sockets where RDMA was asked for (FABRIC_SOCKET_FALLBACK), and warns when NCCL's bus bandwidth is below a quarter of `fabric.linkSpeedGbps` (FABRIC_COLLECTIVE_SLOW). It costs a container start and torch's import on every node (seconds) and, on GPU nodes, a CUDA context beside the running release. `false` skips it.",
      ),
    collectiveTimeoutSeconds: collectiveSeconds()
      .default(45)
      .describe('Seconds each rank of the collective may take (rendezvous, connections, the all-reduces) before it counts as hung.'),
  })
  .describe('Gates that need more than facts: the fabric collective.')

export const ManifestSchema = z
  .strictObject({
    version: z
      .literal(1, { error: (issue) => `this tool reads manifest version 1, got ${JSON.stringify(issue.input) ?? 'nothing'}` })
      .describe('Manifest format version. Always 1.'),
    cluster: resourceName('spark-pair').describe('Name of the cluster, used in locks, labels and reports.'),
    ssh: SshSchema.prefault({}),
    fabric: FabricSchema,
    nodes: z
      .array(NodeSchema)
      .min(1)
      .max(MAX_CLUSTER_NODES, { error: `at most ${MAX_CLUSTER_NODES} nodes: more than any cluster this tool rolls out over SSH` })
      .describe(`The machines of the cluster: exactly one head, and workers (${MAX_CLUSTER_NODES} nodes at most).`),
    image: ImageSchema,
    container: ContainerSchema.prefault({}),
    ray: RaySchema.prefault({}),
    vllm: VllmSchema,
    model: ModelSchema.optional(),
    launch: LaunchSchema,
    smoke: SmokeSchema.prefault({}),
    deploy: DeploySchema.prefault({}),
    preflight: PreflightSchema.prefault({}),
    fit: FitSchema.prefault({}),
  })
  .describe(
    'Cluster manifest for vllm-ray-deploy: the machines, how to reach them, the fabric between them, and the vLLM server to run across them with Ray. Top-level keys starting with `x-` are ignored (use them for YAML anchors).',
  )

/** A manifest as written (defaults optional). */
export type ManifestInput = z.input<typeof ManifestSchema>
/** A validated manifest with every default applied. */
export type Manifest = z.output<typeof ManifestSchema>
export type ManifestNode = Manifest['nodes'][number]
export type SshSettings = Manifest['ssh']
export type JumpHost = NonNullable<SshSettings['jumpHost']>
export type Fabric = Manifest['fabric']
export type ImageSettings = Manifest['image']
export type ContainerSettings = Manifest['container']
export type RaySettings = Manifest['ray']
export type VllmSettings = Manifest['vllm']
export type ModelSettings = NonNullable<Manifest['model']>
export type LaunchSettings = Manifest['launch']
export type SmokeSettings = Manifest['smoke']
export type SmokePrompt = SmokeSettings['prompts'][number]
export type DeploySettings = Manifest['deploy']
export type PreflightSettings = Manifest['preflight']
export type FitSettings = Manifest['fit']
