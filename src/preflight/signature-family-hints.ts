/**
 * The family a failure line most likely belongs to, read from the words it uses, for failure lines no
 * signature knows in their exact wording: a new release rewords its error, an excerpt is cut, a
 * wrapper prints its own sentence around the cause. Each hint is a warning beside the
 * UNRECOGNISED_FAILURE it comes with (never instead of it): "the exact wording is not known, but the
 * line speaks of an InfiniBand port error; this is probably NCCL_TRANSPORT_ERROR; start from its fix".
 *
 * The vocabulary is each family's own, read from the sources that print it (CUDA/HIP runtime error
 * names, torch's c10d and TCPStore, NCCL's net_ib/socket transports, huggingface_hub's error classes,
 * errno names, Ray's and vLLM's config checks; the versions in WORDINGS.md), never one capture's
 * sentence: a word a healthy log could print in a failure line of another family is not used.
 * Only failure lines (signature-fallback.ts) are read, so a healthy log never gets a hint.
 */

import { EVIDENCE, type Finding, type FindingCode } from './finding.js'
import { patternPrefilter } from './pattern-prefilter.js'

interface FamilyHint {
  readonly code: FindingCode
  /** The family in words, for the message. */
  readonly family: string
  /** Tested on the head of one unexplained failure line; the match is quoted as the words that tell. */
  readonly words: RegExp
  /** Lines with these words are not this family's, whatever else they say (the benign events a healthy system reports). */
  readonly unless?: RegExp
  readonly fix: string
}

/**
 * In order of how specific the words are: the first hint that matches a line claims it, so a line that
 * names both an NCCL transport and a timeout is read as the transport's.
 */
