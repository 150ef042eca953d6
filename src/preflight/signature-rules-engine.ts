/**
 * Log signatures of an engine that cannot start on what the image and the node give it: a GPU
 * architecture the image's torch, Triton or FlashInfer has no kernels for (GB10's sm_121 on a wheel
 * built up to sm_120), a model architecture the image's vLLM or transformers does not know, a flag
 * value the image's vLLM refuses, Ray asked for a cluster that is not running, vLLM asked for more GPUs
 * than its Ray cluster has, and NCCL told an interface the node lacks. Each names the value to change
 * (the architecture, the model type, the flag and value, the GPU counts, the interface). Wordings with
 * their sources and versions in src/preflight/WORDINGS.md.
 */

import type { LineContext, RuleHit, SignatureRule } from './signature-rules.js'
import { nodeEvidence as node } from './line-node.js'

/** A line that is a logger's WARNING record, not a raised error (vLLM "WARNING 03-18 …", Python logging "… WARNING …", "UserWarning:"). */
const warningRecord = (line: string, at: number): boolean => /(?:^|\s|\])WARNING\b|UserWarning:/.test(line.slice(0, at))
/** A line that is an INFO or DEBUG record naming the words: a choice or a probe being logged, not the error itself. */
const infoRecord = (line: string, at: number): boolean => /(?:^|\s|\])(?:INFO|DEBUG)\b/.test(line.slice(0, at))

const ARCH_FIX =
  "Use an image built for this GPU's architecture (for GB10/DGX Spark, sm_121: a vLLM image built with CUDA ≥ 12.9/13 and TORCH_CUDA_ARCH_LIST including 12.1, such as NVIDIA's vllm container or a spark-specific build), the same image on every node; a JIT build (FlashInfer, Triton) needs a CUDA toolkit in the image that knows the architecture. As a stop-gap, --enforce-eager and another attention backend (VLLM_ATTENTION_BACKEND) avoid some JIT kernels."

/**
 * Triton's JIT assembles with a ptxas it bundles (triton/backends/nvidia/bin: ptxas, and from 3.6 ptxas-blackwell for sm >= 100; 3.7 adds
 * ptxas-thor for sm_110, triton-lang/triton PR #10462) unless TRITON_PTXAS_PATH (TRITON_PTXAS_BLACKWELL_PATH for the Blackwell one) names
 * another (triton knobs.py): a bundled CUDA 12.8/12.9 ptxas knows neither sm_121a nor sm_110a, a CUDA 13 toolkit's does (triton-lang/triton#8539,
 * roboflow/inference PR #2442).
 */
const PTXAS_FIX =
  "For Triton's JIT kernels the assembler is the one Triton bundles unless TRITON_PTXAS_PATH (TRITON_PTXAS_BLACKWELL_PATH for its ptxas-blackwell) names another: point it at the ptxas of a CUDA toolkit that knows the architecture (CUDA 13's /usr/local/cuda/bin/ptxas for sm_110a and sm_121a; install cuda-nvcc in the image where it has only the runtime)."

/** CUDA's error 200: the driver could not load a kernel image, which is not always an image built for other GPUs. */
const INVALID_IMAGE_FIX =
  "CUDA's error 200 (a kernel image the driver cannot load) has three usual causes: kernels built for another architecture (use an image built for this GPU, as above), kernels built by a CUDA newer than the node's driver supports (nvidia-smi's CUDA version must be at least the image's: update the driver or use an image of an older CUDA), or a JIT cache file cut short (a compile cache on a shared filesystem written by two nodes at once: give each node its own cache directory, VLLM_CACHE_ROOT and the kernel library's, and clear it)."

function archHit(m: RegExpExecArray, line: string, context: LineContext): RuleHit | null {
  if (m[7] !== undefined) {
    // (an INFO/DEBUG record naming the error, a probe's listing, is not the error)
    if (infoRecord(line, m.index)) return null
    return {
      key: 'arch:invalid-image',
      severity: warningRecord(line, m.index) ? 'warning' : 'error',
      message: `The GPU's driver could not load a kernel image (${m[7]}): it was built for another architecture, by a CUDA newer than this driver, or read from a cache file cut short, and the engine cannot run it.`,
      evidence: { 'CUDA error': m[7]!, ...node(context) },
      fix: INVALID_IMAGE_FIX,
    }
  }
  const arch = m[1] ?? m[2] ?? m[3] ?? (m[5] ? `major ${m[5]}` : m[6] ? /\b(gfx\d+\w*)\b/.exec(line)?.[1] : undefined)
  const gpu = /\b(NVIDIA [\w -]+?|GB10|H100|H200|B200|GH200)\b(?= with CUDA capability| which is of cuda capability)/.exec(line)?.[1]
  const tool = m[1] ? 'ptxas' : m[2] ? 'nvcc' : m[3] ? 'torch' : m[5] ? 'FlashInfer' : m[6] ? 'HIP' : 'CUDA'
  const severity = warningRecord(line, m.index) || m[4] !== undefined ? 'warning' : 'error'
  return {
    key: `arch:${arch ?? m[0].slice(0, 40)}`,
    severity,
    message:
      severity === 'warning'
        ? `The image's PyTorch was not built for this GPU${arch ? ` (${arch})` : ''}: kernels compiled only for other architectures may fail with "no kernel image is available" or fall back to slow paths.`
        : `The image has no kernels for this GPU's architecture${arch ? ` (${arch})` : ''}: ${tool === 'CUDA' || tool === 'HIP' ? `a ${tool} kernel was launched that was not compiled for this GPU` : `${tool} does not know the architecture, so a JIT-compiled kernel (Triton, FlashInfer) cannot be built`}, and the engine cannot run.`,
    evidence: {
      ...(arch ? { Architecture: arch } : {}),
      ...(gpu ? { GPU: gpu } : {}),
      'Reported by': tool === 'ptxas' ? (/ptxas(?:-\w+)?/.exec(m[0])?.[0] ?? tool) : tool,
      ...node(context),
    },
    fix: tool === 'ptxas' ? `${ARCH_FIX} ${PTXAS_FIX}` : ARCH_FIX,
  }
}

function modelHit(modelType: string | undefined, archs: string | undefined, inspected: boolean, context: LineContext): RuleHit {
  const what = modelType ? `model type ${modelType}` : `architecture(s) ${archs}`
  return {
    key: `model:${modelType ?? archs}`,
    severity: 'error',
    message: `The image's ${modelType ? 'transformers' : 'vLLM'} does not support the ${what}${inspected ? ' (its model class could not be inspected: an import or a version mismatch inside the image)' : ''}, so the model cannot be built.`,
    evidence: { ...(modelType ? { 'Model type': modelType } : {}), ...(archs ? { Architectures: archs } : {}), ...node(context) },
    fix: `Use an image whose vLLM (and transformers) supports ${modelType ?? archs} (a newer vllm/vllm-openai tag; check vLLM's supported-models list and the model card's minimum version), the same image on every node; --trust-remote-code does not add an architecture to vLLM's registry.`,
  }
}

/** The memory key of vLLM's count of this node's GPUs against the world size ("world/local"). */
const LOCAL_GPUS_SHORT = 'localGpusShort'

const LOCAL_INSTANCE_FIX =
  "If a Ray cluster is meant to be there, vLLM did not find it: run vllm serve inside the Ray head's container after ray start, with the same --temp-dir (ray.init finds a running cluster through /tmp/ray unless told otherwise), or set RAY_ADDRESS=<head fabric ip>:6379; `ray status` there must list every node's GPUs. On one machine, this node has fewer GPUs than tensor × pipeline parallel."

/** vLLM counted fewer GPUs on this node than its world size and then ran in a Ray instance of its own: it will wait for GPUs that instance lacks. */
function localInstanceShort(counted: string, context: LineContext): RuleHit {
  const [world, local] = counted.split('/')
  return {
    key: 'required-gpus',
    severity: 'warning',
    message: `vLLM started a Ray instance of its own (it found no cluster to join), so it has only this node's ${local} GPU(s) for a world size of ${world}: its placement group will wait for GPUs that instance does not have.`,
    evidence: {
      'World size (as vLLM logged it)': world!,
      "This node's GPUs": local!,
      'Ray cluster': 'a local instance vLLM started itself ("Started a local Ray instance")',
      ...node(context),
    },
    fix: LOCAL_INSTANCE_FIX,
  }
}

/** The memory key of torch's line naming a GPU it then calls too old ("Found GPU0 NVIDIA TITAN V which is of cuda capability 7.0."). */
const OLD_GPU = 'torchOldGpu'

