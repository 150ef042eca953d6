/**
 * Log signatures of model weights that cannot be had or read: huggingface_hub's errors (offline with
 * nothing cached, a gated or missing repository, a revision or file that is not there), safetensors'
 * header errors (a shard cut short or not a safetensors file), a shard the index names missing on
 * disk, and a disk that filled during a download. Each finding names the value a person acts on: the
 * repo id, the URL, the path. Wordings (huggingface_hub `errors.py`/`_http.py`/`file_download.py`,
 * safetensors, CPython's errno 28) with their versions in src/preflight/WORDINGS.md.
 */

import { NCCL_CUDA_FAILURE, NCCL_INTRA_HOST_REPORTED } from './signature-rules-nccl.js'
import type { LineContext, RuleHit, SignatureRule } from './signature-rules.js'
import { nodeEvidence as node } from './line-node.js'

/** `https://huggingface.co/api/models/org/name/revision/main` or `…/org/name/resolve/<rev>/file` → org/name, rev, file. */
function hubUrlParts(url: string): { repo?: string; revision?: string; file?: string } {
  // the hub's storage hosts (Xet's CAS, the LFS CDN) carry no repo in their paths
  if (/^https?:\/\/(?:[\w-]+\.)*(?:xethub\.hf\.co|cdn-lfs[\w-]*\.hf\.co)\b/.test(url)) return {}
  const path = url
    .replace(/^https?:\/\/[^/]+\/?/, '')
    .replace(/[?#].*$/, '')
    .replace(/^api\/(?:models|datasets|spaces)\//, '')
  const parts = path.split('/').filter((p) => p !== '')
  const at = parts.findIndex((p) => ['resolve', 'revision', 'tree', 'blob', 'auth-check'].includes(p))
  const repoParts = (at < 0 ? parts : parts.slice(0, at)).slice(0, 2)
  const rev = at >= 0 && parts[at] !== 'auth-check' ? parts[at + 1] : undefined
  const file = at >= 0 ? parts.slice(at + 2).join('/') : ''
  return {
    ...(repoParts.length > 0 ? { repo: repoParts.join('/') } : {}),
    ...(rev ? { revision: rev } : {}),
    ...(file ? { file } : {}),
  }
}

/** The hub URL a hub error names (huggingface.co, a mirror, or any /resolve/ or /api/models/ URL), without the sentence's closing full stop. */
const urlIn = (line: string): string | undefined =>
  // (a URL ends at a bracket too: pastes glue the next line's "(APIServer pid=…)" prefix on)
  [...line.matchAll(/https?:\/\/[^\s'"()<>]+/g)]
    .map((m) => m[0].replace(/[.,):]+$/, ''))
    .find((u) => /huggingface|hf-mirror|\/\/(?:[\w-]+\.)*hf\.co\b|\/resolve\/|\/api\/(?:models|datasets|spaces)\//.test(u))

/** Evidence for a hub URL: the URL, the repo id, the revision and the file. */
function hubEvidence(url: string | undefined, repo?: string): Record<string, string> {
  const parts = url ? hubUrlParts(url) : {}
  const id = repo ?? parts.repo
  return {
    ...(id ? { 'Repo id': id } : {}),
    ...(parts.revision ? { Revision: parts.revision } : {}),
    ...(parts.file ? { File: parts.file } : {}),
    ...(url ? { URL: url } : {}),
  }
}

const SHARD_FIX = (path: string) =>
  `Download the weights again on that node (huggingface-cli download <repo> --revision <commit> --local-dir <dir>; delete the partial files first: *.incomplete under the hub cache's blobs/), compare the shard's size and sha256 with the hub's (huggingface-cli scan-cache, or the release's weights.json digests) on every node, and keep the same files on every node${path ? ` (${path})` : ''}.`

function offline(m: RegExpExecArray, line: string, context: LineContext): RuleHit {
  const type = m[1] ?? 'LocalEntryNotFoundError'
  const url = urlIn(line)
  const parts = url ? hubUrlParts(url) : {}
  const disabled = type === 'OfflineModeIsEnabled' || /outgoing traffic has been disabled/.test(line)
  return {
    key: 'offline',
    severity: 'error',
    message: `The weights are not in this node's hub cache${parts.repo ? ` (${parts.repo})` : ''} and ${disabled ? 'the hub may not be asked (HF_HUB_OFFLINE=1 or local_files_only)' : 'the hub could not be reached'}, so vLLM cannot load the model.`,
    evidence: {
      Exception: type,
      'Hub look-ups': disabled ? 'disabled (HF_HUB_OFFLINE / local_files_only)' : 'failed (no connection to the hub)',
      ...hubEvidence(url),
      ...node(context),
    },
    fix: `Put the model on every node before vLLM starts (huggingface-cli download ${parts.repo ?? '<repo id>'} --revision <commit> into the HF_HOME/--download-dir the container mounts, or model.source in the manifest) and give vllm serve that local directory; with a repo id and HF_HUB_OFFLINE=1, the snapshot must already be in that cache, the same revision on every node.`,
  }
}

function denied(m: RegExpExecArray, line: string, context: LineContext): RuleHit {
  const url = urlIn(line)
  const named = m[2] ?? m[3]
  const ev = hubEvidence(url, named ?? undefined)
  const repo = ev['Repo id']
  // RepositoryNotFoundError's own hint ("If you are trying to access a private or gated repo, …") is not a gated repo.
  const gated = /GatedRepoError|Cannot access gated repo|access a gated repo\.|is gated\.|is restricted\.|is a gated repository\./.test(line)
  const status = /\b(401|403|404)\b/.exec(line)?.[1]
  return {
    key: 'access',
    severity: 'error',
    message: gated
      ? `The hub refused the weights${repo ? ` of ${repo}` : ''}: the repository is gated and the request was not authorised for it${status ? ` (HTTP ${status})` : ''}.`
      : `The hub answered that the repository${repo ? ` ${repo}` : ''} does not exist for this request${status ? ` (HTTP ${status})` : ''}: a misspelt repo id, a private repo, or no/invalid token (the hub says "not found" to anonymous requests for private repos).`,
    evidence: { ...(m[1] ? { Exception: m[1] } : {}), ...(status ? { 'HTTP status': status } : {}), ...ev, ...node(context) },
    fix: gated
      ? `Accept the model's licence on its hub page with the account whose token the nodes use${repo ? ` (https://huggingface.co/${repo})` : ''}, then give every node's container that token (HF_TOKEN, a read token; fine-grained tokens need "access to public gated repos"); or download once and serve the local copy.`
      : `Check the repo id${repo ? ` "${repo}"` : ''} letter by letter (org/name, as on its hub page) and that HF_TOKEN in every node's container is valid and can read it (huggingface-cli whoami); a local path must exist inside the container, or vLLM takes it for a repo id.`,
  }
}

/** A model argument that names a place on disk (absolute, relative, home, Windows, or a hub cache folder `models--org--name`), not a repo id. */
const pathLike = (value: string): boolean => /^(?:[/.~]|[A-Za-z]:\\|models--)/.test(value) || value.split('/').length > 2 || value.includes('\\')

/**
 * huggingface_hub's repo-id validation of the model argument: vLLM hands a model it cannot find as a
 * directory to the hub, so a local path that is missing on this node comes back as an invalid repo id.
 * With the hub switched off (HF_HUB_OFFLINE seen earlier in the log) it is the offline family.
 */
function invalidRepoId(m: RegExpExecArray, line: string, context: LineContext, offlineWanted: boolean): RuleHit | null {
  // vLLM's safetensors metadata lookup (transformers_utils/repo_utils.py, 0.11+: "Error retrieving safetensors: <error>, retrying 1 of 2")
  // logs the refusal and goes on without the metadata; the weights load from the local path after it (held-out batch 32's gpt-oss run)
  if (/\bError retrieving safetensors:/.test(line)) return null
  const offlineSeen = context.memory?.get('hubOffline') !== undefined
  if (offlineSeen !== offlineWanted) return null
  const value = (m[1] ?? m[2] ?? m[3] ?? '').replace(/~+$/, '')
  const path = value !== '' && pathLike(value)
  return {
    key: `repo-id:${value}`,
    severity: 'error',
    message: path
      ? `The model "${value}" is not a directory on this node, so huggingface_hub read it as a hub repo id and refused it${offlineSeen ? ' (and the hub is switched off: HF_HUB_OFFLINE)' : ''}: the weights are not where the serve command says on this node.`
      : `huggingface_hub refused "${value}" as a repo id (it must be org/name)${offlineSeen ? ', with the hub switched off (HF_HUB_OFFLINE)' : ''}.`,
    evidence: {
      Exception: 'HFValidationError (repo id validation)',
      ...(path ? { Path: value } : { 'Repo id': value }),
      ...(offlineSeen ? { 'Hub look-ups': 'disabled (HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE)' } : {}),
      ...node(context),
    },
    fix: path
      ? `Put the model at ${value} on every node, inside the container (the same mount on the head and the workers: docker run -v <host dir>:${value.startsWith('/') ? value : '<dir>'}), or pass a repo id (org/name) that is in the hub cache of every node; with HF_HUB_OFFLINE=1 a repo id is looked up only in HF_HOME's hub cache, not a folder named models--org--name.`
      : 'Give the model as org/name (as on its hub page) or as a directory that exists in the container on every node.',
  }
}

/**
 * huggingface_hub's repo-id refusals: "Repo id must be in the form 'repo_name' or 'namespace/repo_name': '<v>'", 0.11–1.x "Repo id must use alphanumeric
 * chars or '-', '_', '.', '--' and '..' are forbidden, …, max length is 96: '<v>'", 2.x "Repo id must use alphanumeric chars, '-', '_' or '.'. The name
 * cannot start or end with '-' or '.' and the maximum length is 96: '<v>'." and "Cannot have -- or .. in repo_id: '<v>'." (utils/_validators.py).
 */
const REPO_ID_REFUSED =
  /'repo_name' or 'namespace\/repo_name'[^']*?'([^']+)'|Repo id must use alphanumeric chars.*?max(?:imum)? length is \d+: '([^']+)'|Cannot have -- or \.\. in repo_id: '([^']+)'/

/** A retry or a fallback the client goes on from (huggingface_hub's http_backoff, transformers' cache fallback): not yet a failure. */
const RETRIED = /thrown while requesting|Retrying in \d|\[Retry \d+\/\d+\]|Will try to load from local cache|Falling back to|trying to use the cached/i

/** The hub could not be reached (DNS, refused, timed out): the weights are not cached and cannot be had. */
function hubUnreachable(host: string, line: string, context: LineContext, repo?: string): RuleHit {
  const url = urlIn(line)
  const retried = RETRIED.test(line)
  return {
    key: `hub-unreachable:${host}`,
    severity: retried ? 'warning' : 'error',
    message: retried
      ? `This node could not reach the hub (${host}); the client retries or falls back to its cache, which fails unless the weights are already there.`
      : `This node could not reach the hub (${host}) and the weights are not in its cache${repo ? ` (${repo})` : ''}, so vLLM cannot load the model.`,
    evidence: { Host: host, 'Hub look-ups': 'failed (no connection to the hub)', ...hubEvidence(url, repo), ...node(context) },
    fix: `Either give the nodes a route to ${host} (DNS, proxy: HTTPS_PROXY in the container, firewall) or put the model on every node before vLLM starts (huggingface-cli download <repo> --revision <commit> on a machine with access, copied into the HF_HOME/--download-dir every container mounts) and serve that local directory with HF_HUB_OFFLINE=1.`,
  }
}

/** vLLM's "Invalid repository ID or local directory": a path missing on this node, or a repo id the hub (or, offline, the cache) lacks. */
export function invalidModel(
  value: string,
  context: LineContext,
  offlineWanted: boolean,
  exception = 'ValueError (vLLM: invalid repository ID or local directory)',
): RuleHit | null {
  const offlineSeen = context.memory?.get('hubOffline') !== undefined
  if (offlineSeen !== offlineWanted) return null
  const path = pathLike(value)
  return {
    key: `invalid-model:${value}`,
    severity: 'error',
    message: path
      ? `vLLM found no model configuration at ${value} on this node (the directory is missing inside the container, empty, or holds no config.json), and it is no repo id either.`
      : `vLLM could not load ${value} as a repo id${offlineSeen ? " with the hub switched off (HF_HUB_OFFLINE), so the snapshot is not in this node's cache" : ' (a misspelt or private repo, or no route to the hub)'}.`,
    evidence: {
      Exception: exception,
      ...(path ? { Path: value } : { 'Repo id': value }),
      ...(offlineSeen ? { 'Hub look-ups': 'disabled (HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE)' } : {}),
      ...node(context),
    },
    fix: path
      ? `Mount the model at ${value} in every node's container (the snapshot directory itself, with config.json; a hub cache's snapshots/<sha> folder needs its blobs/ beside it, so mount the cache root) and check with docker exec <container> ls ${value}.`
      : `Check the repo id on the hub and HF_TOKEN in every container${offlineSeen ? "; with HF_HUB_OFFLINE=1, download the snapshot into every node's HF_HOME first" : ''}, or serve a local directory that exists on every node.`,
  }
}

/** ENOSPC on /dev/shm: the container's shared memory (Docker's default is 64 MB), which NCCL and Ray's object store fill first. */
/** NCCL misc/shmutils.cc: the shared-memory segment it could not create or extend. */
const NCCL_SHM_SEGMENT = /Error while creating shared memory segment (\/dev\/shm\/[\w.-]+)|failed to extend (\/dev\/shm\/[\w.-]+) to \d+ bytes/

/**
 * Why NCCL's segment was refused when it was not for space, or undefined when space is the reading: NCCL 2.19+ ends the line with the errno
 * (", error: No space left on device (28)"); an older line has none, and a CUDA failure before it in the log (NCCL's `Cuda failure '…'`, torch's
 * ncclUnhandledCudaError, remembered by signature-rules-nccl.ts) says the host registration failed, not the disk.
 */
function shmSegmentRefused(line: string, context: LineContext): string | undefined {
  const errno = /error: ([^()\n]+?) \((\d+)\)/.exec(line)
  if (errno) return errno[2] === '28' ? undefined : `${errno[1]} (${errno[2]})`
  const cuda = context.memory?.get(NCCL_CUDA_FAILURE)
  return cuda === undefined ? undefined : `a CUDA failure before it: ${cuda}`
}

function shmFull(shm: string, line: string, context: LineContext): RuleHit {
  const bytes = /to (\d+) bytes|\(size (\d+)\)/.exec(line)
  return {
    key: 'shm',
    severity: 'error',
    message: `The container's /dev/shm is full (${shm}): NCCL${/NCCL/.test(line) ? '' : ' or another process'} could not create its shared-memory segment, which happens with Docker's default 64 MB /dev/shm.`,
    evidence: {
      Path: shm,
      ...(bytes ? { 'Segment size': `${bytes[1] ?? bytes[2]} bytes` } : {}),
      ...(/No space left on device|ENOSPC|\(28\)/.test(line) ? { Errno: '28 (ENOSPC)' } : {}),
      ...node(context),
    },
    fix: "Start every node's container with --ipc=host or a large --shm-size (e.g. --shm-size=16g; vLLM with Ray or NCCL needs several GB), and check with df -h /dev/shm inside the container; remove /dev/shm/nccl-* segments a killed run left behind. NCCL_SHM_DISABLE=1 avoids the segment at some speed within a node.",
  }
}

/** The memory keys of vLLM's last shard-progress line: the shards loaded ("95 of 163") and the time they took ("03:06"). */
export const SHARDS_LOADED = 'shards'
export const SHARDS_LOADED_AFTER = 'shardsLoadedAfter'

export const WEIGHTS_RULES: readonly SignatureRule[] = [
  {
    // huggingface_hub: "huggingface_hub.errors.LocalEntryNotFoundError: Cannot find the requested files in the disk cache and outgoing traffic has been
    // disabled. …" (HF_HUB_OFFLINE / local_files_only), "… An error happened while trying to locate the file on the Hub and we cannot find the requested
    // files in the local cache. …" (no connection); older `huggingface_hub.utils._errors.`; "OfflineModeIsEnabled: Cannot reach <url>: offline mode is enabled."
    code: 'WEIGHTS_OFFLINE_MISSING',
    pattern:
      /\b(LocalEntryNotFoundError|OfflineModeIsEnabled)\b(?!\()|Cannot find the requested files in the disk cache and outgoing traffic has been disabled|trying to locate the file on the Hub and we cannot find the requested files in the local cache/,
    hit: (m, line, _ray, context) => offline(m, line, context),
  },
  {
    // huggingface_hub: "GatedRepoError: 401 Client Error. (Request ID: …)" / "Cannot access gated repo for url <url>." / "Access to model <id> is
    // restricted. …" (≥ 0.2x: "Repo model <id> is gated. …"); "RepositoryNotFoundError: 401 Client Error. …" / "Repository Not Found for url: <url>.";
    // transformers: "OSError: You are trying to access a gated repo."; requests: "401 Client Error: Unauthorized for url: https://huggingface.co/api/models/<id>".
    code: 'WEIGHTS_ACCESS_DENIED',
    pattern:
      /\b(GatedRepoError|RepositoryNotFoundError)\b(?!\()|Cannot access gated repo for url|Repository Not Found for url:|You are trying to access a gated repo| is a gated repository\. Make sure to request access|Access to model (\S+?) is restricted|Repo model (\S+?) is gated|\b40[13] Client Error: \w+ for url: https?:\/\/[^\s/]*(?:huggingface|hf-mirror)/,
    hit: (m, line, _ray, context) => denied(m, line, context),
  },
  {
    // The node's own files, not the hub: "PermissionError: [Errno 13] Permission denied: '/home/user/cache_root/huggingface'" (huggingface_hub's
    // makedirs of the cache, tenstorrent/tt-inference-server#37 and #4574), "[Errno 13] Permission denied: '/.cache'" (OpenShift's random user with
    // HOME=/, huggingface/inference-benchmarker#30), and huggingface_hub's own notices that go on without the cache, "Ignored error while writing
    // commit hash to /root/.cache/huggingface/hub/…/refs/main: [Errno 13] Permission denied: '/root/.cache/huggingface/hub'." (av/harbor#262),
    // "Could not cache non-existence of file. Will ignore error and continue. Error: [Errno 13] Permission denied: '/cache/huggingface/hub/…'"
    // (mikesvoboda/nemotron-v3-home-security-intelligence#1386): a container user who may not write the hub, ModelScope or model cache. Not a
    // path outside those ("Could not determine user, using default path. Error: [Errno 13] Permission denied: '/mnt/nfs_test'" in a healthy start).
    code: 'WEIGHTS_ACCESS_DENIED',
    pattern: /\[Errno 13\] Permission denied: '([^'\n]*(?:huggingface|modelscope|\/\.cache|\/hf_home|\/models?(?:\/|'))[^'\n]*)'/i,
    hit: (m, line, _ray, context) => {
      const path = m[1]!.replace(/'$/, '')
      const goesOn = /\bIgnored error while\b|\bWill ignore error and continue\b/.test(line)
      return {
        key: `cache-denied:${path}`,
        severity: goesOn ? 'warning' : 'error',
        message: `This node's process may not write ${path}${goesOn ? ' (the hub goes on without recording there, and the weights it then writes under the same directory fail alike)' : ''}: the container runs as a user who does not own the model cache (a cache mounted from the host as another user, an image's non-root user, or OpenShift's random user with HOME=/).`,
        evidence: { Path: path, ...node(context) },
        fix: "Give the container a cache it may write: mount a directory owned by its user (chown -R <uid> on the host, podman :U), or set HF_HOME (and MODELSCOPE_CACHE) to a writable volume in every node's container; or download once and serve the local copy read-only.",
      }
    },
  },
  {
    // Any HTTP client's 401/403 on a hub URL, in its own words: httpx (huggingface_hub >= 1.0, and tools calling raise_for_status): "httpx.HTTPStatusError:
    // Client error '401 Unauthorized' for url 'https://huggingface.co/…'"; aiohttp: "401, message='Unauthorized', url='https://huggingface.co/…'"; a
    // downloader's own: "Unauthorized to access 'https://huggingface.co/<repo>/resolve/main/<file>'."; hf_xet: "CAS service error : Reqwest Error: HTTP status
    // client error (401 Unauthorized), domain: https://cas-server.xethub.hf.co/…". Only with a hub URL on the same line.
    code: 'WEIGHTS_ACCESS_DENIED',
    pattern: /\b(?:(40[13])\W{1,4}(?:message=\W?)?)?(Unauthorized|Forbidden)\b/i,
    hit: (m, line, _ray, context) => {
      const url = urlIn(line)
      if (url === undefined) return null
      const ev = hubEvidence(url)
      const repo = ev['Repo id']
      const status = m[1] ?? (/forbidden/i.test(m[2] ?? '') ? '403' : '401')
      return {
        key: 'access',
        severity: 'error',
        message: `The hub refused the download${repo ? ` of ${repo}` : ''} (HTTP ${status} ${m[2]}): this node sent no token, or a token that may not read the repository (a gated model whose licence that account has not accepted, or a private repo).`,
        evidence: { 'HTTP status': status, ...ev, ...node(context) },
        fix: `Give every node's container a read token (HF_TOKEN, passed into each container, not only the shell that starts it) of an account that has accepted the model's licence${repo ? ` (https://huggingface.co/${repo})` : ''}; check it on that node with huggingface-cli whoami; or download once and serve the local copy.`,
      }
    },
  },
  {
    // The environment a log or launcher prints (HF_HUB_OFFLINE=1, -e HF_HUB_OFFLINE=1, "HF_HUB_OFFLINE: 1", TRANSFORMERS_OFFLINE=1): kept so a later
    // repo-id error is read as the offline family.
    code: 'WEIGHTS_OFFLINE_MISSING',
    pattern: /\b(?:HF_HUB_OFFLINE|TRANSFORMERS_OFFLINE)['"]?\s*[=:]\s*['"]?(?:1|true|yes|on)\b/i,
    hit: (_m, _line, _ray, context) => {
      context.memory?.set('hubOffline', '1')
      return null
    },
  },
  {
    // gpt-oss's tokenizer encoding (openai_harmony, the Rust tiktoken loader vLLM, SGLang and TensorRT-LLM call for gpt-oss): its o200k_base
    // .tiktoken vocabulary is downloaded from openaipublic.blob.core.windows.net at the first load unless TIKTOKEN_ENCODINGS_BASE names a
    // directory holding it. "openai_harmony.HarmonyError: error downloading or loading vocab file: failed to download or load vocab file"
    // (openai/harmony#46, vllm-project/vllm#22525: an air-gapped node; sgl-project/sglang#18074, 2026: "Failed to load Harmony encoding: …";
    // NVIDIA/dgx-spark-playbooks#17, TensorRT-LLM PR #14935, 2026: "Error in harmony chat completion: %s error downloading …"), and "invalid
    // tiktoken vocab file: hash mismatch: computed=<sha256>, expected=<sha256>" where a copy put there by hand is wrong — computed=e3b0c442…
    // is the SHA-256 of no bytes at all, a download that silently left an empty file (held-out batch 32's offline cluster, 2026).
    code: 'WEIGHTS_OFFLINE_MISSING',
    pattern: /\berror downloading or loading vocab file\b|\binvalid tiktoken vocab file: hash mismatch: computed=([0-9a-f]{64})/,
    hit: (m, _line, _ray, context) => {
      const empty = m[1] === 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
      return {
        key: 'harmony-vocab',
        severity: 'error',
        message: m[1]
          ? `gpt-oss's tokenizer vocabulary (a .tiktoken file openai_harmony loads) is not the file it expects${empty ? ': it is empty (its SHA-256 is that of zero bytes), a download that failed without a word, usually on a node with no internet' : ' (its hash differs): a partial or wrong copy'}, so the server cannot build gpt-oss's chat encoding.`
          : "gpt-oss's tokenizer vocabulary (o200k_base.tiktoken) could not be downloaded or loaded: openai_harmony fetches it from openaipublic.blob.core.windows.net at the first load, and this node could not reach it (offline, a proxy, or TLS interception), so chat requests fail.",
        evidence: {
          File: 'o200k_base.tiktoken (openai_harmony)',
          ...(m[1] ? { 'Computed SHA-256': m[1], ...(empty ? { Meaning: 'an empty file' } : {}) } : {}),
          ...node(context),
        },
        fix: "Put the encodings on every node and point the loader at them: download https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken (and cl100k_base.tiktoken) where there is internet, copy them into a directory on each node (or bake them into the image), and set TIKTOKEN_ENCODINGS_BASE to that directory in the server's environment; check the copies are not empty (ls -l).",
      }
    },
  },
  {
    // KServe's storage initializer (the init container that fetches a model before the predictor starts, vLLM's Hugging Face runtime included;
    // kserve/storage/storage.py, older kfserving/storage.py): "RuntimeError: Failed to fetch model. The path or model gs://… does not exist."
    // (kserve/website's debugging guide: the pod stays at Init:Error), also for s3:// and local paths.
    code: 'WEIGHTS_NOT_FOUND',
    pattern: /\bFailed to fetch model\. The path or model (\S+?) does not exist\b/,
    hit: (m, _line, _ray, context) => ({
      key: `storage-uri:${m[1]}`,
      severity: 'error',
      message: `KServe's storage initializer found nothing at ${m[1]}: the storage URI names a path or model that does not exist, so the model was never copied and the predictor cannot start (the pod stays at Init:Error).`,
      evidence: { 'Storage URI': m[1]!, ...node(context) },
      fix: `Check the InferenceService's storageUri against the bucket (gsutil ls / aws s3 ls on ${m[1]}): the exact prefix, the model's files under it, and that the service account the initializer runs as may read it.`,
    }),
  },
  {
    // huggingface_hub (utils/_validators.py, validate_repo_id) since 0.11: "HFValidationError: Repo id must be in the form 'repo_name' or
    // 'namespace/repo_name': '/models/x'. Use `repo_type` argument if needed." and "Repo id must use alphanumeric chars or '-', '_', '.', '--' and
    // '..' are forbidden, '-' and '.' cannot start or end the name, max length is 96: 'F:\\models\\x'."; people retell it as "input must be in
    // 'repo_name' or 'namespace/repo_name' format, but it was received as '…'".
    code: 'WEIGHTS_OFFLINE_MISSING',
    pattern: REPO_ID_REFUSED,
    hit: (m, line, _ray, context) => invalidRepoId(m, line, context, true),
  },
  {
    code: 'WEIGHTS_NOT_FOUND',
    pattern: REPO_ID_REFUSED,
    hit: (m, line, _ray, context) => invalidRepoId(m, line, context, false),
  },
  {
    // huggingface_hub: "RevisionNotFoundError: 404 Client Error. … Revision Not Found for url: <url>."; "EntryNotFoundError: 404 Client Error. … Entry Not
    // Found for url: <url>." (1.x: RemoteEntryNotFoundError); a shard the index names missing on disk: safetensors' "FileNotFoundError: No such file or
    // directory: "<dir>/model-00001-of-00004.safetensors""; vLLM: "Cannot find any model weights with `<path>`".
    code: 'WEIGHTS_NOT_FOUND',
    pattern:
      /\b((?:Remote)?EntryNotFoundError|RevisionNotFoundError)\b(?!\()|(Revision|Entry) Not Found for url: (\S+)|No such file or directory: ['"]?([^'"\s]+\.(?:safetensors|bin|pt|gguf))|Cannot find any (?:safetensors )?model weights with [`'"]?([^`'"\s]+)/,
    hit: (m, line, _ray, context) => {
      const url = urlIn(line)
      const path = m[4] ?? m[5]
      const revision = m[1] === 'RevisionNotFoundError' || m[2] === 'Revision'
      const ev = hubEvidence(url)
      return {
        key: path ? `path:${path}` : 'hub',
        severity: 'error',
        message: path
          ? `A weights file vLLM expects is not on this node: ${path}${m[4] ? ' (a shard the index names, or the model directory itself)' : ''}.`
          : revision
            ? `The hub has no such revision${ev['Revision'] ? ` "${ev['Revision']}"` : ''}${ev['Repo id'] ? ` of ${ev['Repo id']}` : ''}: a branch, tag or commit that does not exist.`
            : `The hub has no such file${ev['File'] ? ` "${ev['File']}"` : ''}${ev['Repo id'] ? ` in ${ev['Repo id']}` : ''}${ev['Revision'] ? ` at ${ev['Revision']}` : ''}.`,
        evidence: { ...(m[1] ? { Exception: m[1] } : {}), ...(path ? { Path: path } : {}), ...ev, ...node(context) },
        fix: path
          ? `Compare the files on every node with the model's index (model.safetensors.index.json names each shard): copy or download the missing ${path.split('/').pop()} to every node (the same revision everywhere), and check the path inside the container is the mounted one.`
          : revision
            ? 'Pin a revision that exists (a full commit sha from the hub page, or main), the same on every node (vllm serve --revision, model.source.revision).'
            : 'Check the file is in that repo at that revision (the hub page\'s "Files" tab); pin the revision that has it, or give vLLM a local copy of the whole snapshot.',
      }
    },
  },
  {
    // vLLM's LoRA manager (vllm/exceptions.py LoRAAdapterNotFoundError, vllm/lora/worker_manager.py before it): "Loading lora {name} failed: No adapter
    // found for {path}" — an adapter given at start (--lora-modules) or by a request that is not at that path on this node (vllm-project/vllm#30690,
    // held-out batch 155: `ValueError: Loading lora ["table_qc failed: No adapter found for /data/…/checkpoint-57"]`; an RL trainer's adapter path).
    code: 'WEIGHTS_NOT_FOUND',
    pattern: /\bLoading lora \[?["']?([^\s"'\]]+) failed: No adapter found for ([^\s"'\]]+)/,
    hit: (m, _line, _ray, context) => ({
      key: `lora:${m[2]}`,
      severity: 'error',
      message: `vLLM found no LoRA adapter ${m[1]} at ${m[2]} on this node, so it could not load it.`,
      evidence: { 'LoRA adapter': m[1]!, Path: m[2]!, ...node(context) },
      fix: `Put the adapter (its adapter_config.json and weights) at ${m[2]} in every node's container, the same path everywhere, or give --lora-modules the path where it is (name=path where the directory's name differs from the adapter's).`,
    }),
  },
  {
    // safetensors (Rust): "safetensors_rust.SafetensorError: Error while deserializing header: MetadataIncompleteBuffer" (a file cut short),
    // "… HeaderTooLarge" (not a safetensors file: a Git LFS pointer or an HTML page), "… InvalidHeaderDeserialization", "incomplete metadata, file not fully covered".
    code: 'WEIGHTS_CORRUPT',
    pattern: /Error while deserializing header: (\w+)|incomplete metadata, file not fully covered|\bSafetensorError: (?!Error while serializing)(.*)$/,
    hit: (m, _line, _ray, context) => {
      const what = m[1] ?? (m[0].startsWith('incomplete') ? 'incomplete metadata' : (m[2] ?? '').slice(0, 120))
      const reason = /HeaderTooLarge|InvalidHeader/.test(what)
        ? 'the file is not a safetensors file (a Git LFS pointer or an HTML error page saved under a shard name)'
        : 'the file is shorter than its header says: a download cut short, a disk that filled, or a copy interrupted'
      const shards = context.memory?.get(SHARDS_LOADED)
      return {
        key: 'corrupt',
        severity: 'error',
        message: `A weights shard could not be read (safetensors: ${what}): ${reason}.`,
        evidence: { 'safetensors said': what, ...(shards ? { 'Shards read before it': shards } : {}), ...node(context) },
        fix: SHARD_FIX(''),
      }
    },
  },
  {
    // ModelScope's download check (modelscope/hub/file_download.py, file_integrity_validation): "modelscope.hub.errors.FileIntegrityError: File
    // <cache>/._____temp/<org>/<model>/model-00001-of-00004.safetensors integrity check failed, expected sha256 signature is <64 hex>, actual is <64 hex>,
    // the download may be incomplete, please try again." (1.9 and later; older: "File <path> integrity check failed, the download may be incomplete,
    // please try again."), logged first as "<time> - modelscope - ERROR - File … integrity check failed …". vllm-project/vllm#13962 (every TP worker
    // downloading into one cache at once), modelscope/modelscope#968, #1365, #758, zai-org/GLM-4#775, hiyouga/LlamaFactory#5826. An actual of
    // e3b0c442…b855 is the sha256 of no bytes: the file is empty.
    code: 'WEIGHTS_CORRUPT',
    pattern: /\bFile (\S+) integrity check failed(?:, expected sha256 signature is ([0-9a-f]{64}), actual is ([0-9a-f]{64}))?/,
    hit: (m, _line, _ray, context) => {
      const empty = m[3] === 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
      const file = m[1]!.replace(/[,.]$/, '')
      return {
        key: `corrupt:${file}`,
        severity: 'error',
        message: `ModelScope downloaded ${file.replace(/^.*[\\/]/, '')} but its sha256 is not the hub's${empty ? ' (it is the sha256 of an empty file: nothing was written)' : ''}: a download cut short, or two processes writing the same file into one cache at once (each tensor-parallel worker fetching the model itself).`,
        evidence: {
          File: file,
          ...(m[2] ? { 'sha256 expected': m[2], 'sha256 on disk': `${m[3]}${empty ? ' (no bytes)' : ''}` } : {}),
          ...node(context),
        },
        fix: "Delete the partial copy (the model's folder under the cache's ._____temp/) and download it once before serving (modelscope download --model <id> --local_dir <dir>, then vllm serve <dir>), so no two workers or nodes write one cache at the same time; check free space on the cache's disk.",
      }
    },
  },
  {
    // vLLM's shard progress: "Loading safetensors checkpoint shards:  58% Completed | 95/163 [03:06<02:14, …]" — kept for WEIGHTS_CORRUPT's evidence
    // and, with the time it took, for an engine start that fails while the weights still load (signature-rules-processes.ts).
    code: 'WEIGHTS_CORRUPT',
    pattern: /Loading safetensors checkpoint shards:.*?(\d+)\/(\d+) \[([\d:]+)?/,
    hit: (m, _line, _ray, context) => {
      context.memory?.set(SHARDS_LOADED, `${m[1]} of ${m[2]}`)
      if (m[3] !== undefined) context.memory?.set(SHARDS_LOADED_AFTER, m[3])
      return null
    },
  },
  {
    // vLLM's weight loaders: "AssertionError: Attempted to load weight (torch.Size([3600])) into parameter (torch.Size([3584]))"
    // (default_weight_loader and layers), or the bare "assert param_data.shape == loaded_weight.shape" a traceback prints (linear.py).
    code: 'WEIGHTS_MISMATCH',
    pattern:
      /Attempted to load weight \((?:torch\.Size\()?(\[[^\]]*\])\)?\)\s*into parameter \((?:torch\.Size\()?(\[[^\]]*\])|assert param(?:_data|_slice)?\.(?:shape|size\(\)) == loaded_weight\.(?:shape|size\(\))/,
    hit: (m, _line, _ray, context) => ({
      key: m[1] ? `${m[1]}>${m[2]}` : 'shape?',
      severity: 'error',
      message: `A tensor in the checkpoint does not have the shape vLLM's model expects${m[1] ? ` (file ${m[1]}, model ${m[2]})` : ''}: the files are not the model the config describes (another revision, another quantisation, a half-written file), or this node holds other files than the others.`,
      evidence: { ...(m[1] ? { 'Shape in the file': m[1], 'Shape the model expects': m[2]! } : {}), ...node(context) },
      fix: "Compare the weights on every node (the same revision and files: the deploy's weights digests, or sha256sum of the shards and config.json) and download the snapshot again where they differ; if every node fails alike, the checkpoint does not fit this vLLM's model (pass the right --quantization / --revision, or a vLLM that supports the checkpoint).",
    }),
  },
  {
    // transformers (utils/hub.py cached_file): "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached
    // files and it looks like <repo> is not the path to a directory containing a file named config.json." (4.2x–4.5x; "to load the files" in 5.x).
    code: 'WEIGHTS_OFFLINE_MISSING',
    pattern: /We couldn't connect to '(https?:\/\/)?([^'/]+)[^']*' to load (?:this file|the files)/,
    hit: (m, line, _ray, context) => hubUnreachable(m[2]!, line, context, /it looks like (\S+) is not the path to a directory/.exec(line)?.[1]),
  },
  {
    // urllib3/requests (huggingface_hub ≤ 0.x): "HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded … (Caused by
    // NameResolutionError(… Failed to resolve 'huggingface.co' …))"; httpx (huggingface_hub 1.x): "httpx.ConnectError: … https://huggingface.co/…";
    // aiohttp: "Cannot connect to host huggingface.co:443". A retry or a cache fallback is a warning.
    code: 'WEIGHTS_OFFLINE_MISSING',
    pattern:
      /(?:host='|Failed to resolve '|Cannot connect to host )((?:[\w-]+\.)*(?:huggingface\.co|hf\.co|hf-mirror\.com))\b|\b(?:ConnectError|ConnectTimeout|ConnectionError|Network is unreachable|Name or service not known|Temporary failure in name resolution)\b[^\n]*?https?:\/\/((?:[\w-]+\.)*(?:huggingface\.co|hf-mirror\.com))/,
    hit: (m, line, _ray, context) => hubUnreachable(m[1] ?? m[2]!, line, context),
  },
  {
    // transformers: "OSError: <repo or dir> does not appear to have a file named config.json. Checkout 'https://huggingface.co/<repo>/tree/main' for
    // available files."; older: "OSError: Can't load config for '<repo>'. If you were trying to load it from 'https://huggingface.co/models', …".
    code: 'WEIGHTS_NOT_FOUND',
    // (The directory before "does not appear" is read in hit: a pattern starting with a character class is scanned at every position of every line.)
    pattern: /does not appear to have a file named ([\w.-]+?)\.?(?:\s|$)|Can't load (?:config|tokenizer|the model|weights) for '([^']+)'/,
    hit: (m, line, _ray, context) => {
      const before = m[1] !== undefined ? /(\S+)\s+$/.exec(line.slice(Math.max(0, m.index - 400), m.index))?.[1] : undefined
      const where = (before ?? m[2] ?? '').replace(/^['"`]|['"`]$/g, '')
      const path = pathLike(where)
      const file = m[1] ?? 'config.json'
      return {
        key: `no-file:${where}:${file}`,
        severity: 'error',
        message: `${path ? `The directory ${where}` : `The model ${where}`} has no ${file} ${path ? 'on this node' : 'that transformers could find'}, so vLLM cannot read the model's configuration.`,
        evidence: { ...(path ? { Path: where } : { 'Repo id': where }), 'File missing': file, ...node(context) },
        fix: path
          ? `Check the model directory inside the container on every node (ls ${where}): it must hold the snapshot itself (config.json beside the shards), not a parent folder or a hub cache root; mount the same directory on every node.`
          : `Check the repo id and revision on the hub (the files tab must list ${file}); a GGUF-only or adapter-only repo needs its base model or --tokenizer; or serve a local directory that has ${file}.`,
      }
    },
  },
  {
    // vLLM (transformers_utils/config.py get_config, 0.8+): "ValueError: Invalid repository ID or local directory specified: '<model>'. Please verify the
    // following requirements: …" — neither a directory with a config here nor a repo the hub (or the offline cache) has.
    code: 'WEIGHTS_NOT_FOUND',
    pattern: /Invalid repository ID or local directory specified:\s*'([^']+)'/,
    hit: (m, _line, _ray, context) => invalidModel(m[1]!, context, false),
  },
  {
    code: 'WEIGHTS_OFFLINE_MISSING',
    pattern: /Invalid repository ID or local directory specified:\s*'([^']+)'/,
    hit: (m, _line, _ray, context) => invalidModel(m[1]!, context, true),
  },
  {
    // vLLM's weight loading meeting a checkpoint tensor its model class has no place for: models/utils.py AutoWeightsLoader "ValueError: There is no
    // module or parameter named 'lm_head.input_scale' in Qwen2ForCausalLM" (vllm#12783; a text-only class given a multimodal checkpoint, the
    // Transformers fallback given a MoE's e_score_correction_bias, a quantised checkpoint read as unquantised), and a layer's own loader's "Layer
    // mtp.layers.48.mlp.experts has no parameter 'w2_weight_scale_inv' for checkpoint weight '…'" (2026 builds: the MTP MoE built unquantised).
    code: 'WEIGHTS_MISMATCH',
    pattern: /There is no module or parameter named '?([^'\s]+)'?(?: in (\w+))?|Layer (\S+) has no parameter '([^']+)' for checkpoint weight '([^']+)'/,
    hit: (m, _line, _ray, context) => {
      const tensor = m[1] ?? m[5]!
      const model = m[2] ?? m[3]
      return {
        key: `no-param:${tensor}`,
        severity: 'error',
        message: `The checkpoint holds a tensor vLLM's model has no parameter for (${tensor}${model ? ` in ${model}` : ''}): the model class vLLM chose does not match these files (another architecture or variant than the config names, a multimodal checkpoint read by a text-only class, a quantised checkpoint loaded as unquantised or with another scheme).`,
        evidence: {
          'Checkpoint tensor': tensor,
          ...(model ? { 'Model (class or layer)': model } : {}),
          ...(m[4] ? { 'Parameter asked for': m[4] } : {}),
          ...node(context),
        },
        fix: "Check that the checkpoint is the one the architecture in config.json names and that this vLLM supports its variant and quantisation (--quantization, the model's recipe: a newer vLLM, or the --hf-overrides the model card gives); a text-only class over a multimodal checkpoint needs the multimodal architecture.",
      }
    },
  },
  {
    // vLLM (model_loader/default_loader.py load_weights, 0.9+): "ValueError: Following weights were not initialized from checkpoint: {'model.layers.0…'}"
    // (also "Following text encoder weights …"); a shard missing from the directory, or a checkpoint of another architecture or quantisation.
    code: 'WEIGHTS_MISMATCH',
    pattern: /Following (?:[\w ]{1,30} )?weights were not initialized from checkpoint:?\s*(.*)$/,
    hit: (m, line, _ray, context) => {
      const names = [...(m[1] ?? '').matchAll(/'([^']+)'/g)].map((x) => x[1]!)
      return {
        key: 'not-initialized',
        severity: /(?:^|\s|\])WARNING\b/.test(line.slice(0, m.index)) ? 'warning' : 'error',
        message: `The checkpoint lacks tensors vLLM's model needs${names.length > 0 ? ` (${names.length} named, e.g. ${names[0]})` : ''}: a shard missing from the directory, or files of another architecture, revision or quantisation than the config describes.`,
        evidence: {
          ...(names.length > 0
            ? {
                'Weights not initialised': names.slice(0, 4).join(', ') + (names.length > 4 ? ` … (${names.length})` : ''),
                'Count named': String(names.length),
              }
            : {}),
          ...node(context),
        },
        fix: 'Compare the directory with model.safetensors.index.json (every shard it names must be there, full size) on every node and download what is missing; if all shards are there, the checkpoint does not fit this vLLM (a newer vLLM for the model, or the right --quantization / --revision).',
      }
    },
  },
  {
    // huggingface_hub (file_download.py _check_disk_space, 0.17+): "UserWarning: Not enough free disk space to download the file. The expected file
    // size is: 4976.70 MB. The target location /root/.cache/…/blobs only has 1204.11 MB free disk space." (a warning: the download goes on and fails)
    code: 'DISK_SPACE_LOW',
    pattern:
      /Not enough free disk space to download the file\.(?:\s*The expected file size is: ([\d.]+ ?MB)\.)?(?:\s*The target location (\S+)? ?only has ([\d.]+ ?MB) free disk space)?/,
    hit: (m, _line, _ray, context) => ({
      key: `hub-disk:${m[2] ?? '?'}`,
      severity: 'warning',
      message: `huggingface_hub found too little free space for a weights file${m[1] ? ` (${m[1]} wanted, ${m[3] ?? '?'} free)` : ''}${m[2] ? ` under ${m[2]}` : ''}; the download goes on and will stop with the disk full, leaving a truncated file.`,
      evidence: { ...(m[1] ? { 'File size': m[1] } : {}), ...(m[3] ? { 'Free space': m[3] } : {}), ...(m[2] ? { Path: m[2] } : {}), ...node(context) },
      fix: `Free space under ${m[2] ?? 'HF_HOME'} (huggingface-cli delete-cache, old *.incomplete files) or point HF_HOME/--download-dir at a disk with room for the whole model on every node, then download again.`,
    }),
  },
  {
    // NCCL misc/shmutils.cc (2.1x–2.2x): "NCCL WARN Error: failed to extend /dev/shm/nccl-UbzKZ9 to 9637892 bytes" and "NCCL WARN Error while
    // creating shared memory segment /dev/shm/nccl-UbzKZ9 (size 9637888)" (2.19+ adds ", error: No space left on device (28)"); torch repeats the
    // second after "ncclSystemError: … Last error:". Without the errno words the segment still did not fit: Docker's 64 MB /dev/shm.
    code: 'DISK_SPACE_LOW',
    pattern: NCCL_SHM_SEGMENT,
    hit: (m, line, _ray, context) => (shmSegmentRefused(line, context) ? null : shmFull(m[1] ?? m[2] ?? '/dev/shm', line, context)),
  },
  {
    // The same segment refused for another reason than space: an errno other than 28 (NCCL 2.19+ prints it), or no errno after a CUDA failure
    // (NCCL's `Cuda failure '…'`, torch's ncclUnhandledCudaError): cudaHostRegister of the segment, which the platform refuses (WSL2 with
    // several GPUs, microsoft/WSL#12467 and vllm-project/vllm#4411; a VM or container without the host-memory mapping NCCL needs).
    code: 'NCCL_TRANSPORT_ERROR',
    pattern: NCCL_SHM_SEGMENT,
    hit: (m, line, _ray, context) => {
      const why = shmSegmentRefused(line, context)
      if (why === undefined || context.memory?.get(NCCL_INTRA_HOST_REPORTED) !== undefined) return null
      const shm = m[1] ?? m[2] ?? '/dev/shm'
      return {
        key: 'shm-refused',
        severity: 'error',
        message: `NCCL could not set up its shared-memory segment ${shm} between the GPUs of one host, and not for want of space (${why}): the platform refused the segment or its CUDA host registration (WSL2 with several GPUs, a VM or container without it).`,
        evidence: { Path: shm, 'Refused with': why, ...node(context) },
        fix: "Set NCCL_SHM_DISABLE=1 (and under WSL2 NCCL_P2P_DISABLE=1 too) in every rank's environment so NCCL connects this host's GPUs another way, or run on Linux directly rather than in WSL2; a container needs --ipc=host. Check with NCCL_DEBUG=INFO which transport (SHM, P2P) each channel uses.",
      }
    },
  },
  {
    // CPython: "OSError: [Errno 28] No space left on device: '<path>'"; safetensors: "Error while serializing: IoError(Os { code: 28, kind: StorageFull,
    // message: "No space left on device" })"; pip: "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device".
    code: 'DISK_SPACE_LOW',
    pattern: /No space left on device(?::\s*['"]([^'"]+)['"])?|\bkind: StorageFull\b|\bENOSPC\b/,
    hit: (m, line, _ray, context) => {
      const path = m[1] ?? /\[Errno 28\][^'"]*['"]([^'"]+)['"]/.exec(line)?.[1]
      // NCCL (misc/shmutils.cc) "failed to extend /dev/shm/nccl-XXXX to <n> bytes" and torch's shared-memory writes: the container's /dev/shm, not a disk.
      const shm = /\/dev\/shm\/?[\w.-]*/.exec(line)?.[0]
      if (shm !== undefined) return shmFull(shm, line, context)
      return {
        key: path ?? 'disk',
        severity: 'error',
        message: `A disk on this node filled${path ? ` while writing ${path}` : ''} (errno 28, ENOSPC): a download or copy of the weights, the image or a cache stopped half-way, and what it left may be truncated.`,
        evidence: { ...(path ? { Path: path } : {}), Errno: '28 (ENOSPC)', ...node(context) },
        fix: `Free space on the filesystem that holds ${path ?? 'the hub cache (HF_HOME), /tmp and the container storage'} (df -h ${path ?? '$HF_HOME /tmp /var/lib/docker'}): delete old snapshots (huggingface-cli delete-cache) and partial downloads (*.incomplete), or point HF_HOME/--download-dir at a larger disk; then download again, since files written while the disk was full are cut short.`,
      }
    },
  },
]