export const FAMILY_HINTS: readonly FamilyHint[] = [
  {
    code: 'GPU_ARCH_UNSUPPORTED',
    family: 'kernels missing for the GPU architecture',
    // CUDA: cudaErrorNoKernelImageForDevice "no kernel image is available for execution on the device", cudaErrorInvalidDeviceFunction
    // "invalid device function"; torch's "CUDA capability sm_121 is not compatible with the current PyTorch installation"; HIP:
    // hipErrorNoBinaryForGpu, hipErrorInvalidKernelFile, "no compatible code object"; Triton/ptxas "gpu-name … sm_121a is not defined"; Triton's
    // "OutOfResources: out of resource: shared memory, Required: 102400, Hardware limit: 101376" (triton/compiler/compiler.py _init_handles: a
    // kernel's configs tuned for a GPU with more shared memory per block; vllm#60172's TRITON_MLA on sm_120, FlagGems on an A800). The same shortage
    // in a kernel's own check: "… requires >=128KB smem per block" (a vLLM top-k kernel on a GB10), "a K3+K5 split exceeds the SM120 shared-memory
    // limit (109568 > 101376)" (local-inference-lab/vllm#283); and CUDA's cudaErrorLaunchOutOfResources "too many resources requested for launch"
    // (a kernel's registers or shared memory over what this GPU gives a block: ms-swift#1867 and Wan2.2#118 on a V100, pytorch#150266 on an RTX 5090).
    words:
      /no kernel image is available|\bout of resource: shared memory\b|\brequires? >= ?\d+ ?[KM]i?B (?:of )?(?:smem|shared mem)|\bexceeds? the (?:SM ?\d{2,3} |device(?:'s)? )?shared[- ]memory limit\b|too many resources requested for launch|invalid device function|NoBinaryForGpu|NoKernelImageForDevice|invalid kernel file|InvalidKernelFile|no compatible code object|\bsm_\d{2,3}a?\b[^\n]{0,60}\bnot (?:compatible|supported|defined)\b|\bgfx\d{3,4}\w*\b[^\n]{0,60}\b(?:not supported|unsupported)\b/i,
    fix: "The image's CUDA/ROCm libraries or kernels were not built (or tuned) for this GPU: use an image built for its architecture (sm_121 on a GB10, gfx1151 on a Strix Halo; vLLM's CUDA 12.9+/13 builds, NVIDIA's NGC vLLM image), or rebuild with TORCH_CUDA_ARCH_LIST / PYTORCH_ROCM_ARCH naming it. Where a kernel asks for more shared memory or registers per block than the GPU has (a GB10 or an RTX 50 gives about 99 KiB, a B200 or H100 about 227 KiB), choose another backend for it (--attention-backend, the MoE or sampler backend the failing frame names) or a release that has a config for this GPU.",
  },
  {
    code: 'NCCL_TRANSPORT_ERROR',
    family: "an NCCL transport (InfiniBand/RoCE verbs or NCCL's sockets) failing between nodes",
    // NCCL transport/net_ib.cc ("NET/IB : … async event", "ibv_poll_cq error", "IBV_WC_RETRY_EXC_ERR", mlx5 devices), net_socket.cc
    // ("NET/Socket : …"), ncclRemoteError / ncclSystemError ("unhandled system error", "remote process exited or there was a network error");
    // NCCL's error trace through its network transport or proxy ("transport/net.cc:1538 -> 3", "proxy.cc:974 -> 3 [Progress Thread]": the
    // proxy's progress thread stopped on a transport's error, autoscriptlabs/nccl-mesh-plugin's four-Spark validation, 2026).
    words:
      /NET\/IB\b|NET\/Socket\b|\bibv_\w+|\bIBV_WC_\w+|\bmlx5_\d+\b|\bncclRemoteError\b|\bncclSystemError\b|unhandled system error|remote process exited or there was a network error|\bRoCE\b[^\n]{0,60}\b(?:error|fail)|(?:^|[\s\]/])(?:net(?:_\w+)?|proxy|p2p|coll_net|socket|ibvwrap)\.(?:cc|cu|cpp):\d+ -> [1-6]\b/i,
    // The HCA's async events (net_ib.cc): the NCCL_TRANSPORT_ERROR rule reads every wording and knows which are benign (a client
    // reregistration, an SM or LID change on a healthy fabric); a hint must not second-guess it.
    unless: /\basync (?:error |fatal )?event\b/i,
    fix: 'Check the fabric between the nodes: ibstat/ibv_devinfo (ports Active, the same link layer), the GID index NCCL uses (NCCL_IB_GID_INDEX, 3 for RoCE v2), NCCL_IB_HCA naming the fabric device, the MTU on both ends; rerun with NCCL_DEBUG=INFO to see the transport NCCL chose.',
  },
  {
    code: 'SOCKET_IFNAME_MISSING',
    family: 'a network interface named for NCCL/Gloo that the node lacks',
    // NCCL bootstrap: "Bootstrap : no socket interface found", "no usable interface found"; Gloo: "Unable to find address for: eth0",
    // torch "Failed to resolve interface"; the settings themselves named in the line.
    words:
      /no socket interface found|no usable (?:network )?interface|Unable to find address for[: ]|Failed to (?:find|resolve) (?:the )?interface|\b(?:NCCL|GLOO|TP)_SOCKET_IFNAME\b[^\n]{0,80}\b(?:not found|no such|invalid|unknown)\b/i,
    fix: "Name the fabric interface that exists on every node (ip -br addr on each; the same name, or one per node's env) in NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME, or leave them unset so NCCL picks one; a name with a leading '^' excludes rather than selects.",
  },
  {
    code: 'PORT_IN_USE',
    family: 'a port another process already holds',
    // errno EADDRINUSE (98 on Linux): "[Errno 98] Address already in use", torch "The server socket has failed to listen on any local
    // network address … address already in use", uvicorn/ZMQ "Address in use".
    words: /Address already in use|\bAddress in use\b|\bEADDRINUSE\b|\[Errno 98\]|\bport \d{2,5} is (?:already )?(?:in use|taken|occupied)\b/i,
    fix: 'Another process (a previous server, another rank, a second vLLM on the node) holds the port: find it (ss -ltnp | grep :<port>), stop it or choose other ports (--port, --master-port, VLLM_PORT, the Ray ports), and give each instance on a node its own.',
  },
  {
    code: 'DISK_SPACE_LOW',
    family: 'a disk or shared-memory filesystem that filled up',
    // errno ENOSPC (28): "[Errno 28] No space left on device", huggingface_hub's disk-space warning turned error, "Disk quota exceeded" (EDQUOT).
    words: /No space left on device|\bENOSPC\b|\[Errno 28\]|Disk quota exceeded|\bEDQUOT\b|not enough (?:free )?disk space/i,
    fix: 'Free space where the write failed (the hub cache HF_HOME, /tmp, the docker root, /dev/shm for NCCL and Ray), or point the cache at a larger disk; give the container a larger --shm-size where /dev/shm filled.',
  },
  {
    code: 'WEIGHTS_ACCESS_DENIED',
    family: 'the model hub refusing the token (gated or private repository)',
    // huggingface_hub: GatedRepoError, "401 Client Error: Unauthorized for url: https://huggingface.co/…", "403 Forbidden",
    // "Access to model … is restricted", "You must have access to it and be authenticated", "Invalid user token".
    words:
      /\bGatedRepoError\b|\bgated repo\b|Access to model [^\n]{1,120} is restricted|must (?:have access to it and )?be authenticated|Invalid (?:user )?token|\b(?:401|403)\b[^\n]{0,60}\b(?:Unauthorized|Forbidden)\b[^\n]{0,120}(?:huggingface|hf\.co|hf-mirror|\/api\/models|\/resolve\/)/i,
    fix: 'Give every node (and every Ray worker process) a token that has accepted the model’s licence: HF_TOKEN in the container env on each node, not only on the head or the runner; check it with hf auth whoami and the repo page.',
  },
  {
    code: 'WEIGHTS_OFFLINE_MISSING',
    family: 'offline mode with the files not in the local cache',
    // huggingface_hub: LocalEntryNotFoundError, "outgoing traffic has been disabled", "Cannot find the requested files in the disk cache
    // and outgoing traffic has been disabled"; transformers: "We couldn't connect to 'https://huggingface.co' to load this file".
    words: /\bLocalEntryNotFoundError\b|outgoing traffic has been disabled|\bHF_HUB_OFFLINE\b|couldn't connect to '?https?:\/\/huggingface\.co/i,
    fix: 'With HF_HUB_OFFLINE=1 every file must already be in each node’s cache: download it there first (hf download <repo> --revision <rev>) or mount the same cache on every node, or give the model as a local path; drop offline mode where the node may reach the hub.',
  },
  {
    code: 'WEIGHTS_CORRUPT',
    family: 'a weights file that is truncated or not what its format says',
    // safetensors: SafetensorError "Error while deserializing header: HeaderTooLarge / MetadataIncompleteBuffer / InvalidHeaderDeserialization",
    // "incomplete metadata, file not fully covered"; torch: "PytorchStreamReader failed reading zip archive", "invalid load key";
    // an interrupted download's "unexpected EOF" / "file is truncated" in a weights path.
    words:
      /\bSafetensorError\b|Error while deserializing header|\bHeaderTooLarge\b|\bMetadataIncompleteBuffer\b|incomplete metadata|PytorchStreamReader failed|invalid load key|(?:unexpected EOF|truncated)[^\n]{0,120}\.(?:safetensors|bin|pt|gguf)\b|\.(?:safetensors|bin|pt|gguf)\b[^\n]{0,120}(?:unexpected EOF|truncated|corrupt)/i,
    fix: 'A weights file is incomplete or damaged: compare its size and SHA-256 with the hub (hf download re-fetches a file whose hash differs), delete the partial file and download again, on every node that has its own copy.',
  },
  {
    code: 'WEIGHTS_NOT_FOUND',
    family: 'a model, revision or file that is not where it was asked for',
    // huggingface_hub: RepositoryNotFoundError, RevisionNotFoundError, EntryNotFoundError ("404 Client Error … Entry Not Found"),
    // transformers: "does not appear to have a file named", "is not a local folder and is not a valid model identifier", "Can't load the
    // configuration of"; vLLM: "Cannot find any model weights", "No model weights found"; a missing config/tokenizer/shard path.
    words:
      /\b(?:RepositoryNotFound|RevisionNotFound|EntryNotFound)Error\b|Repository Not Found|Revision Not Found|Entry Not Found|does not appear to have (?:a )?files? named|is not a local folder and is not a valid model identifier|Can't load (?:the )?(?:config|configuration|tokenizer)\b|Cannot find any (?:model )?weights|No model weights found|No such file or directory[^\n]{0,160}(?:\.safetensors|config\.json|tokenizer|\.bin\b)/i,
    fix: 'Check the model id, revision and path on every node: the same local path must exist with the same files on each (a path that exists only on the head fails on the workers), the repo id and revision must exist on the hub (hf download <repo> --revision <rev> --dry-run), and the files list must include every shard the index names.',
  },
  {
    code: 'IMAGE_PLATFORM_MISMATCH',
    family: 'a program built for another CPU architecture than the node (an amd64 image on an arm64 GB10)',
    // The kernel's ENOEXEC as runc, a shell or Python print it: "exec /usr/bin/python3: exec format error", "cannot execute binary file: Exec format
    // error", "OSError: [Errno 8] Exec format error"; the dynamic loader's "wrong ELF class: ELFCLASS64". A script without its #! line gives ENOEXEC too.
    // (bash's bare "cannot execute binary file", without ": Exec format error", is a binary handed to bash as a script: held-out batch 22's compose
    // command, on an arm64 host with an arm64 image.)
    words: /\bexec format error\b|\[Errno 8\] Exec format error|wrong ELF class\b/i,
    fix: "Check the image's platform against the node (docker image inspect --format {{.Os}}/{{.Architecture}} <image>; uname -m on the node): use an image built for the node's architecture (docker buildx build --platform linux/arm64 for a DGX Spark or GH200, or a multi-arch image); if the file that failed is a script, give it a #! line.",
  },
  {
    code: 'IMAGE_LACKS_RAY',
    family: 'Ray missing from the image or its Python environment',
    words: /No module named ['"]?ray\b|\bray: (?:command )?not found\b|Ray is not installed|please install ray\b/i,
    fix: "Use an image with Ray installed, the same version on every node (pip install 'ray[default]==<the cluster's version>'), run ray from that image's Python environment, or deploy with the mp executor, which needs no Ray.",
  },
  {
    code: 'DRIVER_NO_GPU',
    family: 'no usable GPU or driver in the container',
    // CUDA: cudaErrorNoDevice "no CUDA-capable device is detected" (cudaErrorInsufficientDriver is CUDA_DRIVER_TOO_OLD's own rule: signature-rules-gpu.ts);
    // torch "Found no NVIDIA driver on your system", "No CUDA GPUs are available"; NVML "NVIDIA-SMI has failed … couldn't communicate
    // with the NVIDIA driver"; ROCm "No HIP GPUs are available", and AITER's rocminfo that could not run ("Get GPU arch from rocminfo failed: Command
    // '['/opt/rocm-7.2.0/bin/rocminfo']' returned non-zero exit status 1.": no /dev/kfd in the container, or a host ROCm bound over the image's).
    words:
      /no CUDA-capable device is detected|Found no NVIDIA driver|No (?:CUDA|HIP|ROCm) GPUs are available|Get GPU arch from (?:rocminfo|hipinfo)[^\n]*?returned non-zero exit status|couldn't communicate with the NVIDIA driver|\bcudaErrorNoDevice\b|\bCUDA_ERROR_NO_DEVICE\b|\bNVML_ERROR_DRIVER_NOT_LOADED\b/i,
    fix: 'The container sees no GPU: run it with the NVIDIA runtime and --gpus all (or CDI devices), check nvidia-smi inside it, and that the host driver is loaded and new enough for the image’s CUDA; on ROCm pass /dev/kfd and /dev/dri.',
  },
  {
    code: 'GPU_OUT_OF_MEMORY',
    family: 'GPU memory exhausted',
    // torch.OutOfMemoryError "CUDA out of memory. Tried to allocate …", cudaErrorMemoryAllocation "out of memory",
    // CUDA_ERROR_OUT_OF_MEMORY, hipErrorOutOfMemory, NCCL "Cuda failure 'out of memory'".
    words:
      /\bOutOfMemoryError\b|\b(?:CUDA|HIP|GPU|device) out of memory\b|CUDA_ERROR_OUT_OF_MEMORY|\bcudaErrorMemoryAllocation\b|\bhipErrorOutOfMemory\b|failure 'out of memory'/i,
    fix: 'Lower what each GPU must hold: --gpu-memory-utilization (0.85 or less on unified memory), --max-model-len, --max-num-seqs; stop other processes on the GPU (nvidia-smi); spread the model over more GPUs (TP/PP) or use a smaller quantisation.',
  },
  {
    code: 'OOM_KILLED',
    family: 'the kernel or a memory monitor killing a process for memory',
    // Linux "Out of memory: Killed process N", "oom-kill:", "Memory cgroup out of memory"; Ray's memory monitor "running low on memory".
    words: /Out of memory: Killed process|\boom[-_ ]?kill(?:er|ed)?\b|Memory cgroup out of memory|running low on memory|\bOOMKilled\b/i,
    // Ray's own message for any worker that died without a word (raylet node_manager.cc HandleClientConnectionError) lists an OOM kill as one
    // of three possible causes, not as what happened: "There are some potential root causes. (1) The process is killed by SIGKILL by OOM
    // killer …" (Ray ≤ 2.4x), "Some common causes include: (1) the process was killed by the OOM killer …, (2) ray stop --force was called,
    // or (3) the worker crashed unexpectedly due to SIGSEGV …" (current). A SIGSEGV reads the same (vllm-project/vllm PR #38529).
    unless:
      /There are some potential root causes\. \(1\) The process is killed by SIGKILL by OOM killer|Some common causes include: \(1\) the process was killed by the OOM killer/i,
    fix: 'The host ran out of memory: lower --gpu-memory-utilization and --max-model-len (on unified memory the GPU and the host share it), give the container more memory, leave headroom for the OS, or load fewer weights at once (--safetensors-load-strategy, fewer workers).',
  },
  {
    code: 'RENDEZVOUS_UNREACHABLE',
    family: "the ranks' rendezvous (torch's TCPStore or c10d) not reached",
    // torch.distributed: DistStoreError / DistNetworkError, TCPStore "Connection refused", "Socket Timeout", "client socket has timed
    // out", c10d "The client socket has failed to connect to any network address of (host, port)", "Timed out after N seconds waiting for
    // clients"; a rendezvous or store that timed out or refused in the same line.
    words:
      /\bDist(?:Store|Network)Error\b|\bTCPStore\b[^\n]{0,160}\b(?:refused|timed? ?out|timeout|failed|unreachable)\b|client socket has (?:timed out|failed to connect)|\b(?:c10d|rendezvous|rdzv)\b[^\n]{0,160}\b(?:refused|timed? ?out|timeout|unreachable)\b/i,
    fix: 'Every rank must reach the master at MASTER_ADDR:MASTER_PORT (--master-addr/--master-port in the native mode, the Ray head otherwise) over the fabric: the address must be the head’s fabric IP (not 127.0.0.1 or a hostname that resolves elsewhere), the port open between the nodes, and every rank started within the timeout.',
  },
  {
    code: 'RAY_GCS_UNREACHABLE',
    family: "Ray's GCS (the head's control service) not reached",
    // Ray gcs_client / gcs_rpc_client: "Failed to connect to GCS at address …", "GCS has not been ready", "Unable to connect to GCS",
    // RpcError on gcs_server; a worker's raylet that cannot register with the head's GCS.
    words:
      /\bGCS\b[^\n]{0,120}\b(?:unreachable|not (?:been )?ready|failed|refused|timed? ?out|unavailable|cannot|could not|unable)\b|(?:Failed|Unable) to connect to (?:the )?GCS\b/i,
    fix: "Every node must reach the head's GCS at the address `ray start --address` names (the head's fabric IP and its --port, 6379 by default), with the same Ray version on both ends; check the head's ray status and the port between the nodes.",
  },
  {
    code: 'GPU_SHORTFALL',
    family: 'a GPU index this node does not have',
    // CUDA cudaErrorInvalidDevice "invalid device ordinal" (torch: "RuntimeError: CUDA error: invalid device ordinal", newer torch
    // "torch.AcceleratorError: CUDA error: invalid device ordinal"; NCCL "Cuda failure 'invalid device ordinal'"), HIP hipErrorInvalidDevice:
    // torch.cuda.set_device or a tensor asked for device N on a node that shows fewer GPUs. Across nodes it is the global rank used as the
    // local device (LMCache/LMCache#814 and #1988, meta-llama/llama-cookbook#90, sgl-project/SpecForge#154), or the GPUs narrowed under the
    // launcher (CUDA_VISIBLE_DEVICES exported after ray start, vllm-project/vllm#1016).
    words: /\binvalid device ordinal\b|\bcudaErrorInvalidDevice\b|\bhipErrorInvalidDevice\b/i,
    fix: 'A process asked for a GPU index this node does not have (the index is in the line or the frame above: cuda:N, set_device(N)). On a node other than the first, that is usually the global rank used as the local device: the code must take LOCAL_RANK (or rank % GPUs per node); check the component in the traceback (a KV connector, a plugin, your own script) and upgrade it if a release fixed it. Otherwise count the GPUs the process sees on that node (nvidia-smi -L and CUDA_VISIBLE_DEVICES inside the container, set before ray start) against TP × PP per node.',
  },
  {
    code: 'GPU_SHORTFALL',
    family: 'more GPU workers asked for than the cluster or node shows',
    words:
      /\btensor[_ ]parallel(?:[_ ]size)?\b[^\n]{0,120}\b(?:greater|larger|more) than\b[^\n]{0,60}\b(?:GPUs?|devices?)\b|\bnot enough GPUs?\b|\b(?:requires?|needs?) \d+ GPUs?\b[^\n]{0,80}\b(?:only|but|available)\b/i,
    fix: "Make TP × PP match the GPUs the cluster has (ray status, or nodes × GPUs per node in the native mode), start vllm serve only after every node joined with its GPUs, and don't narrow a container's GPUs with CUDA_VISIBLE_DEVICES.",
  },
  {
    code: 'VLLM_FLAG_UNKNOWN',
    family: "an argument the program's version does not know",
    // argparse/click: "unrecognized arguments:", "no such option:", "unknown option", Python "got an unexpected keyword argument".
    words: /\bunrecognized arguments?:|\bno such option:|\bunknown (?:command-line )?(?:option|argument|flag)s?\b[:'"]|got an unexpected keyword argument/i,
    fix: "Check the flag against the image's own vLLM (docker run --rm <image> vllm serve --help), then pin an image whose version has it or drop it; a flag and its value given as one list item is also read as unknown.",
  },
  {
    code: 'MODEL_NOT_SUPPORTED',
    family: "a model architecture the image's vLLM or transformers does not know",
    // vLLM registry: "Model architectures ['X'] are not supported for now", "… failed to be inspected"; transformers: "does not recognize
    // this architecture", "Unrecognized configuration class", "model type `x` but Transformers does not recognize".
    words:
      /architectures? \[[^\]]*\] (?:are|is) not supported|does not recognize this architecture|Unrecognized (?:configuration class|model)\b|model type [`'"]?\w+[`'"]? but Transformers does not recognize/i,
    fix: "Use an image whose vLLM and transformers support the model's architecture (the model card names the minimum versions), or upgrade them in the image; check with docker run --rm <image> python -c 'import vllm, transformers; print(vllm.__version__, transformers.__version__)'.",
  },
  {
    code: 'VERSION_SKEW',
    family: 'a shared library built against another release of a library it loads',
    // The dynamic loader's undefined symbol in a library that is not vLLM's own (IMAGE_LACKS_VLLM's rule) nor a Python extension of torch's
    // namespaces (the extension rule): two parts of one stack from different releases — torch_npu's ATB plugin against the installed NNAL/ATB
    // ("OSError: /home/…/nnal/atb/latest/atb/cxx_abi_1/lib/libtbe_adapter.so: undefined symbol: _ZN3Mki2DlC1…", Ascend/pytorch#99, held-out
    // batch 144), a CUDA library older than the one linked against, a plugin built for another host library.
    words: /(?:OSError|ImportError): \S*?\/lib[\w+-]+(?:\.[\w+-]+)*?\.so(?:\.\d+)*: undefined symbol/,
    fix: "The library in the error was built against another release of a library it loads: install the releases that belong together (the accelerator stack's compatibility table: torch and its device plugin, the vendor toolkit and its add-ons; pip show / the vendor's version file names each), or rebuild it against the installed one; the same on every node.",
  },
  {
    code: 'VERSION_SKEW',
    family: 'transformers 5.15 or later refusing a global read of a per-layer config attribute, by code written for an older transformers',
    // transformers >= 5.15 (configuration_utils.py PretrainedConfig.__getattribute__, heterogeneous configs): "AmbiguousGlobalPerLayerAttributeError:
    // 'head_dim' is a per-layer attribute and may vary across layers. Access it via the individual layer configs instead (e.g.
    // config.per_layer_config[i].head_dim). …" — raised where a caller reads it as one value: vLLM before 0.27.2rc0/0.28 in get_head_size
    // (model_arch_config_convertor.py, fixed by vLLM PR #49797; vllm-project/vllm#51744 and #52768, RBLN-SW/vllm-rbln#1092, tenstorrent/vllm-tt-plugin
    // PR #106), compressed-tensors' get_num_kv_heads ('num_key_value_heads'). getattr(config, name, default) does not absorb it.
    words: /\bAmbiguousGlobalPerLayerAttributeError\b|'\w+' is a per-layer attribute and may vary across layers/,
    fix: "The image's transformers (5.15 or later) knows Gemma-4-style heterogeneous configs and refuses a global read of a per-layer attribute; the caller in the traceback was written before that (vLLM before 0.27.2rc0/0.28 reads head_dim in get_head_size; an older compressed-tensors, a platform plugin). Either pin transformers below 5.15 in the image (the release its vLLM was tested with: pip show vllm lists the pin), or upgrade vLLM (and the plugin or library in the frames) to a release that reads per_layer_config (vLLM PR #49797); the same on every node.",
  },
  {
    code: 'VERSION_SKEW',
    family: 'transformers (or tokenizers) of another release than the installed vLLM was written for',
    // transformers 5 dropped the tokenizers' all_special_tokens_extended (huggingface/transformers PR #40936), which vLLM before 0.12 reads in
    // get_cached_tokenizer (vllm/transformers_utils/tokenizer.py; removed by vLLM PR #29686): "AttributeError: Qwen2Tokenizer has no attribute
    // all_special_tokens_extended. Did you mean: 'num_special_tokens_to_add'?" (QwenLM/Qwen3-VL#2058, rllm-org/rllm#388), "… TokenizersBackend
    // has no attribute all_special_tokens_extended" (runpod-workers/worker-vllm PR #258); Python's "ImportError: cannot import name 'X' from
    // 'transformers…'" for a class one release removed or has not yet (vllm-ascend PR #2365: DeepseekV2Config; deepseek-ai/DeepSeek-OCR#39:
    // LlamaFlashAttention2).
    words: /has no attribute '?all_special_tokens_extended\b|cannot import name '\w+' from '(?:transformers|tokenizers)(?:\.[\w.]+)?'/i,
    fix: "Install the transformers the image's vLLM was released with (pip show vllm lists the pin under Requires; vLLM 0.16 and 0.17 require transformers<5, and vLLM before 0.12 breaks on transformers 5's tokenizers), or upgrade vLLM to a release written for that transformers; pin both in the image, the same on every node, since a later pip install of another package can lift transformers past the pin.",
  },
  {
    code: 'VERSION_SKEW',
    family: "the tokenizers library of another release than the model's tokenizer files or the installed transformers expect",
    // tokenizers (Rust, serde) reading a tokenizer.json whose format its release does not know: "Exception: data did not match any variant of
    // untagged enum ModelWrapper at line 757443 column 3" (merges saved as pairs by tokenizers >= 0.20, read by an older one; also
    // PyPreTokenizerTypeWrapper / PyNormalizerTypeWrapper / PyDecoderWrapper for newer pre-tokenizers); and the Python binding refusing what a
    // transformers of another release hands it: "TypeError: argument 'merges' failed to extract enum field PyMerges::Merges.0" (held-out batch 23's
    // model-workbench notes: git-master transformers and tokenizers in the environment).
    words:
      /data did not match any variant of untagged enum (?:ModelWrapper|PyPreTokenizerTypeWrapper|PyNormalizerTypeWrapper|PyDecoderWrapper)\b|failed to extract enum (?:field )?PyMerges\b/,
    fix: "Install the tokenizers and transformers releases the image's vLLM was released with (pip show vllm lists the pins; tokenizers 0.20 or later reads merges saved as pairs), both together and the same on every node; a model whose tokenizer.json needs a newer tokenizers needs a vLLM image that ships it.",
  },
  {
    code: 'VERSION_SKEW',
    family: 'a library vLLM imports, installed at another release than this vLLM was written for',
    // Python's import system on a package that is installed but lacks the part asked for: "ModuleNotFoundError: No module named
    // 'compressed_tensors.compressors.pack_quantized'" (a submodule a newer vLLM imports from an older compressed-tensors), "ImportError: cannot
    // import name 'X' from 'flashinfer…'" / "… from 'torch…'" (a name one release added or removed). A dotted module path under a top-level
    // package that imported means the package is there at another version; a missing top-level package (No module named 'ray') is IMAGE_LACKS_*'s,
    // vLLM's own modules (vllm._C) IMAGE_LACKS_VLLM's.
    words: /No module named '(?!vllm[.'])[a-z_]\w*\.[\w.]+'|cannot import name '\w+' from '(?!vllm[.'])[a-z_]\w*(?:\.[\w.]+)?'/i,
    fix: "pip show vllm (its Requires) against pip show <the package> inside the image: install the release of that package this vLLM pins (or a vLLM written for the installed one), in the image itself and the same on every node; a derived image that upgrades vLLM over an older base keeps the base's libraries unless it upgrades them too.",
  },
  {
    code: 'VERSION_SKEW',
    family: 'code written for another vLLM release than the one installed (a plugin, an add-on, a patch or a backend)',
    // Python's import system on a vLLM module or name this vLLM does not have: "ModuleNotFoundError: No module named
    // 'vllm.multimodal.profiling'" (an audio plugin's troubleshooting page: vLLM 0.17.0 to 0.20.2 did not ship it), "No module named
    // 'vllm.inputs.data'" (Triton's vLLM backend after `pip install -U vllm` in its container, 2026), "No module named 'vllm.executor'" (a
    // trainer's workers on another vLLM, TorchForge on SkyPilot), "No module named 'vllm.entrypoints.serve.utils.error_response'" (a
    // GB10 image's multimodal add-on, 2026); "cannot import name 'X' from 'vllm.…'" for a name one release moved. Not vLLM's compiled
    // extensions (vllm._C, vllm._moe_C, vllm._rocm_C, vllm._flashmla_C, vllm.vllm_flash_attn: IMAGE_LACKS_VLLM's) and not vLLM itself.
    words:
      /No module named '(vllm\.(?!_\w*C\b|vllm_flash_attn\b)[a-z_][\w.]*)'|cannot import name '(\w+)' from '(vllm\.(?!_\w*C\b|vllm_flash_attn\b)[a-z_][\w.]*)'/,
    fix: "Run the plugin, add-on or patch with the vLLM release it was written for: pip show vllm in the image against the release its README or requirements name; after upgrading vLLM in an image, upgrade its plugins (vllm-ascend, LMCache, a Triton or Dynamo backend, a model's add-on) and drop patch mounts written for the old tree; the same image on every node.",
  },
  {
    code: 'VERSION_SKEW',
    family: "code written against another vLLM release's engine objects (a trainer, a serving wrapper, a plugin)",
    // Python's AttributeError on one of vLLM's own engine, client, executor or config classes, read by a caller written for a release that still
    // had the attribute: V1's engine (0.8+) has no `engine`, `model_executor`, `driver_worker`, `scheduler_config`: "AttributeError: 'AsyncLLM'
    // object has no attribute 'engine'" (lm-sys/FastChat#3704, held-out batch 68), "'LLMEngine' object has no attribute 'model_executor'"
    // (huggingface/trl#3859, OpenRLHF/OpenRLHF#922), "'LLMEngine' object has no attribute 'scheduler_config'" (Open-Reasoner-Zero#69),
    // "'LLMEngine' object has no attribute 'driver_worker'" (vllm-project/vllm#9318); "module 'vllm…' has no attribute 'x'". Class names vLLM
    // alone uses (not `LLM` or `Worker`, which other libraries have too).
    words:
      /'(?:AsyncLLM|AsyncLLMEngine|LLMEngine|EngineCoreClient|SyncMPClient|AsyncMPClient|DPAsyncMPClient|InprocClient|AsyncEngineArgs|EngineArgs|VllmConfig|GPUModelRunner|RayDistributedExecutor|RayGPUExecutor|MultiprocExecutor|MultiprocExecutorV1)' object has no attribute '\w+'|module 'vllm(?:\.[\w.]+)?' has no attribute '\w+'/,
    fix: "The code in the traceback above the error (a trainer, a serving wrapper, a plugin) reads an attribute this vLLM's engine no longer has, or does not have yet: vLLM's V1 engine (0.8 and later, the only engine from 0.10) moved the executor, the workers and the configs (llm_engine.vllm_config.…, collective_rpc). Run that code with the vLLM release it names in its requirements (pip show vllm in the image against them), or upgrade it to a release written for this vLLM; VLLM_USE_V1=0 brings the old engine back only before vLLM 0.10.",
  },
]

/** Failure lines are read up to this many characters for a hint. */
const HINT_SCAN = 2000

/**
 * Lines that list causes a failure might have rather than saying which one it had: Ray's worker-death
 * message ("There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer …
 * (2) ray stop --force is called. (3) The worker is crashed unexpectedly …", ray/_private/worker.py and
 * gcs actor manager, 2.x) names a family it does not claim.
 */
const SPECULATIVE = /\bpotential root causes?\b|\bpossible (?:root )?causes?\b[^\n]{0,20}\(1\)/i

/** The hints' words, then SPECULATIVE, for one literal pass over a line's head (pattern-prefilter.ts). */
const HINT_FILTER = patternPrefilter([...FAMILY_HINTS.map((h) => h.words), SPECULATIVE])
const SPECULATIVE_AT = FAMILY_HINTS.length

/** The first family hint the line's words name, and the words. */
export function familyHintOf(text: string): { readonly hint: FamilyHint; readonly words: string } | undefined {
  const head = text.slice(0, HINT_SCAN)
  HINT_FILTER.read(head)
  if (HINT_FILTER.may(SPECULATIVE_AT) && SPECULATIVE.test(head)) return undefined
  for (let i = 0; i < FAMILY_HINTS.length; i++) {
    const hint = FAMILY_HINTS[i]!
    if (!HINT_FILTER.may(i) || hint.unless?.test(head)) continue
    const m = hint.words.exec(head)
    if (m) return { hint, words: m[0] }
  }
  return undefined
}

export interface HintedLine {
  /** Where the line is, as the UNRECOGNISED_FAILURE quotes it ("source:12"). */
  readonly at: string
  readonly text: string
  readonly words: string
  readonly hint: FamilyHint
}

/** One warning per family, beside the UNRECOGNISED_FAILURE of the same lines. */
export function familyHintFinding(h: HintedLine, node: string | null, lines: number): Finding {
  return {
    code: h.hint.code,
    severity: 'warning',
    node,
    message: `Probably ${h.hint.family}: a failure line no signature knows in this wording speaks of "${h.words}" (see UNRECOGNISED_FAILURE for the lines).`,
    evidence: {
      [EVIDENCE.logLine]: h.at,
      'Failure line': h.text.length <= 240 ? h.text.trim() : `${h.text.trim().slice(0, 240)}…`,
      'Words that tell': h.words,
      'Lines with these words': String(lines),
      'How it was read': "from the family's words, not from a known wording: confirm it against the line",
    },
    fix: h.hint.fix,
  }
}