export const ENGINE_RULES: readonly SignatureRule[] = [
  {
    // ptxas (Triton's and FlashInfer's JIT): "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'"; nvcc: "nvcc fatal   : Unsupported gpu
    // architecture 'compute_121a'"; torch (cuda/__init__.py): "NVIDIA GB10 with CUDA capability sm_121 is not compatible with the current PyTorch
    // installation." (a UserWarning); CUDA (cudaErrorNoKernelImageForDevice): "CUDA error: no kernel image is available for execution on the device";
    // FlashInfer (compilation_context.py): "RuntimeError: No supported CUDA architectures found for major versions [10]." (vllm-project/vllm#31740).
    // ROCm's HIP runtime, the same failure on AMD GPUs: hipErrorInvalidKernelFile ("HIP error: invalid kernel file", torch.AcceleratorError on a
    // gfx1151 APU whose image's kernels were built for other targets) and hipErrorNoBinaryForGpu ("Unable to find code object for all current devices!").
    // CUDA's error 200, a kernel image the driver cannot load on this GPU (CUDA_ERROR_INVALID_IMAGE / cudaErrorInvalidKernelImage, "device kernel
    // image is invalid"): a JIT's cubin built for another architecture ("RuntimeError: CUDA driver error (.../jit/handle.hpp:141): 200
    // (CUDA_ERROR_INVALID_IMAGE, device kernel image is invalid)", DeepGEMM's SM12x path on two GB10s, timothystewart6/vllm-gb10#27).
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern:
      /ptxas(?:-\w+)? fatal\s*:\s*Value '(sm_\w+)' is not defined for option 'gpu-name'|nvcc fatal\s*:\s*Unsupported gpu architecture '((?:compute|sm)_\w+)'|with CUDA capability (sm_\d+\w*) is not compatible with the current PyTorch installation()|no kernel image is available for execution on the device|cudaErrorNoKernelImageForDevice|No supported CUDA architectures found for major versions (\[[^\]]*\])|(HIP error: invalid kernel file|hipErrorInvalidKernelFile|hipErrorNoBinaryForGpu|Unable to find code object for all current devices)|(CUDA_ERROR_INVALID_IMAGE|cudaErrorInvalidKernelImage|hipErrorInvalidImage|device kernel image is invalid)/,
    hit: (m, line, _ray, context) => archHit(m, line, context),
  },
  {
    // torch (cuda/__init__.py _check_capability, old_gpu_warn), a UserWarning over three lines: "Found GPU0 NVIDIA TITAN V which is of cuda capability
    // 7.0." / "PyTorch no longer supports this GPU because it is too old." / "The minimum cuda capability supported by this library is 7.5." — the
    // image's torch has no kernels for this GPU at all (vllm-project/vllm#18818: vLLM 0.9.0's image on Volta). The GPU's line is remembered.
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern: /\bFound GPU(\d+) (.+?) which is of cuda capability (\d+\.\d+)\.|PyTorch no longer supports this GPU because it is too old/,
    hit: (m, line, _ray, context) => {
      if (m[1] !== undefined) {
        context.memory?.set(OLD_GPU, `${m[2]} (GPU ${m[1]}, compute capability ${m[3]})`)
        if (!/no longer supports this GPU/.test(line)) return null
      }
      const gpu = context.memory?.get(OLD_GPU)
      const minimum = /minimum cuda capability supported by this library is (\d+\.\d+)/.exec(line)?.[1]
      return {
        key: 'torch-gpu-too-old',
        severity: 'error',
        message: `The image's PyTorch has no kernels for this GPU${gpu ? ` (${gpu})` : ''}: it says the GPU is too old for it${minimum ? ` (its minimum is compute capability ${minimum})` : ''}, so vLLM cannot run on it.`,
        evidence: {
          ...(gpu ? { GPU: gpu } : {}),
          ...(minimum ? { 'Minimum capability': minimum } : {}),
          'Reported by': 'torch (cuda/__init__.py)',
          ...node(context),
        },
        fix: "Use an image whose PyTorch (and vLLM) still build kernels for this GPU's architecture (an older release, or a build with TORCH_CUDA_ARCH_LIST naming it), or newer GPUs; every node must run an image that covers its GPU.",
      }
    },
  },
  {
    // The CUTLASS Python DSL (CuTe DSL, nvidia-cutlass-dsl: cutlass/cute/nvgpu/*, an MMA or copy atom's own check) refusing the GPU it compiles for:
    // "cutlass.cute.nvgpu.common.OpError: OpError: expects arch to be one of ['sm_120a'], but got Arch.sm_121a" — FlashInfer's and vLLM's CuTe DSL
    // kernels written for some architectures only (vllm-project/vllm PR #40082: the b12x MoE/FP4 kernels for sm_120a on a GB10, sm_121a).
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern: /\bexpects arch to be one of \[([^\]]*)\], but got (?:Arch\.)?(sm_\w+)/,
    hit: (m, _line, _ray, context) => {
      const accepted = m[1]!.replace(/['"\s]/g, '').replace(/,$/, '')
      return {
        key: `cute-dsl-arch:${m[2]}`,
        severity: 'error',
        message: `A CuTe DSL kernel (CUTLASS's Python DSL) accepts only ${accepted} and this GPU is ${m[2]}, so the kernel path that uses it (a MoE or FP4/FP8 GEMM backend) cannot be built here.`,
        evidence: { 'Kernel accepts': accepted, 'This GPU': m[2]!, 'Reported by': 'CUTLASS CuTe DSL', ...node(context) },
        fix: `Pick a backend whose kernels cover ${m[2]} (vLLM's MoE backend / FlashInfer switches for the model, e.g. --moe-backend or the VLLM_USE_FLASHINFER_MOE_* settings), a release of the kernel package that adds ${m[2]}, or GPUs of ${accepted}.`,
      }
    },
  },
  {
    // AMD's AITER looking this GPU up in its table of chips (aiter/jit/utils/chip_info.py get_gfx_custom_op_core, 2025–2026): "KeyError: \"Unknown
    // GPU architecture: gfx1101. Supported architectures: ['native', 'gfx90a', …]\"", re-raised as "RuntimeError: Get GPU arch from rocminfo failed
    // …" (ROCm/legacy-rocm-build#5680: a rocm/vllm-dev nightly on a ROCm 7.1 base whose AITER left gfx1101 out; held-out batch 133).
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern: /\bUnknown GPU architecture: (gfx\w+)\. Supported architectures: \[([^\]]*)\]/,
    hit: (m, _line, _ray, context) => {
      const supported = m[2]!.replace(/['"\s]/g, '').replace(/^native,|,$/g, '')
      return {
        key: `aiter-arch:${m[1]}`,
        severity: 'error',
        message: `AITER (AMD's kernel library in the image) has no entry for this GPU (${m[1]}), so the kernels vLLM asks it for cannot be picked and the engine cannot start.`,
        evidence: { Architecture: m[1]!, 'AITER knows': supported, 'Reported by': 'AITER (chip_info.py)', ...node(context) },
        fix: `Use an image whose ROCm and AITER list ${m[1]} (the image tag that last worked, or one built for this GPU), or turn AITER off where vLLM has other kernels for the model (VLLM_ROCM_USE_AITER=0).`,
      }
    },
  },
  {
    // DeepGEMM's JIT not finding the kernel source of this GPU's architecture in the image (csrc/jit/include_parser.hpp: DG_HOST_UNREACHABLE
    // "Failed to open: <path>"): "RuntimeError: Assertion error (include_parser.hpp:69): Failed to open: …/vllm/third_party/deep_gemm/include/
    // deep_gemm/impls/sm121_fp8_mqa_logits.cuh" — a vendored DeepGEMM that ships the sm100 and sm120 kernels only (spark-arena/sparkrun#220, GB10).
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern: /Assertion error \([^()\s]*include_parser\.hpp:\d+\): Failed to open: (\S*deep_gemm\S*\/(sm_?\d+[a-z]?)_\w+\.cuh)/,
    hit: (m, _line, _ray, context) => ({
      key: `deepgemm-jit-arch:${m[2]}`,
      severity: 'error',
      message: `The image's DeepGEMM has no JIT kernel source for this GPU's architecture (${m[2]}): its JIT could not open ${m[1]}, so the model's first call into it fails.`,
      evidence: { Architecture: m[2]!, 'Missing file': m[1]!, 'Reported by': 'DeepGEMM (include_parser.hpp)', ...node(context) },
      fix: `Use an image whose DeepGEMM carries the ${m[2]} kernels (a newer DeepGEMM, or one built for this GPU), or turn DeepGEMM off where the model has another path (VLLM_USE_DEEP_GEMM=0).`,
    }),
  },
  {
    // Triton refusing an FP8 type this GPU's architecture lacks, when a kernel is compiled (triton/language/semantic.py): "ValueError(\"type fp8e4nv
    // not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\")" — fp8e4nv is torch.float8_e4m3fn, which needs Ada
    // or Hopper (sm_89+): an FP8 KV cache (--kv-cache-dtype fp8) on V100 or A100 (1CatAI/1Cat-vLLM#27, held-out batch 122), block-FP8 GEMMs and the
    // fused MoE of an FP8 checkpoint on A100 (vllm-project/vllm#18182), Inductor's own kernels; on AMD gfx90a "… are ('fp8e5',)".
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern: /\btype (fp8\w+) not supported in this architecture\. The supported fp8 dtypes are \(([^)]*)\)/,
    hit: (m, _line, _ray, context) => {
      const supported = m[2]!.replace(/['"\s]/g, '').replace(/,$/, '')
      return {
        key: `triton-fp8:${m[1]}`,
        severity: 'error',
        message: `Triton cannot compile a kernel with the FP8 type ${m[1]} for this GPU (its architecture has only ${supported || 'no FP8 type'}), so the path that asked for it (an FP8 KV cache, FP8 weights' GEMM or MoE, a compiled kernel) cannot run here.`,
        evidence: { 'FP8 type asked for': m[1]!, 'FP8 types this GPU has': supported, 'Reported by': 'Triton', ...node(context) },
        fix: 'On GPUs older than Ada (sm_89: V100, A100, RTX 30): an FP8 KV cache as --kv-cache-dtype fp8_e5m2 (not fp8 / fp8_e4m3), an FP8 checkpoint through a kernel that dequantises it (Marlin) or the same model in another quantization; or run on Ada or Hopper GPUs.',
      }
    },
  },
  {
    // vLLM's FlashInfer probe (vllm/utils/flashinfer.py flashinfer_jit_unsupported_reason, TOOLKIT_REASON "SM 12.x requires CUDA >= 12.9"), logged as
    // "Failed to get device capability: SM 12.x requires CUDA >= 12.9." during model load: the CUDA toolkit FlashInfer's JIT would use is older than
    // 12.9, which sm_120/sm_121 (RTX 50, RTX PRO 6000, GB10) need, so none of its kernels can be built for this GPU. vLLM falls back where another
    // backend serves (starts that complete print it twice: two DGX Spark notes found with find_string), and dies where a default path needs
    // FlashInfer (vllm-project/vllm#50705: sampler, fused MoE, FP8 KV). A warning: the failure, if any, is named by its own line.
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern: /\bSM (1\d)\.x requires CUDA >= (\d+(?:\.\d+)*)/,
    hit: (m, _line, _ray, context) => ({
      key: `flashinfer-toolkit:${m[1]}`,
      severity: 'warning',
      message: `FlashInfer cannot build its kernels for this GPU (SM ${m[1]}.x): the CUDA toolkit its JIT finds is older than ${m[2]}. vLLM falls back to another backend where it can; a path that needs FlashInfer (its sampler, a fused MoE or FP8 KV-cache kernel) fails at start-up.`,
      evidence: { 'GPU architecture': `SM ${m[1]}.x`, 'CUDA toolkit needed': `>= ${m[2]}`, 'Reported by': "vLLM's FlashInfer probe", ...node(context) },
      fix: `Use an image whose CUDA toolkit (nvcc and headers, not only the driver) is ${m[2]} or newer (a cu129/cu130 build of vLLM), or keep FlashInfer out of the engine's paths: --attention-backend FLASH_ATTN or TRITON_ATTN, VLLM_USE_FLASHINFER_SAMPLER=0.`,
    }),
  },
  {
    // vLLM's hybrid (Mamba / linear-attention) models (vllm/config/compilation.py, 0.2x on): "ValueError: max_num_seqs (1024) exceeds available Mamba cache
    // blocks (939). Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most 939 or
    // increase gpu_memory_utilization." (vllm-project/recipes#831, Qwen3.6 / Kimi K3 / GLM notes found with find_string): the state cache, not the KV
    // cache, caps concurrency, and vLLM's default --max-num-seqs is above it.
    code: 'KV_CACHE_CONCURRENCY',
    pattern: /max_num_seqs \((\d+)\) exceeds available Mamba cache blocks \((\d+)\)/,
    hit: (m, _line, _ray, context) => ({
      key: `mamba-blocks:${m[1]}/${m[2]}`,
      severity: 'error',
      message: `--max-num-seqs is ${m[1]} but this hybrid model's state cache holds ${m[2]} blocks, one per running sequence: vLLM refuses to capture CUDA graphs for more sequences than it can hold, and the start fails.`,
      evidence: { '--max-num-seqs': m[1]!, 'Mamba cache blocks': m[2]!, ...node(context) },
      fix: `Give vllm serve --max-num-seqs ${m[2]} or less (the model's state blocks cap concurrency, not the KV cache), or raise --gpu-memory-utilization so more blocks fit.`,
    }),
  },
  {
    // vLLM's own checks of an optional package's version (model_executor/layers/quantization and model_loader): "ImportError: bitsandbytes version is
    // wrong. Please install bitsandbytes>=0.46.1." and "Please install bitsandbytes>=0.46.1 via `pip install bitsandbytes>=0.46.1` to use bitsandbytes
    // quantizer." (kserve/kserve#4875: KServe's image with an older bitsandbytes than its vLLM needs), bitblas's "bitblas version is wrong. Please install
    // bitblas>=…": the image's package is older than this vLLM release asks for.
    code: 'VERSION_SKEW',
    pattern: /\b([A-Za-z][\w.-]*) version is wrong\. Please install \1>=\s*([\d.]+)|\bPlease install ([A-Za-z][\w.-]*)>=\s*([\d.]+) via `pip install/,
    hit: (m, _line, _ray, context) => {
      const pkg = m[1] ?? m[3]!
      const want = (m[2] ?? m[4]!).replace(/\.$/, '')
      return {
        key: `package:${pkg}`,
        severity: 'error',
        message: `vLLM needs ${pkg} ${want} or newer and the image has an older one (or none): the image's packages are not the ones this vLLM release was built against.`,
        evidence: { Package: pkg, 'vLLM needs': `>= ${want}`, ...node(context) },
        fix: `Install ${pkg}>=${want} in the image every node runs (pip install '${pkg}>=${want}', then rebuild and push it by digest), or use an image whose vLLM and ${pkg} were released together.`,
      }
    },
  },
  {
    // ptxas refusing a PTX instruction the target architecture lacks (CUDA 11–13 ptxas: "ptxas <file>.ptx, line N; error   : Feature '<f>' not
    // supported on .target 'sm_121a'", "… Instruction '<i>' not supported on .target 'sm_120'", "… Feature '<f>' requires .target sm_90 or
    // higher", "Modifier '<m>' requires …"): a kernel written for another architecture, assembled for this one — Triton's JIT at the first
    // call (triton.runtime.errors.PTXASError above it: vllm-project/vllm#41477, gpt-oss's MXFP4 MoE kernel's TMA scatter on a GB10), or a build
    // for an architecture the kernel's code does not cover (InternLM/lmdeploy#3806 `tensormap.replace` on sm_120, pytorch/FBGEMM#4975
    // `cvt with .e2m1x2` on sm_120, antirez/ds4#672 `.kind::mxf4` on sm_120; sm_75 on a V100's sm_70 in DeepLink-org/3DGSTensorCore#2).
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern: /\berror\s*:\s*(Feature|Instruction|Modifier) '([^'\n]{1,80})' (?:not supported on \.target '(sm_\w+)'|requires \.target (sm_\w+) or higher)/,
    hit: (m, _line, _ray, context) => ({
      key: `ptx-feature:${m[3] ?? m[4]}`,
      severity: 'error',
      message: m[3]
        ? `A kernel uses the PTX ${m[1]!.toLowerCase()} '${m[2]}', which ${m[3]} does not have, so ptxas refused to assemble it: the kernel was written for another GPU architecture (Hopper or datacenter Blackwell features on a GB10 or RTX 50, sm_12x), and the engine cannot run it here.`
        : `A kernel uses the PTX ${m[1]!.toLowerCase()} '${m[2]}', which needs ${m[4]} or newer, so ptxas refused to assemble it for an older GPU: the engine cannot run that kernel here.`,
      evidence: {
        [`PTX ${m[1]!.toLowerCase()}`]: m[2]!,
        ...(m[3] ? { 'Target architecture': m[3] } : { 'Needs at least': m[4]! }),
        'Reported by': 'ptxas',
        ...node(context),
      },
      fix: `Pick a path whose kernels exist for this architecture: another backend for the layer that JIT-compiles it (for MoE and quantised GEMMs a vLLM --moe-backend / VLLM_USE_* switch or another quantisation; for attention VLLM_ATTENTION_BACKEND), an image built for ${m[3] ?? 'this GPU'} (its kernels compiled with that architecture's own code paths), or a GPU that has the ${m[1]!.toLowerCase()}.`,
    }),
  },
  {
    // A kernel library's own refusal of the GPU, raised when the model first calls it: DeepGEMM (csrc/utils/exception.hpp DGException, thrown by
    // DG_HOST_UNREACHABLE("Unsupported architecture") in csrc/apis/{gemm,attention,hyperconnection,layout,mega}.hpp when arch_major is not one it
    // has kernels for: "Assertion error (<file>:<line>): Unsupported architecture", behind RuntimeError or tvm.error.InternalError), FlashAttention's
    // TORCH_CHECKs (csrc/flash_attn/flash_api.cpp "FlashAttention only supports Ampere GPUs or newer.", hopper/flash_api.cpp "FlashAttention-3 only
    // supports Hopper GPUs or newer."). Captures: vllm-project/vllm#40851 (A800, sm_80), #40778 (L20), sgl-project/sglang#25877 (sm_120).
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern:
      /Assertion error \(([^()\s]*?([\w-]+\.(?:hpp|h|cuh|cu|cpp)):\d+)\): Unsupported architecture|\b(Flash ?Attention(?:-\d)?|[A-Z][\w-]*) only supports (Ampere|Hopper|Blackwell|Ada|Turing|Volta) GPUs or newer/,
    hit: (m, line, _ray, context) => {
      // An INFO/DEBUG record that says so is a choice being logged (a backend skipped on a healthy start), not the refusal
      if (infoRecord(line, m.index)) return null
      const deepgemm = m[1] !== undefined
      const library = deepgemm ? (/deep_?gemm/i.test(m[1]!) || /\/csrc\/apis\//.test(m[1]!) ? 'DeepGEMM' : 'a kernel library') : m[3]!
      const needs = deepgemm
        ? undefined
        : `${m[4]} (${{ Volta: 'sm_70', Turing: 'sm_75', Ampere: 'sm_80', Ada: 'sm_89', Hopper: 'sm_90', Blackwell: 'sm_100' }[m[4]!]}) or newer`
      return {
        key: `kernel-arch:${library}:${m[2] ?? m[4]}`,
        severity: warningRecord(line, m.index) ? 'warning' : 'error',
        message: deepgemm
          ? `${library} has no kernel for this GPU's architecture (${m[2]} refused it), so the model's first call into it fails and the engine cannot start: the image (or the model's kernels) does not support this GPU.`
          : `${library} needs a GPU of ${needs}; this GPU is older, so the engine cannot run it.`,
        evidence: {
          'Kernel library': library,
          ...(deepgemm ? { 'Refused at': m[1]! } : { 'Needs (compute capability)': needs! }),
          ...node(context),
        },
        fix: deepgemm
          ? "Run this model on GPUs DeepGEMM has kernels for (its dispatch covers compute capability 9.x and 10.x, and 12.x only in builds that carry the sm120 kernels: check the image's DeepGEMM revision), pin an image whose DeepGEMM includes your architecture, or, where the model has another path, turn DeepGEMM off (VLLM_USE_DEEP_GEMM=0); --enforce-eager does not avoid it."
          : `Pick an attention backend that supports this GPU (VLLM_ATTENTION_BACKEND=TRITON_ATTN or FLEX_ATTENTION in vLLM, attn_implementation="sdpa" in transformers), or run on GPUs of ${needs}.`,
      }
    },
  },
  {
    // vLLM's attention selector finding no backend (platforms/cuda.py get_valid_backends, 0.12 on; the reasons per backend from 0.13): "ValueError:
    // No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, dtype=torch.bfloat16, kv_cache_dtype=auto, …,
    // use_mla=True, has_sink=False, use_sparse=True, …). Reasons: {FLASH_ATTN_MLA: [sparse not supported, compute capability not supported, …],
    // FLASHMLA: [… FlashMLA Sparse is only supported on Hopper and Blackwell devices.], …}." Where a backend refuses the GPU's compute capability,
    // the model's attention (MLA, sparse MLA) has no kernel for this GPU: DeepSeek-V3.2 on RTX PRO 6000 sm_120 (vllm-project/vllm#31480, held-out
    // batch 71), GLM-5 on sm_120 (a deployment note, 2026), GLM-5.2 (a load smoke log, 2026). Reasons with no compute capability (a KV-cache dtype,
    // non-causal attention for a drafter) are another cause: left to the failure lines. Not vLLM's "Some attention backends are not valid …"
    // (logged at INFO or DEBUG on healthy starts).
    code: 'GPU_ARCH_UNSUPPORTED',
    // (A paste cut inside the reasons, or wrapped by hand, keeps what it has: the reasons up to the line's end.)
    pattern: /No valid attention backend found for (\w+) with AttentionSelectorConfig\(([^)]*)\)\.?(?: Reasons: \{(.*?)(?:\}\.?\s*$|$))?/,
    hit: (m, _line, _ray, context) => {
      const reasons = m[3] ?? ''
      if (!/compute capability not supported|only supported on (?:Hopper|Blackwell|Ampere|Ada)/.test(reasons)) return null
      const refusing = [...reasons.matchAll(/(\w+): \[([^\]]*)\]/g)]
        .filter((r) => /compute capability not supported|only supported on/.test(r[2]!))
        .map((r) => r[1]!)
      const field = (name: string) => new RegExp(`\\b${name}=([\\w.]+)`).exec(m[2]!)?.[1]
      const kind = field('use_mla') === 'True' ? (field('use_sparse') === 'True' ? 'sparse MLA' : 'MLA') : 'attention'
      return {
        key: `attn-arch:${kind}`,
        severity: 'error',
        message: `No attention backend of this vLLM runs the model's ${kind} on this GPU: ${refusing.join(', ')} refused its compute capability and the others lack what the model needs, so the engine cannot build its attention layers.`,
        evidence: {
          'Attention needed': kind,
          ...(field('head_size') ? { 'Head size': field('head_size')! } : {}),
          ...(field('kv_cache_dtype') ? { 'KV cache dtype': field('kv_cache_dtype')! } : {}),
          'Backends refusing the compute capability': refusing.join(', '),
          ...node(context),
        },
        fix: `Run the model on GPUs its ${kind} kernels exist for (vLLM's MLA backends cover Hopper sm_90 and datacenter Blackwell sm_100; sm_120/121 — RTX PRO 6000, RTX 50, GB10 — only in releases or forks that add a backend for them: check the model's vLLM recipe for your GPU), or an image whose vLLM has one; --attention-backend picks one explicitly once it exists.`,
      }
    },
  },
  {
    // A kernel path's own refusal of the GPU, by its architecture's name (vLLM and its kernel packages, 2025–2026): "NotImplementedError: DeepGEMM
    // MegaMoE requires SM100 GPUs.", "use_fp4_indexer_cache requires Blackwell datacenter GPUs (sm_10x, e.g. B200/GB200); sm_120 (consumer
    // Blackwell) and earlier architectures are not supported." (vllm-project/recipes PR #760, held-out batch 71), "FlashMLA Sparse is only supported
    // on Hopper and Blackwell devices." (later "… Hopper and Blackwell DC devices."), cuDNN frontend's "IndexerTopK requires SM100+ compute
    // capability, found SM12". Not an INFO/DEBUG record (a choice logged on a healthy start), and not vLLM's attention selector listing
    // every backend's reasons (the rule above reads that).
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern:
      /\b([A-Z][\w -]{1,40}?|[a-z_]\w{2,40}) (?:requires? (?:an? )?((?:SM ?|sm_)\d{2,3}\w*\+?|(?:Hopper|Blackwell|Ampere|Ada|Turing|Volta)(?: datacenter| data center| consumer)?)(?:[ -]family)? (?:GPUs?|devices?|compute capability)|(?:is )?only supported on ((?:Hopper|Blackwell|Ampere|Ada)(?: and (?:Hopper|Blackwell|Ampere|Ada))*)(?: DC| datacenter| data center)? (?:GPUs|devices))/,
    hit: (m, line, _ray, context) => {
      if (infoRecord(line, m.index) || /attention backends are not valid|No valid attention backend found/.test(line)) return null
      const needs = (m[2] ?? m[3])!
      return {
        key: `kernel-needs:${m[1]!.trim()}:${needs}`,
        severity: warningRecord(line, m.index) ? 'warning' : 'error',
        message: `${m[1]!.trim()} runs only on ${needs} GPUs, and this GPU is not one: the option or model path that uses it cannot start here.`,
        evidence: { 'Refused by': m[1]!.trim(), Needs: needs, ...node(context) },
        fix: `Drop the option that selects ${m[1]!.trim()} for this GPU (the model's recipe often has a per-GPU override: a MoE backend, an indexer or KV-cache dtype, an attention backend), or run on ${needs} GPUs.`,
      }
    },
  },
  {
    // A kernel's own architecture guard, printed on the GPU when a kernel built for other architectures is launched, then a trap (the launch
    // fails: "cudaErrorLaunchFailure: unspecified launch failure"): vLLM's CUTLASS wrappers (csrc/cutlass_extensions/common.hpp, 0.1x to 0.2x:
    // enable_sm100f_only `printf("This kernel only supports sm100f.\n"); asm("trap;")`, also "sm100a.", "sm120." — "sm120a." in later trees —,
    // "sm >= 90.", "sm[100, 120)."), DeepGEMM's DG_DEVICE_ASSERT(false and "This kernel only supports sm_100f") (also "sm_90",
    // "sm_100f / sm_103f", "SM100-family GPUs") and FlashMLA's CUTE_INVALID_CONTROL_PATH("This kernel only supports sm90"), both printed inside
    // the device assert's quoted condition. The guard is exact: GB10 (sm_121) fails vLLM's sm120-only FP8 GEMM (eugr/spark-vllm-docker#143),
    // Thor (sm_110) its sm100f-only one (vllm-project/vllm PR #39712). A line of its own, or the assert's quote: not a source line that prints it.
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern: /(?:^\s*|["`])This kernel only supports ((?:sm|SM)[\w ,[\]()>=/.-]*?)\.?(?:["`]|\s*$)/,
    hit: (m, line, _ray, context) => {
      if (/\bprintf\s*\(|\bDG_DEVICE_ASSERT\s*\(|\bCUTE_INVALID_CONTROL_PATH\s*\(/.test(line)) return null
      const built = m[1]!.trim()
      return {
        key: `kernel-guard:${built}`,
        severity: 'error',
        message: `A kernel in the image was built only for ${built} and refused this GPU ("This kernel only supports ${built}"): its guard traps on any other architecture, so every launch of it fails (an "unspecified launch failure" follows) and the engine cannot start on this GPU with this image.`,
        evidence: { 'Kernel built for': built, 'Guard line': line.trim().slice(0, 200), ...node(context) },
        fix: `Use an image whose kernels cover this GPU's architecture, not only ${built}: for GB10/DGX Spark (sm_121) a vLLM whose CUTLASS FP8 kernels use the sm12x family guard (enable_sm120_family) or a spark-specific build, for Thor (sm_110) a vLLM with FP8 enabled on SM110 (PR #39712); the same image on every node. Until then, keep that kernel out of the path: VLLM_DISABLED_KERNELS=CutlassFP8ScaledMMLinearKernel (vLLM's FP8 linear kernels; another kernel is picked where one fits), or a checkpoint in a quantization this image supports on the GPU.`,
      }
    },
  },
  {
    // transformers (models/auto/configuration_auto.py): "The checkpoint you are trying to load has model type `qwen3_next` but Transformers does not
    // recognize this architecture." (also cut after the type, or after its "but", where a page wrapped the rest: cylon-local-infra's wiki, 2026; gemma-forge's journal, 2026); vLLM ≤ 0.10 (model_executor/models/registry.py): "Model architectures ['X'] are not supported for now.";
    // vLLM ≥ 0.8 (registry.py, via pydantic in ≥ 0.10): "Model architectures ['X'] failed to be inspected. Please check the logs for more details.";
    // vLLM ≥ 0.7 (transformers fallback): "X has no vLLM implementation and the Transformers implementation is not compatible with vLLM.";
    // vLLM's GGUF loader: "GGUF model with architecture deci is not supported yet." (vllm-project/vllm#16905)
    code: 'MODEL_NOT_SUPPORTED',
    pattern:
      /has model type(?: [`'"]?([\w.-]+)[`'"]?)?(?: but Transformers does not recognize this architecture|(?: but)?\s*$)|Model architectures (\[[^\]]*\]) are not supported for now|Model architectures (\[[^\]]*\]) failed to be inspected|( has no vLLM implementation and the Transformers implementation is not compatible with vLLM)|GGUF model with architecture ([\w.-]+) is not supported yet/,
    // (The class before "has no vLLM implementation" is read here: a pattern starting with a character class is scanned at every position.)
    hit: (m, line, _ray, context) => {
      // transformers' sentence cut after the model type (a page wrapped the rest onto the next line): only with its own opening words
      if (m[0].startsWith('has model type') && !m[0].includes('Transformers')) {
        // cut after the type, or before it (a hand wrap: "… has model type" / "`gemma4` but Transformers …", gemma-forge's journal, 2026)
        if (!/The checkpoint you are trying to load $/.test(line.slice(0, m.index))) return null
        if (m[1] === undefined) return modelHit('(named on the next line of the log)', undefined, false, context)
      }
      if (m[4] === undefined) return modelHit(m[1], m[2] ?? m[3] ?? m[5], m[3] !== undefined, context)
      const cls = /(\w+)$/.exec(line.slice(Math.max(0, m.index - 200), m.index))?.[1]
      return cls === undefined ? null : modelHit(undefined, cls, false, context)
    },
  },
  {
    // transformers' own lookup of the model type, before its sentence (models/auto/configuration_auto.py, 4.x–5.x: from_pretrained's
    // `config_class = CONFIG_MAPPING[config_dict["model_type"]]`, _LazyConfigMapping.__getitem__'s `raise KeyError(key)`): a traceback whose
    // innermost frames are configuration_auto.py's, ending in "KeyError: 'glm_moe_dsa'" (zai-org/GLM-5#22, 2026: an SGLang image whose
    // transformers predates GLM-5; the ValueError naming the type follows only "During handling of the above exception", often cut from a paste).
    // Every frame line is read: a frame of another file after configuration_auto.py's forgets it.
    code: 'MODEL_NOT_SUPPORTED',
    pattern: /^\s*File "([^"]*)", line \d+, in |^\s*KeyError: '([\w.-]+)'\s*$/,
    hit: (m, _line, _ray, context) => {
      if (m[1] !== undefined) {
        if (m[1].endsWith('/transformers/models/auto/configuration_auto.py')) context.memory?.set('autoConfigFrame', m[1])
        else context.memory?.delete('autoConfigFrame')
        return null
      }
      if (!context.memory?.has('autoConfigFrame')) return null
      context.memory.delete('autoConfigFrame')
      return modelHit(m[2], undefined, false, context)
    },
  },
  {
    // transformers' config validation of `layer_types` (configuration_utils.py layer_type_validation, 4.5x: "The `layer_types` entries must be
    // in {ALLOWED_LAYER_TYPES}"; 5.x, a strict dataclass validator `validate_layer_type` under huggingface_hub's
    // StrictDataclassClassValidationError, the same sentence with "but got [...]"): the checkpoint's config names a kind of layer this
    // transformers does not know, so the config of a model newer than the image's transformers cannot be built (coreweave/ml-containers#206,
    // 2026: GLM-5.2's 'deepseek_sparse_attention' under transformers 5.9).
    code: 'MODEL_NOT_SUPPORTED',
    pattern: /The `layer_types` entries must be in\b(?:.*?\bbut got (\[[^\]]*\]?))?/,
    hit: (m, _line, _ray, context) => {
      const got = m[1]
        ?.replace(/,?\s*\.\.\.\s*\]?$|\]$/, '')
        .replace(/^\[/, '')
        .trim()
      return {
        key: `layer-types:${got ?? ''}`,
        severity: 'error',
        message: `The image's transformers does not know a kind of layer the checkpoint's config.json names${got ? ` (${got})` : ''}: the model is newer than this transformers, so its config cannot be built and the model never loads.`,
        evidence: { ...(got ? { 'Layer types the config names': got } : {}), ...node(context) },
        fix: "Use an image whose transformers is at least the version the model card asks for (the transformers_version in the checkpoint's config.json), or install it into the image (pip install -U transformers, then check vLLM still imports), the same on every node; --trust-remote-code does not teach transformers' own config validation a new layer type.",
      }
    },
  },
  {
    // argparse (vLLM's FlexibleArgumentParser): "vllm serve: error: argument --kv-cache-dtype: invalid choice: 'fp8_e4m3' (choose from …)",
    // "error: ambiguous option: --max-num could match --max-num-batched-tokens, --max-num-seqs".
    code: 'VLLM_FLAG_UNKNOWN',
    pattern: /error: argument ((?:-[\w-]+)(?:\/-+[\w-]+)*): invalid choice: '([^']*)'|error: ambiguous option: (--[\w-]+)(?:=\S*)? could match (.+?)\s*$/,
    hit: (m, line, _ray, context) => {
      const flag = m[1] ?? m[3] ?? '?'
      const choices = /\(choose from (.+?)\)\s*$/.exec(line)?.[1]
      return {
        key: `${flag}:${m[2] ?? ''}`,
        severity: 'error',
        message: m[1]
          ? `The image's vLLM refused the value '${m[2]}' of ${flag}: its version does not offer that choice, so vLLM never started.`
          : `The flag ${flag} is an abbreviation that matches several flags of the image's vLLM (${m[4]}), so vLLM never started.`,
        evidence: {
          Flag: flag,
          ...(m[2] !== undefined ? { Value: m[2] } : {}),
          ...(choices ? { 'Choices this version offers': choices.slice(0, 200) } : {}),
          ...node(context),
        },
        fix: m[1]
          ? `Give ${flag} one of the values the image's vLLM lists (docker run --rm <image> vllm serve --help | grep -A3 -e ${flag}), or pin an image whose vLLM has '${m[2]}'.`
          : `Spell the flag out in full (vllm serve --help lists them); newer vLLM versions add flags that make a short prefix ambiguous.`,
      }
    },
  },
  {
    // A value the image's vLLM refuses after the flags parsed: vLLM ≥ 0.11's attention-backend registry (attention/backends/registry.py,
    // AttentionBackendEnum lookup of --attention-backend or VLLM_ATTENTION_BACKEND): "ValueError: Unknown attention backend: 'ASCEND'. Valid
    // options are: FLASH_ATTN, …" (vllm-ascend#4197), inside pydantic as "Value error, Unknown attention backend: 'B12X_MLA_SPARSE'. Valid
    // options are: …"; pydantic's literal check of a config field (vLLM ≥ 0.9 configs are pydantic dataclasses): "Input should be 'auto',
    // 'cuda', … or 'hpu' [type=literal_error, input_value='npu', input_type=str]" (vllm PR #18872); a backend oracle refusing the value for a
    // layer it does not fit (model_executor/layers/fused_moe/oracle/unquantized.py map_unquantized_backend, 2026): "ValueError:
    // moe_backend='marlin' is not supported for unquantized MoE. Expected one of ['triton', …]" (an unquantized MTP drafter under a global
    // --moe-backend; sfxnz and DGX Spark notes in the code index, 2026).
    code: 'VLLM_FLAG_UNKNOWN',
    pattern:
      /Unknown attention backend:? '([^']+)'\.?(?: Valid options are:? (.*))?|Input should be ((?:'[^']*'(?:, | or )?)+) \[type=literal_error, input_value='([^']*)'|\b(\w+_backend)='([^']*)' is not supported for ([^.]{1,80}?)(?:\.(?:\s*Expected one of (\[[^\]]*\]))?|\s*$)/,
    hit: (m, _line, _ray, context) => {
      const attention = m[1] !== undefined
      const oracle = m[5] !== undefined
      const value = m[1] ?? m[4] ?? m[6] ?? '?'
      const choices = (attention ? m[2] : oracle ? m[8] : m[3])?.trim().slice(0, 240)
      const setting = attention
        ? '--attention-backend (or VLLM_ATTENTION_BACKEND)'
        : oracle
          ? `--${m[5]!.replace(/_/g, '-')} (${m[5]} for ${m[7]})`
          : 'a config value'
      return {
        key: `value:${value}`,
        severity: 'error',
        message: oracle
          ? `The image's vLLM refused ${m[5]}='${value}' for ${m[7]}: that backend does not run those layers (a global --${m[5]!.replace(/_/g, '-')} also reaches a drafter's or another layer's MoE that is not quantized), so vLLM never started.`
          : `The image's vLLM refused ${attention ? 'the attention backend' : 'the value'} '${value}'${attention ? '' : ' of a config field'}: its version does not offer it (renamed, removed, or not yet there), so vLLM never started.`,
        evidence: {
          Setting: setting,
          Value: value,
          ...(choices ? { 'Choices this version offers': choices } : {}),
          ...node(context),
        },
        fix: oracle
          ? `Pick one of the backends it lists for those layers, or leave --${m[5]!.replace(/_/g, '-')} to vLLM (auto); for a speculative drafter whose MoE is not quantized, set its own moe_backend inside --speculative-config instead of the global flag.`
          : attention
            ? `Pick one of the backends this image lists (or drop --attention-backend and VLLM_ATTENTION_BACKEND so vLLM chooses), or pin the image your recipe was written for: an image refreshed under the same tag can rename backends ('${value}').`
            : `Give the field one of the values this image's vLLM lists, or pin the image the settings were written for (vllm serve --help names each flag's choices).`,
      }
    },
  },
  {
    // vLLM (executor/ray_utils.py assert_ray_available): "Failed to import Ray: <err>.Please install Ray with `pip install ray`." (0.8+),
    // "Failed to import Ray, please install Ray with `pip install ray`." (0.2–0.7). The import warning "Failed to import Ray with …" is logged on
    // healthy mp starts too and is not read here.
    code: 'IMAGE_LACKS_RAY',
    pattern: /Failed to import Ray(?::\s*(.*?)\.\s*Please install Ray|, please install Ray)/,
    hit: (m, _line, _ray, context) => ({
      key: 'ray',
      severity: 'error',
      message: `vLLM's Ray executor could not import Ray${m[1] ? ` (${m[1].slice(0, 160)})` : ''}${context.prefixIp ? ` on ${context.prefixIp}` : ''}, so a multi-node start cannot begin.`,
      evidence: { Missing: 'ray (the package)', ...(m[1] ? { 'Import error': m[1].slice(0, 200) } : {}), ...node(context) },
      fix: "Use an image with Ray installed, the same version on every node (pip install 'ray[default]==<the cluster's version>' in the image; vllm/vllm-openai ships it), run vLLM from that image's Python environment, or deploy with the mp executor, which needs no Ray.",
    }),
  },
  {
    // Ray (_private/services.py canonicalize_bootstrap_address / find_gcs_addresses): "ConnectionError: Could not find any running Ray instance. Please
    // specify the one to connect to by setting `--address` flag or `RAY_ADDRESS` environment variable." (older: "… by setting `address`.");
    // worker.py: "RaySystemError: System error: Ray has not been started yet. You can start Ray with 'ray.init()'."
    code: 'RAY_UNAVAILABLE',
    pattern: /Could not find any running Ray instance|Ray has not been started yet/,
    hit: (_m, _line, _ray, context) => ({
      key: 'no-ray-instance',
      severity: 'error',
      message: `No Ray cluster was running where this process looked for one${context.prefixIp ? ` (${context.prefixIp})` : ''} (address "auto" or RAY_ADDRESS found no GCS), so the Ray executor cannot start.`,
      evidence: { 'Ray asked for': 'a running cluster (address=auto / RAY_ADDRESS)', ...node(context) },
      fix: 'Start Ray first in the same container as vllm serve (ray start --head --node-ip-address=<fabric ip> on the head, ray start --address=<head fabric ip>:6379 on the workers) and check `ray status` there; run vllm serve in the head container, or set RAY_ADDRESS=<head fabric ip>:6379 for it.',
    }),
  },
  {
    // Ray (_private/node.py _wait_and_get_for_node_address, every 10 s until its timeout): "Can't find a `node_ip_address.json` file from
    // /tmp/ray/session_…. Have you started Ray instance using `ray start` or `ray.init`?" — a driver that attached to a cluster (RAY_ADDRESS, an
    // address given) waits for the Ray node of its own machine, and this machine runs none: vllm serve on a host that never joined the cluster
    // (vllm-project/vllm#14349, a third machine), or a container that does not share the node's /tmp/ray. A warning while Ray waits.
    code: 'RAY_UNAVAILABLE',
    // Ray 2.7–2.8 spelled it "instsance"; at the timeout it raises "ValueError: Can't find a `node_ip_address.json` file from /tmp/ray/session_….
    // for 60 seconds. A ray instance hasn't started. Did you do `ray start` or `ray.init` on this host?" (ray-project/ray#56076), an error.
    pattern:
      /Can't find a `?node_ip_address\.json`? file from (\S+?)\.? (?:Have you started Ray insts?ance using|(for \d+ seconds)\. A ray instance hasn't started)/,
    hit: (m, _line, _ray, context) => ({
      key: m[2] ? 'no-local-ray-node:timeout' : 'no-local-ray-node',
      severity: m[2] ? 'error' : 'warning',
      message: `This process attached to a Ray cluster but finds no Ray node of its own machine${context.prefixIp ? ` (${context.prefixIp})` : ''} (none runs here, or its session file was deleted): Ray waits for the local node's node_ip_address.json under ${m[1]}, which only a ray start on this machine (or in this container) writes${m[2] ? `; it gave up after ${m[2].replace(/^for /, '')}` : ', and gives up at its timeout'}.`,
      evidence: {
        'Session folder': m[1]!,
        'Ray waits for': 'node_ip_address.json (the local Ray node)',
        ...(m[2] ? { 'Gave up after': m[2].replace(/^for /, '') } : {}),
        ...node(context),
      },
      fix: "Run vllm serve on a machine of the cluster: in the Ray head's container after ray start (or on a worker that ran ray start --address=<head>:6379), not on a host outside it; a container on a Ray node must share that node's /tmp/ray (its --temp-dir) with the container ray start ran in. Where the node runs and the file was deleted from its session folder, restart that node's Ray (ray stop; ray start …).",
    }),
  },
  {
    // The Kubernetes scheduler placing no node for the pod (pkg/scheduler framework: "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.
    // preemption: …"), as the FailedScheduling event or the scheduler's own klog record ("Unable to schedule pod; no fit; waiting" … err="0/4 nodes
    // are available: 4 Insufficient nvidia.com/gpu.memory…", Project-HAMi/HAMi#1069, held-out batch 159: a GPU-sharing scheduler's resource). A warning:
    // a pod that waits for a node an autoscaler adds is a healthy start's (Karpenter, cluster autoscaler); a pod that stays Pending never starts.
    code: 'GPU_SHORTFALL',
    pattern: /\b(\d+)\/(\d+) nodes are available: (?:[^"\n]*?\b)?(\d+) Insufficient ((?:nvidia|amd)\.com\/gpu[\w.-]*|[\w.-]+\/(?:gpu|npu|neuron)[\w.-]*)/,
    hit: (m, _line, _ray, context) => {
      const resource = m[4]!.replace(/\.+$/, '')
      return {
        key: `k8s-insufficient:${resource}`,
        severity: 'warning',
        message: `The Kubernetes scheduler found no node for the pod: ${m[3]} of ${m[2]} nodes lack the ${resource} it asks for, so it stays Pending until a node with them joins or frees them.`,
        evidence: { 'Nodes available': `${m[1]} of ${m[2]}`, 'Resource short': resource, 'Nodes short of it': m[3]!, ...node(context) },
        fix: `Compare the pod's ${resource} request with what each node offers (kubectl describe node: Allocatable, and what other pods hold); stop pods holding the GPUs, lower the request (fewer GPUs per pod, or a smaller share where a GPU-sharing scheduler counts memory), or add a node (an autoscaler's GPU node group); check the device plugin runs on every GPU node.`,
      }
    },
  },
  {
    // Ray (python/ray/util/placement_group.py, check_placement_group_index): "ValueError: placement group bundle index 8 is invalid. Valid placement
    // group indexes: 0-2": a worker was asked onto a bundle the group lacks. vLLM's Ray executor puts its workers on bundles 0 … TP×PP-1 of the
    // placement group it runs in (the current one when a framework starts vLLM inside its own: OpenRLHF's hybrid engine, PR #728; gpustack's
    // distributed vLLM, gpustack/gpustack#2500 and #2547), so that group holds fewer GPU bundles than the engine's world size.
    code: 'GPU_SHORTFALL',
    pattern: /placement group bundle index (\d+) is invalid\. Valid placement group indexes: 0-(\d+)/,
    hit: (m, _line, _ray, context) => ({
      key: `bundle-index:${m[1]}`,
      severity: 'error',
      message: `A worker was asked onto bundle ${m[1]} of a Ray placement group that has ${Number(m[2]) + 1} bundles: the group vLLM's workers run in (one a framework made and started vLLM inside, or the engine's own) holds fewer GPU bundles than tensor × pipeline parallel needs.`,
      evidence: { 'Bundle asked for': m[1]!, 'Bundles in the group': String(Number(m[2]) + 1), ...node(context) },
      fix: "Size the placement group vLLM runs in for every engine's tensor × pipeline parallel GPUs (one bundle per GPU, in the framework's settings: its node and GPU counts against engines × TP), or lower --tensor-parallel-size / --pipeline-parallel-size to what the group holds; check the cluster's GPUs with ray status.",
    }),
  },
  {
    // vLLM (executor/ray_utils.py): "Started a local Ray instance." — vLLM found no cluster to join and made its own (kept for the next rules;
    // after vLLM's own count of this node's GPUs against the world size, the shortfall itself).
    code: 'GPU_SHORTFALL',
    pattern: /Started a local Ray instance/,
    hit: (_m, _line, _ray, context) => {
      context.memory?.set('rayLocal', '1')
      const counted = context.memory?.get(LOCAL_GPUS_SHORT)
      return counted === undefined ? null : localInstanceShort(counted, context)
    },
  },
  {
    // vLLM (v1/executor/ray_utils.py initialize_ray_cluster, late 2025 on): "Tensor parallel size (16) exceeds available GPUs (1). This may result in Ray
    // placement group allocation failures. …", logged before ray.init from this node's own GPU count. On a cluster whose nodes each have fewer GPUs
    // than the world size it is what every healthy start prints (two DGX Sparks, one GPU each; vllm-project/vllm#31005), so alone it is nothing;
    // with the local Ray instance vLLM then starts (or started) it is the shortfall: that instance holds this node's GPUs only.
    code: 'GPU_SHORTFALL',
    pattern: /Tensor parallel size \((\d+)\) exceeds available GPUs \((\d+)\)/,
    hit: (m, _line, _ray, context) => {
      const counted = `${m[1]}/${m[2]}`
      context.memory?.set(LOCAL_GPUS_SHORT, counted)
      return context.memory?.get('rayLocal') === undefined ? null : localInstanceShort(counted, context)
    },
  },
  {
    // vLLM (executor/ray_utils.py initialize_ray_cluster): "The number of required GPUs exceeds the total number of available GPUs in the placement group."
    // (a WARNING in 0.4–0.11 before it waits for the group; raised as ValueError when a placement group is given), older (engine/ray_utils.py,
    // 0.1–0.2): "ValueError: The number of required GPUs exceeds the total number of available GPUs in the cluster."
    code: 'GPU_SHORTFALL',
    pattern: /The number of required GPUs exceeds the total number of available GPUs in the (placement group|cluster)/,
    hit: (m, line, _ray, context) => {
      const local = context.memory?.get('rayLocal') !== undefined
      // Raised (ValueError) it ends the start; logged (a WARNING, perhaps cut) vLLM goes on to wait for the group, which PLACEMENT_GROUP_PENDING
      // reports next: only worth a finding of its own when vLLM made its own Ray instance.
      const raised = /\b\w*Error:\s*$/.test(line.slice(0, m.index))
      if (!raised && !local) {
        // (the wait that follows, if it comes, is for GPUs the cluster lacks: the next rule says so beside PLACEMENT_GROUP_PENDING)
        context.memory?.set('gpusShort', m[1]!)
        return null
      }
      return {
        key: 'required-gpus',
        severity: raised ? 'error' : 'warning',
        message: local
          ? "vLLM started a Ray instance of its own (it found no cluster to join), so it sees only this node's GPUs, fewer than tensor × pipeline parallel needs."
          : `vLLM needs more GPUs (tensor × pipeline parallel) than the Ray ${m[1]} it runs in has, so the start waits for GPUs that are not there.`,
        evidence: {
          Compared: `world size vs the GPUs of the Ray ${m[1]}`,
          ...(local ? { 'Ray cluster': 'a local instance vLLM started itself ("Started a local Ray instance")' } : {}),
          ...node(context),
        },
        fix: local
          ? LOCAL_INSTANCE_FIX
          : 'Check `ray status`: every node must have joined with its GPUs (total ≥ TP × PP, with --gpus all and ray start --num-gpus on each) before vllm serve starts, or lower --tensor-parallel-size / --pipeline-parallel-size.',
      }
    },
  },
  {
    // The placement-group wait after vLLM's own "required GPUs exceeds" warning (above): vLLM waits for GPUs its Ray cluster does not have
    // (a node that never joined it, a node whose GPUs Ray was not given), not for an address to appear; a warning beside PLACEMENT_GROUP_PENDING,
    // which names the pin (vllm-project/aibrix#1510, 2025: a StormService's pods that never formed one Ray cluster, 16 GPU bundles waited for).
    // The warning alone, with no wait after it, stays nothing: vLLM logs it and waits on purpose while nodes may still join.
    code: 'GPU_SHORTFALL',
    pattern: /Waiting for creating an? (?:[\w]+ ){0,4}?(?:placement|group)(?: [\w]+){0,4}? of specs/,
    hit: (_m, line, _ray, context) => {
      const short = context.memory?.get('gpusShort')
      if (short === undefined) return null
      const bundles = /specs=\[(.*?)\]/.exec(line)?.[1]?.match(/'GPU': [\d.]+/g)?.length
      return {
        key: 'required-gpus',
        severity: 'warning',
        message: `vLLM logged that it needs more GPUs (tensor × pipeline parallel) than the Ray ${short} it runs in has, then waited for its placement group${bundles ? ` of ${bundles} GPU bundles` : ''}: the wait is for GPUs the cluster lacks, not for an address.`,
        evidence: {
          Compared: `world size vs the GPUs of the Ray ${short}`,
          ...(bundles ? { 'GPU bundles asked for': String(bundles) } : {}),
          ...node(context),
        },
        fix: 'Check `ray status` on the head: every node must have joined the same cluster with its GPUs (total ≥ TP × PP; --gpus all on the container and ray start --num-gpus on each node, the same Ray head address everywhere) before vllm serve starts, or lower --tensor-parallel-size / --pipeline-parallel-size.',
      }
    },
  },
  {
    // verl's resource check before it places its workers (verl/trainer/ppo/ray_trainer.py ResourcePoolManager._check_resource_available, and
    // the forks that copy it: "Total available GPUs {n} is less than total desired GPUs {m}", with or without a closing period): the Ray
    // cluster the driver joined has fewer GPUs than the job asks. Usually a node that never joined, or a driver that started or joined a
    // cluster of its own node only (verl-project/verl#3358; a two-node training note in the code index: "Ray 只认一个节点 → available GPUs 8.0 <
    // desired 16").
    code: 'GPU_SHORTFALL',
    pattern: /Total available GPUs (\d+(?:\.\d+)?) is less than total desired GPUs (\d+(?:\.\d+)?)/,
    hit: (m, _line, _ray, context) => ({
      key: `desired-gpus:${m[2]}`,
      severity: 'error',
      message: `The Ray cluster the job joined has ${m[1]} GPUs, fewer than the ${m[2]} it asks for, so it stopped before placing its workers: a node that never joined, or a driver on a cluster of its own node.`,
      evidence: { 'GPUs available to Ray': m[1]!, 'GPUs desired': m[2]!, ...node(context) },
      fix: "Run `ray status` where the driver runs: every node must be listed with its GPUs. Start the workers with ray start --address=<head fabric ip>:6379 (the head's own Ray, not a second local one; remove a stale /tmp/ray/ray_current_cluster), start the driver on the head or with RAY_ADDRESS=<head>:6379, or lower the GPUs per node × nodes the job asks for.",
    }),
  },
  {
    // vLLM's Ray data-parallel placement (v1/engine/utils.py CoreEngineActorManager, 0.10 on): "AssertionError: Not enough total available nodes (5)
    // and devices per node (4) to satisfy required world size 8 and data parallel size 3" — the Ray cluster's GPU nodes, by the GPUs of the
    // fullest, cannot hold every DP rank's world (a Slurm launcher's notes, 2026: the sixth node had not joined Ray yet when vLLM started); and
    // "No GPU found in Ray cluster." (no Ray node reports a GPU resource: Ray started without seeing the GPUs).
    code: 'GPU_SHORTFALL',
    pattern:
      /Not enough total available nodes \((\d+)\) and devices per node \((\d+)\)(?:\s+to satisfy required world size (\d+) and data parallel size (\d+))?|\bNo GPU found in Ray cluster\b/,
    hit: (m, _line, _ray, context): RuleHit => {
      if (m[1] === undefined)
        return {
          key: 'dp-no-gpu',
          severity: 'error',
          message: "vLLM's Ray data-parallel start found no GPU in the Ray cluster: no Ray node reports a GPU resource.",
          evidence: { 'GPUs in the Ray cluster': '0', ...node(context) },
          fix: 'Start Ray where it sees the GPUs (the container with --gpus all, or ray start --num-gpus=<n>); `ray status` must list GPU on every node before vllm serve starts.',
        }
      const [nodes, perNode] = [Number(m[1]), Number(m[2])]
      // (the sentence's second half, the world and DP sizes, where a paste kept it on the line)
      const needed = m[3] !== undefined ? { world: Number(m[3]), dp: Number(m[4]) } : undefined
      return {
        key: `dp-capacity:${nodes}x${perNode}`,
        severity: 'error',
        message: `vLLM's Ray data-parallel start needs ${needed ? `${needed.world * needed.dp} GPUs (world size ${needed.world} × data parallel ${needed.dp})` : 'more GPUs (world size × data parallel size)'}, and the Ray cluster offers ${nodes} node(s) of ${perNode} GPU(s): ${nodes * perNode}.`,
        evidence: {
          ...(needed ? { 'GPUs needed (world size × data parallel)': `${needed.world} × ${needed.dp} = ${needed.world * needed.dp}` } : {}),
          'Ray GPU nodes × GPUs per node': `${nodes} × ${perNode} = ${nodes * perNode}`,
          ...node(context),
        },
        fix: 'Wait until every node has joined Ray with its GPUs before vllm serve starts (`ray status`, or poll ray.nodes() for the node count the job was given), or lower --data-parallel-size / --tensor-parallel-size to what the cluster has.',
      }
    },
  },
  {
    // Ray (scripts.py, `ray start --address`): "ConnectionError: Unable to connect to GCS (ray head) at 10.0.0.1:6379. Check that (1) Ray with matching
    // version started successfully at the specified address, (2) this node can reach the specified address, and (3) there is no firewall setting …";
    // Ray Client (ray://): "ConnectionError: ray client connection timeout". Ray 2.0–2.9 without "(ray head)": "Unable to connect to GCS at
    // xx.xx.xx.xx:nnnn. Check that (1) Ray GCS with matching version started successfully at the specified address, and (2) there is no
    // firewall setting preventing access." (Ray's cluster FAQ, "What does a worker node failure to connect look like?").
    code: 'RAY_GCS_UNREACHABLE',
    pattern: /Unable to connect to GCS (?:\(ray head\) )?at (\S+?)\.?(?:\s|$)|ray client connection timeout/,
    hit: (m, _line, _ray, context) => ({
      key: `gcs:${m[1] ?? 'client'}`,
      severity: 'error',
      message: m[1]
        ? `This node could not reach the Ray head's GCS at ${m[1]}, so it never joined the cluster.`
        : 'The Ray Client (ray://) connection to the head timed out, so no cluster was joined.',
      evidence: { ...(m[1] ? { 'GCS address': m[1] } : { 'Ray Client': 'connection timeout (ray://…:10001)' }), ...node(context) },
      fix: `Check from this node: nc -zv ${m[1]?.replace(/:(\d+)$/, ' $1') ?? '<head> 10001'} (the fabric address the head was started with, --node-ip-address), the firewall for Ray's ports (6379, 8265, 10001 and the worker ports), and the same Ray version on both ends.`,
    }),
  },
  {
    // NCCL socket transport after setup (socket.cc, net_socket.cc 2.1x–2.28): "socketProgressOpt: Call to recv from 10.0.0.2<45678> failed : Connection reset
    // by peer", "Net : Connection closed by remote peer 10.0.0.2<53372>", "[Service thread] Error encountered progressing operation=Connect, res=3, closing
    // connection" (proxy.cc): a peer rank's connection broke (its process died, or the path between the nodes dropped).
    code: 'NCCL_TRANSPORT_ERROR',
    pattern:
      /Call to (?:recv|send) (?:from|to) (\S+?<\d+>) failed : ([^\n]+?)\s*$|Connection closed by remote peer (\S+?<\d+>)|\[Service thread\] Error encountered progressing operation=(\w+)/,
    hit: (m, _line, _ray, context) => {
      const peer = (m[1] ?? m[3])?.replace(/<(\d+)>$/, ':$1')
      return {
        key: `nccl-peer:${peer ?? m[4]}`,
        severity: 'error',
        message: `NCCL's connection${peer ? ` to ${peer}` : ''} broke${m[2] ? ` (${m[2]})` : ''}${m[4] ? ` while its proxy thread ran ${m[4]}` : ''}: that peer's process died first (read its node's log for the first error) or the path between the nodes dropped.`,
        evidence: { ...(peer ? { Peer: peer } : {}), ...(m[2] ? { Error: m[2] } : {}), ...(m[4] ? { 'Proxy operation': m[4] } : {}), ...node(context) },
        fix: `Read the peer's log at the same time for its own first error (an OOM or a crash closes its sockets); if it was alive, check the fabric between the nodes (ping -M do -s 8972 over NCCL_SOCKET_IFNAME, the same MTU on both ends, no firewall on NCCL's ports).`,
      }
    },
  },
  {
    // huggingface_hub (file_download.py): "OSError: Consistency check failed: file should be of size 4976698672 but has size 1234567
    // (model-00001-of-00004.safetensors)." — a download cut short; torch.load: "PytorchStreamReader failed reading zip archive: failed finding central
    // directory" (a truncated .bin/.pt); pickle: "UnpicklingError: invalid load key, 'v'." (a Git LFS pointer, "version https://git-lfs…", saved as weights).
    code: 'WEIGHTS_CORRUPT',
    pattern:
      /Consistency check failed: file should be of size (\d+) but has size (\d+)(?: \(([^)]+)\))?|PytorchStreamReader failed reading zip archive: ([^\n]+?)\s*$|UnpicklingError: invalid load key, '(v)'/,
    hit: (m, _line, _ray, context) => ({
      key: `corrupt:${m[3] ?? m[0].slice(0, 30)}`,
      severity: 'error',
      message: m[1]
        ? `A weights file${m[3] ? ` (${m[3]})` : ''} is ${m[2]} bytes where the hub says ${m[1]}: the download was cut short.`
        : m[4]
          ? `A PyTorch weights file is not a complete archive (${m[4]}): a download or copy cut short.`
          : 'A weights file is a Git LFS pointer ("version https://git-lfs…"), not the weights: it was cloned without git lfs.',
      evidence: {
        ...(m[1] ? { 'Size expected': m[1], 'Size on disk': m[2]! } : {}),
        ...(m[3] ? { File: m[3] } : {}),
        ...(m[5] ? { 'First byte': "'v' (a Git LFS pointer)" } : {}),
        ...node(context),
      },
      fix: "Download the file again on that node (delete the partial copy and the *.incomplete files under the hub cache's blobs/ first; huggingface-cli download <repo> --revision <commit>; git lfs pull for a clone) and compare its size and sha256 with the hub's on every node.",
    }),
  },
  {
    // cuBLAS cannot allocate its workspace: "CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`" — the GPU is out of memory.
    code: 'GPU_OUT_OF_MEMORY',
    pattern: /CUBLAS_STATUS_ALLOC_FAILED(?: when calling `([^`]+)`)?/,
    hit: (m, _line, _ray, context) => ({
      key: 'cublas-alloc',
      severity: 'error',
      message: `cuBLAS could not allocate GPU memory${m[1] ? ` (${m[1]})` : ''}: the GPU is full (vLLM's share, another process, or on GB10 the unified memory the OS also uses).`,
      evidence: { Allocation: 'cuBLAS workspace (CUBLAS_STATUS_ALLOC_FAILED)', ...node(context) },
      fix: 'Lower --gpu-memory-utilization (on GB10 leave room for the OS: 0.8 or less), stop other GPU processes (nvidia-smi), or reduce --max-model-len / --max-num-seqs.',
    }),
  },
  {
    // Kubernetes (kubectl describe): "Reason: OOMKilled" with "Exit Code: 137"; docker inspect: "OOMKilled": true (false on every healthy container).
    code: 'OOM_KILLED',
    pattern: /\bReason:\s*OOMKilled\b|"OOMKilled"\s*:\s*true\b|\bOOMKilled\b(?!["']?\s*[:=]\s*false)(?=[\s,.)]|$)/,
    hit: (_m, _line, _ray, context) => ({
      key: 'oomkilled',
      severity: 'error',
      message: `The container was killed by the kernel's OOM killer (OOMKilled, exit 137)${context.prefixIp ? ` on ${context.prefixIp}` : ''}: it used more memory than its limit or the node had.`,
      evidence: { 'Killed by': 'the OOM killer (OOMKilled)', 'Exit code': '137', ...node(context) },
      fix: "Raise the container's memory limit (k8s resources.limits.memory, docker --memory) or lower what vLLM uses on the host (--swap-space, --cpu-offload-gb, the number of API servers); on GB10 CPU and GPU share one memory, so lower --gpu-memory-utilization too.",
    }),
  },
  {
    // Ray (services.py, `ray start`): "ValueError: Ray component worker_ports is trying to use a port number 10002 that is used by other components.";
    // "ConnectionError: Ray is trying to start at 10.0.0.1:6379, but is already running at 10.0.0.1:6379. Please specify a different port …" (a Ray
    // left running on the node by an earlier start).
    code: 'PORT_IN_USE',
    pattern:
      /Ray component (\w+) is trying to use a port number (\d+) that is used by other components|Ray is trying to start at (\S+?), but is already running at (\S+?)\.?(?:\s|$)/,
    hit: (m, _line, _ray, context) => {
      const port = m[2] ?? /:(\d+)$/.exec(m[4] ?? '')?.[1]
      return {
        key: `port:${port ?? '?'}`,
        severity: 'error',
        message: m[1]
          ? `Ray's ${m[1]} wants port ${m[2]}, which another Ray component or process on this node already holds.`
          : `A Ray is already running at ${m[4]} on this node (an earlier start was not stopped), so ray start cannot start another there.`,
        evidence: { ...(port ? { Port: port } : {}), ...(m[1] ? { 'Ray component': m[1] } : { 'Ray already running at': m[4]! }), ...node(context) },
        fix: m[1]
          ? `Give the components separate port ranges (ray start --port, --dashboard-port, --min-worker-port/--max-worker-port, --ray-client-server-port) or find the holder: ss -ltnp 'sport = :${m[2]}'.`
          : 'Stop the old Ray first (ray stop -f in that container, or remove the old container), then ray start again; only one Ray head per node and port.',
      }
    },
  },
  {
    // NVML (nvidia-smi, torch, vLLM's platform probe): "Failed to initialize NVML: Driver/library version mismatch" — the driver was upgraded and the
    // loaded kernel module is still the old one (NVML library version <x> in some releases).
    code: 'DRIVER_NO_GPU',
    pattern: /Failed to initialize NVML: Driver\/library version mismatch/,
    hit: (m, _line, _ray, context) => ({
      key: `nvml-mismatch:${context.prefixIp ?? ''}`,
      severity: 'error',
      message: `The NVIDIA driver's kernel module and its user-space libraries differ${context.prefixIp ? ` on ${context.prefixIp}` : ''} (a driver upgraded without a reboot), so no process there can use the GPUs.`,
      evidence: { Error: m[0], ...node(context) },
      fix: 'Reboot the node (or unload and reload the nvidia modules) so the kernel module matches the installed driver, then check nvidia-smi on the host and in the container; regenerate the CDI spec if the runtime uses one (nvidia-ctk cdi generate).',
    }),
  },
  {
    // NCCL's own INFO line before the bootstrap: "NCCL INFO NCCL_SOCKET_IFNAME set by environment to enp1s0f1np1" (kept for the interface finding below).
    code: 'SOCKET_IFNAME_MISSING',
    pattern: /NCCL_SOCKET_IFNAME set by environment to (\S+)/,
    hit: (m, _line, _ray, context) => {
      context.memory?.set('ncclSocketIfname', m[1]!)
      return null
    },
  },
  {
    // NCCL 2.2x socket.cc with NCCL_SOCKET_IFNAME naming no interface: the address is never filled in, so the connect reads garbage:
    // "ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)" (NVIDIA/nccl#1837, 2.27.7).
    code: 'SOCKET_IFNAME_MISSING',
    pattern: /ncclSocketInit: connecting to address\s+(\S*)\s*with family (\d+) is neither AF_INET/,
    hit: (m, _line, _ray, context) => {
      const iface = context.memory?.get('ncclSocketIfname')
      // Without the name seen, only an empty address with a family no socket has (garbage, not AF_UNIX's 1: NVIDIA/nccl#2057 is an NCCL bug).
      if (iface === undefined && (m[1] !== '' || Number(m[2]) <= 45)) return null
      return {
        key: `nccl:${iface ?? '?'}`,
        severity: 'error',
        message: `NCCL's socket address was never filled in (empty address, family ${m[2]})${iface ? ` because NCCL_SOCKET_IFNAME=${iface} names no interface on this node` : ': NCCL_SOCKET_IFNAME names no interface here'}, so NCCL cannot connect.`,
        evidence: { ...(iface ? { NCCL_SOCKET_IFNAME: iface } : {}), 'Address family read': m[2]!, ...node(context) },
        fix: `Set NCCL_SOCKET_IFNAME in every node's container to an interface that exists there (ip -br addr inside the container${iface ? `; "${iface}" is not there` : ''}), or leave it unset so NCCL picks one; names can differ between nodes.`,
      }
    },
  },
  {
    // NCCL bootstrap.cc "Bootstrap : no socket interface found", net_socket.cc "NET/Socket : no interface found": the interface NCCL was told is not
    // on this node (NCCL_TRANSPORT_ERROR reads the same line as a transport failure).
    code: 'SOCKET_IFNAME_MISSING',
    pattern: /(?:Bootstrap|NET\/Socket)\s*:\s*no (?:usable |NCCL_SOCKET_IFNAME )?(?:socket )?interface found/i,
    hit: (_m, _line, _ray, context) => {
      const iface = context.memory?.get('ncclSocketIfname')
      return {
        key: `nccl:${iface ?? '?'}`,
        severity: 'error',
        message: `NCCL found no interface matching ${iface ? `NCCL_SOCKET_IFNAME=${iface}` : 'NCCL_SOCKET_IFNAME (or, without it, none but loopback/docker)'} on this node${context.prefixIp ? ` (${context.prefixIp})` : ''}, so NCCL cannot bootstrap.`,
        evidence: { ...(iface ? { NCCL_SOCKET_IFNAME: iface } : {}), ...node(context) },
        fix: `Set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) in every node's container to the fabric interface as that node names it (ip -br addr inside the container${iface ? `; "${iface}" is not there` : ''}; names can differ between nodes), and run the containers with --network host so it is visible.`,
      }
    },
  },
]
