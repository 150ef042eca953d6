/**
 * Log signatures of a start that cannot work with the image or the network it was given: Ray missing
 * from the image, flags the image's vLLM does not know, a tensor-parallel size over the GPUs a node
 * shows, NCCL builds that differ between ranks, a port another process holds, and Gloo told an
 * interface or address the machine lacks. Each names the value to change (the flag, the port, the
 * interface, the GPU counts). Wordings with their versions in src/preflight/WORDINGS.md.
 */

import type { LineContext, RuleHit, SignatureRule } from './signature-rules.js'
import { nodeEvidence as node } from './line-node.js'

/**
 * vLLM's own compiled extensions, by module name (CMakeLists.txt define_extension_target with USE_SABI 3, so each is a
 * `<name>.abi3.so`: _C, _C_stable_libtorch, _moe_C, _rocm_C, cumem_allocator; vllm_flash_attn's _vllm_fa2_C/_vllm_fa3_C and FlashMLA's).
 */
/** The memory key of vLLM's extension being loaded (its import frame, or ldd listing it): a CUDA library then not found is its. */
const VLLM_EXT_LOADING = 'vllmExtensionLoading'
const VLLM_EXTENSIONS: ReadonlySet<string> = new Set([
  '_C',
  '_C_stable_libtorch',
  '_moe_C',
  '_rocm_C',
  'cumem_allocator',
  '_vllm_fa2_C',
  '_vllm_fa3_C',
  '_flashmla_C',
  '_flashmla_extension_C',
])

/**
 * Python's "ModuleNotFoundError: No module named 'vllm.engine'; 'vllm' is not a package": the name imported first was a plain module, a file of the
 * package's name (the user's own vllm.py or ray.py, in the script's folder or the working directory, which come first on sys.path) hiding the
 * installed package (modal-labs/modal-examples#546: an app saved as vllm.py). Not a missing install: renaming the file is the fix.
 */
const SHADOWED: Readonly<Record<'vllm' | 'ray', RegExp>> = {
  vllm: /No module named '(vllm\.[\w.]+)'; 'vllm' is not a package/,
  ray: /No module named '(ray\.[\w.]+)'; 'ray' is not a package/,
}

function shadowed(text: string, pkg: 'vllm' | 'ray', context: LineContext): RuleHit | null {
  const m = SHADOWED[pkg].exec(text)
  if (!m) return null
  return {
    key: `shadowed-${pkg}`,
    severity: 'error',
    message: `Python imported a module named ${pkg} that is not the ${pkg} package (${m[1]} was asked for${context.prefixIp ? `, on ${context.prefixIp}` : ''}): a file ${pkg}.py of the user's own, in the script's folder or the working directory, hides the installed package.`,
    evidence: { 'Asked for': m[1]!, 'Hidden package': pkg, ...node(context) },
    fix: `Rename the script or module called ${pkg}.py (and delete its __pycache__/${pkg}.*.pyc), or start from a folder without it; python -c 'import ${pkg}; print(${pkg}.__file__)' there must print the installed package's path.`,
  }
}

const SAME_IMAGE_FIX =
  "Load the head's image on every node (docker save IMAGE | ssh NODE docker load, or pull the same tag by its digest on each) and start again. Where the same pull gives two IDs, the two docker daemons keep images differently (one with the containerd image store, one with overlay2: docker info --format '{{.Driver}}' on each): set both alike, or compare the images' RepoDigests rather than their IDs."

/** An entry of NCCL's socket interface list that is a virtual or container bridge ("[1]br-05ab815fa14e:…", "[2]cni0:…"), its name captured. */
const NCCL_BRIDGE_ENTRY = /(?:^|\s)\[\d+\](br-[0-9a-f]{12}|veth[0-9a-f]{6,}|virbr\d+|cni\d+|flannel\.\d+|cali[0-9a-f]{6,}|vxlan\.calico|tunl\d+):/
/** Every such entry on a line (matchAll copies it, so one compiled pattern serves every call). */
const NCCL_BRIDGE_ENTRIES = new RegExp(NCCL_BRIDGE_ENTRY.source, 'g')

export const STARTUP_RULES: readonly SignatureRule[] = [
  {
    // eugr/spark-vllm-docker's launcher (launch-cluster.sh, run-recipe.sh, 2026) counting the nodes a command needs before it starts anything:
    // "Error: Command requires 4 nodes (tp=4 * pp=1 * dp=1) but only 3 node(s) are configured." (forwis/spark-vllm-docker's README, held-out
    // batch 161), and a recipe refused on one node: "Error: Recipe 'MiniMax-M2-AWQ' requires cluster mode." (the model does not fit one node).
    code: 'GPU_SHORTFALL',
    pattern: /\bCommand requires (\d+) nodes \((tp=\d+ \* pp=\d+ \* dp=\d+)\) but only (\d+) node\(s\) are configured|\bRecipe '([^']+)' requires cluster mode/,
    hit: (m, _line, _ray, context) => ({
      key: m[1] ? `launcher-nodes:${m[1]}/${m[3]}` : `launcher-cluster:${m[4]}`,
      severity: 'error',
      message: m[1]
        ? `The launcher refused the start: ${m[2]} needs ${m[1]} nodes (one GPU each) and only ${m[3]} are configured.`
        : `The launcher refused to run recipe ${m[4]} on one node: it needs cluster mode (the model does not fit one node's memory).`,
      evidence: m[1] ? { 'Nodes needed': `${m[1]} (${m[2]})`, 'Nodes configured': m[3]!, ...node(context) } : { Recipe: m[4]!, ...node(context) },
      fix: m[1]
        ? `Configure ${m[1]} nodes (the launcher's node list, or --discover), or lower tensor × pipeline × data parallel to ${m[3]}, one GPU per node on a DGX Spark.`
        : 'Run it across the cluster (the launcher discovers and saves the nodes: --discover, then the recipe without --solo), or pick a recipe made for one node.',
    }),
  },
  {
    // A cluster launcher's own check that every node runs the head's image (eugr/spark-vllm-docker launch-cluster.sh verify_cluster_image_consistency:
    // "Error: Docker image mismatch on worker node (10.100.240.2):" then "Head:   sha256:…" and "Worker: sha256:…"): the worker's image ID is not the
    // head's: another build or tag, an image not copied (eugr/spark-vllm-docker#339), or two daemons that give one image two IDs (#327).
    code: 'IMAGE_MISMATCH',
    pattern: /\bDocker image mismatch on (?:worker )?node \(([^)\s]+)\)/,
    hit: (m, _line, _ray, context) => ({
      key: `launcher-image:${m[1]}`,
      severity: 'error',
      message: `The cluster launcher found a different image on ${m[1]} than on the head (their image IDs differ), and stopped before starting the cluster.`,
      evidence: { Node: m[1]!, 'Compared by': 'the image ID (docker image inspect --format {{.Id}})', ...node(context) },
      fix: SAME_IMAGE_FIX,
    }),
  },
  {
    // The same launcher when the worker has no such image: "Error: Could not inspect image 'vllm-node' on worker node (192.168.177.12)."
    code: 'IMAGE_MISSING',
    pattern: /\bCould not inspect image '([^']+)' on worker node \(([^)\s]+)\)/,
    hit: (m, _line, _ray, context) => ({
      key: `launcher-image-missing:${m[2]}`,
      severity: 'error',
      message: `The cluster launcher found no image ${m[1]} on ${m[2]} (or could not read it as that node's user), so it stopped before starting the cluster.`,
      evidence: { Node: m[2]!, Image: m[1]!, ...node(context) },
      fix: `Copy ${m[1]} to ${m[2]} (docker save ${m[1]} | ssh ${m[2]} docker load, or pull it there) and check the remote user may run docker without sudo; then start again.`,
    }),
  },
  {
    // docker load reading an archive that lacks a file its own index names: "open /var/lib/docker/tmp/docker-import-2972704420/blobs/sha256/ad0c…:
    // no such file or directory" (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#8: a multi-platform image saved from the containerd image store, whose
    // index names other platforms' layers the archive does not hold). docker-import is the daemon's folder for a load, not for a build.
    code: 'IMAGE_TRANSFER_FAILED',
    pattern: /\bopen \/var\/lib\/docker\/tmp\/docker-import-\d+\/(\S+?): no such file or directory/,
    hit: (m, _line, _ray, context) => ({
      key: 'docker-load-blob',
      severity: 'error',
      message: `docker load read an image archive that lacks a file its own index names (${m[1]}): the archive is incomplete, so the node did not get the image.`,
      evidence: { 'Missing from the archive': m[1]!, ...node(context) },
      fix: "Save one platform (docker save --platform linux/arm64 IMAGE, docker 27+; a multi-platform image from the containerd image store names every platform's layers but holds only the pulled one's), or pull the image on the node by its digest instead of shipping it; check with docker image inspect on the node after the load.",
    }),
  },
  {
    // An image of another CPU architecture than the node's (a linux/amd64 image on an arm64 GB10 / DGX Spark or GH200): docker's run warning
    // "WARNING: The requested image's platform (linux/amd64) does not match the detected host platform (linux/arm64/v8) and no specific platform
    // was requested" (moby daemon/create.go, 20.10 on), and its pull's refusal of a multi-arch image without the node's platform "no matching
    // manifest for linux/arm64/v8 in the manifest list entries" (distribution, every release). The same refusal by the other pullers: podman,
    // buildah and CRI-O (containers/image manifest/list.go, oci_index.go): "choosing an image from manifest list <ref>: no image found in manifest
    // list for architecture "amd64", variant "", OS "linux"" (later "… in image index for architecture …"); containerd and BuildKit (the kubelet's
    // pull on most Kubernetes nodes): "failed to pull and unpack image "…": no match for platform in manifest: not found", which names no
    // platform (llm-d/llm-d#900, 2026: a nightly image published without its linux/amd64 build). The image gate finds the same before a deploy
    // (src/preflight/checks/image-platform.ts).
    code: 'IMAGE_PLATFORM_MISMATCH',
    pattern:
      /The requested image's platform \(([\w/.-]+)\) does not match the detected host platform \(([\w/.-]+)\)|no matching manifest for ([\w/.-]+) in the manifest list entries|no image found in (?:manifest list|image index)(?: for architecture "?([\w-]+)"?, variant "?([\w-]*)"?, OS "?(\w+)"?)?|\bno match for platform in manifest\b/,
    hit: (m, _line, _ray, context) => {
      const listed = m[4] !== undefined ? `${m[6]}/${m[4]}${m[5] ? `/${m[5]}` : ''}` : undefined
      const host = m[2] ?? m[3] ?? listed
      const arch = host?.split('/')[1]
      return {
        key: `platform:${m[1] ?? 'none'}:${host ?? 'unnamed'}`,
        severity: 'error',
        message:
          m[1] !== undefined
            ? `The image is built for ${m[1]}, but this node is ${host}: its programs cannot run here ("exec format error"), or only under emulation, where the GPU libraries of another architecture cannot drive the GPU.`
            : host !== undefined
              ? `The image has no build for this node's platform (${host}): its registry lists other architectures only.`
              : "The image has no build for this node's platform: the registry's manifest list names other architectures only (the puller does not say which it wanted).",
        evidence: { ...(m[1] ? { 'Image platform': m[1] } : {}), 'Node platform': host ?? '(not named: `uname -m` on the node)', ...node(context) },
        fix: `Use an image built for ${arch ? `linux/${arch}` : "the node's platform"}: docker buildx build --platform ${arch ? `linux/${arch}` : 'linux/<arch>'} (a GitHub-hosted runner is x86_64; an arm64 DGX Spark or GH200 needs --platform linux/arm64), or a multi-arch image that lists it (docker buildx imagetools inspect <image>); vLLM's own arm64 builds and NVIDIA's NGC vLLM images are multi-arch.`,
      }
    },
  },
  {
    // vLLM's compiled ops not usable in this environment. torch (torch/_ops.py _OpNamespace.__getattr__): "AttributeError: '_OpNamespace' '_C'
    // object has no attribute 'rms_norm'" (vllm#5454, #5804, #6478, #13593; also '_vllm_fa2_C' … 'varlen_fwd', MiniCPM-V#800, and '_moe_C');
    // vLLM's own warning before it (vllm/_custom_ops.py, 0.3 on): "Failed to import from vllm._C with ImportError('…/_C.abi3.so: undefined
    // symbol: …')" (a vLLM built against another torch) or "… with ModuleNotFoundError(\"No module named 'vllm._C'\")" (vLLM imported from a
    // source tree without its build, vllm#13593). A build without kernels for this GPU gives the same AttributeError for those ops.
    code: 'IMAGE_LACKS_VLLM',
    pattern:
      /'_OpNamespace' '(_\w*C)' object has no attribute '(\w+)'|Failed to import from (vllm\.\w+) with (ImportError|ModuleNotFoundError|OSError)\((.{0,240})/,
    hit: (m, _line, _ray, context) => {
      // The import warning alone is no failure: vLLM logs it on every healthy start of a platform plugin that has no vllm._C (Ascend,
      // TPU: vllm-ascend#1033, #3289, tpu-inference#1082). It is kept for the op error that follows.
      if (m[3] !== undefined) {
        context.memory?.set('vllmCImport', `${m[3]}: ${m[4]}(${(m[5] ?? '').slice(0, 200)}`)
        return null
      }
      const detail = context.memory?.get('vllmCImport') ?? ''
      const why = /undefined symbol/.test(detail)
        ? 'its compiled extension was built against another torch (undefined symbol)'
        : /No module named/.test(detail)
          ? 'its compiled extension is missing: vLLM is imported from a source tree without its build, or the build left it out'
          : 'its compiled ops are missing or do not match this torch, CUDA or GPU (a wheel built for another torch, a source tree on the path, or a build without kernels for this GPU)'
      return {
        key: `op:${m[1]}.${m[2]}`,
        severity: 'error',
        message: `The vLLM in this image cannot run its kernel ${m[1]}.${m[2]}: ${why}.`,
        evidence: {
          'Ops namespace': m[1]!,
          'Missing op': m[2]!,
          ...(detail !== '' ? { 'Import error (vLLM warned before)': detail } : {}),
          ...node(context),
        },
        fix: "Use vLLM as its image or wheel ships it: run from the installed package (not from a source checkout: cd elsewhere, or pip install -e . to build it), keep the torch that vLLM's wheel pins (pip install vllm==<v> reinstalls it; a later pip install torch breaks _C), and for a GPU older or newer than the wheel's build targets use an image built for it; check with python -c 'import vllm._C' inside the container on every node.",
      }
    },
  },
  {
    // A compiled part of vLLM missing as the exception itself: "ModuleNotFoundError: No module named 'vllm.vllm_flash_attn.fa_utils'" (vllm-project/vllm#16013:
    // an image built on a stale build cache left the file out), "No module named 'vllm._C'" (a source checkout imported without its build),
    // "No module named 'vllm._moe_C'". Not vLLM's own warning that quotes it ("Failed to import from vllm._C with ModuleNotFoundError(…)"): platform
    // plugins without those extensions print that on every healthy start (the rule above keeps it).
    code: 'IMAGE_LACKS_VLLM',
    pattern: /ModuleNotFoundError: No module named '(vllm\.(?:_\w*C|vllm_flash_attn|cumem_allocator)\b[\w.]*)'/,
    hit: (m, _line, _ray, context) => ({
      key: `module:${m[1]}`,
      severity: 'error',
      message: `The vLLM in this image lacks its compiled part ${m[1]}: vLLM runs from a source tree without its build, or the image's build left the file out (a stale build cache, a wheel of another variant).`,
      evidence: { 'Missing module': m[1]!, ...node(context) },
      fix: "Rebuild the image without the stale cache (docker build --no-cache, or pip install the released wheel), never import vLLM from a source checkout that was not built (cd elsewhere, or pip install -e .), and check on every node: python -c 'import vllm._C, vllm.vllm_flash_attn' inside the container.",
    }),
  },
  {
    // Another package's compiled extension built against another torch than the image's: "ImportError: …/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so:
    // undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib" (mudler/LocalAI PR #9557: a flash-attn wheel for torch 2.7 under torch
    // 2.10; the symbol may wrap onto the next line), xformers' and flashinfer's the same: the C++ symbols of torch's own namespaces (c10, at, torch)
    // that torch no longer exports. vLLM's own extensions are IMAGE_LACKS_VLLM's (the rule after this one); system libraries (lib*.so) are not this.
    code: 'VERSION_SKEW',
    pattern: /ImportError: \S*?\/((?!lib)[A-Za-z_][A-Za-z0-9_-]*?)(?:[.…][\w.…-]*?)?\.so: undefined symbol:?\s*(_ZN(?:3c10|2at|5torch|6caffe2)\w*)?\s*$/,
    hit: (m, line, _ray, context) => {
      if (/\/vllm\//.test(line)) return null
      return {
        key: `extension:${m[1]}`,
        severity: 'error',
        message: `The compiled extension ${m[1]} does not match the image's torch${m[2] ? ` (torch no longer exports ${m[2].slice(0, 60)})` : ''}: it was built for another torch release, so importing it fails.`,
        evidence: { Extension: m[1]!, ...(m[2] ? { 'Undefined symbol': m[2] } : {}), ...node(context) },
        fix: `Install the build of ${m[1]}'s package made for the image's torch (pip install --no-build-isolation --force-reinstall <package>, or the wheel whose name carries that torch version), or pin torch to the one it was built for; check with python -c 'import torch; print(torch.__version__)' next to the package's own version on every node.`,
      }
    },
  },
  {
    // The same extension failing to load as the exception itself, before any op is called (the vllm CLI imports it at start, so
    // `vllm serve` never starts): the dynamic loader's own words, which CPython raises as they are. glibc dlerror(): "ImportError:
    // /usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN3c1013MessageLoggerC1EPKciib" (eugr/spark-vllm-docker
    // PR #141 and #135: a cu132 vLLM wheel on a cu130 torch nightly; spark-arena/sparkrun#127: nightly vLLM 0.19.1rc1 on torch
    // 2.12.0.dev+cu130; vllm#13608, #14942, #21226 — the last quoted "undefined symbol _ZN…" without the colon); macOS dyld: "ImportError:
    // dlopen(…/vllm/_C.abi3.so, 0x0002): Symbol not found: __ZN3c10…" and, quoted by its two parts, "Symbol not found:
    // __ZN3c1013MessageLoggerC1EPKcii\n Referenced from: <UUID> …/vllm/_C.abi3.so" (vllm#36202). A symbol of torch's own
    // namespaces (c10, at, torch, caffe2) means another torch than the one the wheel was built against; any other symbol (eelbaz/
    // dgx-spark-vllm-setup#3: _Z20cutlass_moe_mm_sm100…) is a kernel the build left out. Only vLLM's extensions (a path under vllm/, or
    // one of its module names); another package's undefined symbol (flash_attn_2_cuda…, libtorch_cuda.so: … nccl…) is not this family.
    code: 'IMAGE_LACKS_VLLM',
    pattern:
      /(?:^|[\s:|>)\]])ImportError: (\S*?([\w-]+)\.abi3\.so): undefined symbol:? (\S+)|\bdlopen\((\S*?([\w-]+)\.abi3\.so), \w+\): Symbol not found: (\S+)|\bSymbol not found: (\S+?)(?:\\n)?\s+Referenced from: (?:<[^>]*> )?(\S*?([\w-]+)\.abi3\.so)/,
    hit: (m, _line, _ray, context) => {
      const file = m[1] ?? m[4] ?? m[8]!
      const module = m[2] ?? m[5] ?? m[9]!
      const symbol = (m[3] ?? m[6] ?? m[7]!).replace(/^_(?=_Z)/, '')
      if (!/(?:^|\/)vllm\//.test(file) && !VLLM_EXTENSIONS.has(module)) return null
      const torchSymbol = /^_ZN?K?(?:3c10|2at|5torch|6caffe2)/.test(symbol)
      return {
        key: `import:${module}`,
        severity: 'error',
        message: torchSymbol
          ? `vLLM's compiled extension ${module}.abi3.so cannot load: it needs a torch symbol (${symbol}) the installed torch lacks, so the torch in this environment is not the one this vLLM was built against.`
          : `vLLM's compiled extension ${module}.abi3.so cannot load: it names a symbol (${symbol}) nothing in this environment defines, a kernel the build left out or a build for another torch or CUDA.`,
        evidence: {
          'Extension file': file,
          'Missing symbol': symbol,
          'Symbol comes from': torchSymbol ? "torch's C++ library (c10/ATen/torch)" : 'not torch (vLLM kernels or CUDA libraries)',
          ...node(context),
        },
        fix: torchSymbol
          ? "Install the torch this vLLM wheel was built against (pip show vllm lists it under Requires; a nightly wheel pins a nightly torch of the same CUDA, cu130 and cu132 are not interchangeable), or rebuild vLLM against the torch you keep (pip install -e . --no-build-isolation after python use_existing_torch.py); don't pip install torch over an image's vLLM. Check with python -c 'import vllm._C' in the container on every node."
          : "Rebuild vLLM for this GPU and torch (TORCH_CUDA_ARCH_LIST naming the GPU's architecture, the same CUDA as torch), or use a published image built for it; check with python -c 'import vllm._C' in the container on every node.",
      }
    },
  },
  {
    // vLLM's compiled extension linked against a CUDA library the image does not have, a build for another CUDA (2026: CUDA 13 images with
    // vLLM built for CUDA 12 and the reverse). The loader's words as CPython raises them, under the frame that imports the extension
    // ("    import vllm._C  # noqa" / "ImportError: libcudart.so.13: cannot open shared object file: No such file or directory",
    // vllm-project/vllm#52300), or ldd's listing of the extension ("/opt/vllm-source/vllm/_C.abi3.so:" / "  libcudart.so.12 => not found",
    // llm-d/llm-d#1402 on a GB200 image). Another package's extension (NIXL's nixl_ep) is not this family; libcuda.so.1 is the driver's.
    code: 'IMAGE_LACKS_VLLM',
    pattern:
      /^\s*(?:import|from) (vllm\._\w*C)\b|^\s*(\S*?\bvllm\/(_\w*C)\.abi3\.so):\s*$|\b(lib(?:cudart|cublas\w*|nvrtc|cufft|curand|cusparse\w*|cusolver|nvJitLink|cudnn\w*|nccl)\.so\.(\d+)[\w.]*)(?:: cannot open shared object file| => not found)/,
    hit: (m, line, _ray, context) => {
      if (m[1] !== undefined || m[2] !== undefined) {
        context.memory?.set(VLLM_EXT_LOADING, m[1] ?? `vllm.${m[3]}`)
        return null
      }
      const extension = context.memory?.get(VLLM_EXT_LOADING)
      if (extension === undefined || (/ImportError|OSError/.test(line) === false && !/=> not found/.test(line))) return null
      context.memory?.delete(VLLM_EXT_LOADING)
      return {
        key: `cuda-lib:${m[4]}`,
        severity: 'error',
        message: `vLLM's compiled extension ${extension} cannot load: it was linked against ${m[4]} (CUDA ${m[5]}), which this image does not have, so this vLLM was built for another CUDA than the image's.`,
        evidence: { Extension: extension, 'Library not found': m[4]!, 'CUDA it was built for': m[5]!, ...node(context) },
        fix: `Install the vLLM build for the image's CUDA (the wheel of that CUDA's index, or the image vLLM publishes for it), or put CUDA ${m[5]}'s runtime in the image; check on every node with python -c 'import vllm._C' and ldd <site-packages>/vllm/_C.abi3.so | grep 'not found'.`,
      }
    },
  },
  {
    // Python: "ModuleNotFoundError: No module named 'ray'" (also `ray.<sub>`); vLLM 0.1–0.2: "ImportError: Ray is not installed. Please install Ray to use
    // distributed serving."; a shell: "bash: line 1: ray: command not found"; docker/k8s: 'exec: "ray": executable file not found in $PATH'.
    code: 'IMAGE_LACKS_RAY',
    pattern: /No module named '(ray(?:\.[\w.]+)?)'|Ray is not installed|\bray: command not found|"ray": executable file not found/,
    hit: (m, line, _ray, context) => {
      const hidden = shadowed(line.slice(m.index), 'ray', context)
      if (hidden) return hidden
      const what = m[1]
        ? `Python cannot import ${m[1]}`
        : m[0].includes('command') || m[0].includes('executable')
          ? 'the ray command is not on PATH'
          : 'vLLM found no Ray'
      // vLLM's import-time warning ("WARNING … ray_utils.py:46] Failed to import Ray with ModuleNotFoundError(…). For distributed inference, please
      // install Ray …") is logged by every start of an image without Ray, the mp executor's too: a warning until the Ray executor fails on it.
      const importWarning = /Failed to import Ray with\b/.test(line)
      return {
        key: m[1] ?? 'ray',
        severity: importWarning ? 'warning' : 'error',
        message: `The container has no usable Ray (${what}), so the Ray executor cannot start${context.prefixIp ? ` on ${context.prefixIp}` : ''}${importWarning ? ' (vLLM warns at import; the mp executor needs no Ray)' : ''}.`,
        evidence: { Missing: m[1] ?? (m[0].includes('command') || m[0].includes('executable') ? 'ray (the CLI)' : 'ray (the package)'), ...node(context) },
        fix: "Use an image with Ray installed, the same version on every node (pip install 'ray[default]==<the cluster's version>' in the image; vllm/vllm-openai ships it), run ray from that image's Python environment (not another venv), or deploy with the mp executor, which needs no Ray.",
      }
    },
  },
  {
    // No vLLM at all in the Python or the PATH that ran: Python's "ModuleNotFoundError: No module named 'vllm'" (a Ray worker node whose
    // Ray runs another environment's Python: its actors import vllm there; a venv not activated), Ray's wrapping of it on a worker
    // "ray.exceptions.RaySystemError: System error: No module named 'vllm'", a shell's "vllm: command not found", docker's 'exec: "vllm":
    // executable file not found in $PATH'. Not vLLM's own submodules (No module named 'vllm.x': VERSION_SKEW's hint, vllm._C: above).
    code: 'IMAGE_LACKS_VLLM',
    pattern:
      /No module named '?vllm'?(?![.\w])|\bvllm: (?:command )?not found\b|"vllm": executable file not found|No module named 'vllm\.[\w.]+'; 'vllm' is not a package/,
    hit: (m, _line, _ray, context) =>
      shadowed(m[0], 'vllm', context) ?? {
        key: 'no-vllm',
        severity: 'error',
        message: `vLLM is not installed where this process looked (${m[0].startsWith('No module') ? 'Python cannot import vllm' : 'the vllm command is not on PATH'})${context.prefixIp ? ` on ${context.prefixIp}` : ''}: on a Ray worker, Ray's own Python (the environment ray start ran from) must have vLLM too.`,
        evidence: { Missing: m[0].startsWith('No module') ? 'vllm (the package)' : 'vllm (the command)', ...node(context) },
        fix: "Run every node from the same image (or the same environment) with vLLM installed, and start Ray from that image's Python (ray start inside the container, not from the host's or another venv's ray); check with python -c 'import vllm, ray; print(vllm.__version__, ray.__version__)' in the environment ray start runs on each node.",
      },
  },
  {
    // vLLM's refusal of a dtype or quantization the GPU's compute capability lacks: "ValueError: Bfloat16 is only supported on GPUs with compute
    // capability of at least 8.0. Your Tesla V100-SXM2-32GB GPU has compute capability 7.0. You can use float16 instead by explicitly setting the
    // `dtype` flag in CLI, for example: --dtype=half." (platforms/cuda.py; older worker/worker.py), "ValueError: The quantization method fp8 is not
    // supported for the current GPU. Minimum capability: 89. Current capability: 80." (config/model.py, quantization/__init__.py; older without
    // "The"). An old GPU, or a quantized model built for a newer one.
    code: 'GPU_ARCH_UNSUPPORTED',
    pattern:
      /Bfloat16 is only supported on GPUs with compute capability of at least ([\d.]+)\.(?: Your (.+?) GPU has compute capability (\d+(?:\.\d+)?))?|quantization method (\S+) is not supported for the current GPU\. Minimum capability: (\d+)\. Current capability: (\d+)/,
    hit: (m, _line, _ray, context) => {
      const bf16 = m[1] !== undefined
      const cap = (v: string | undefined) => (v === undefined ? undefined : v.includes('.') ? v : `${v.slice(0, -1)}.${v.slice(-1)}`)
      const needed = bf16 ? m[1]! : cap(m[5])!
      const has = bf16 ? m[3] : cap(m[6])
      return {
        key: bf16 ? 'bf16' : `quant:${m[4]}`,
        severity: 'error',
        message: bf16
          ? `The GPU${m[2] ? ` (${m[2]})` : ''} has compute capability ${has ?? 'below 8.0'}; bfloat16, the model's dtype, needs ${needed} or newer.`
          : `The model's quantization ${m[4]} needs a GPU of compute capability ${needed} or newer; this one has ${has}.`,
        evidence: {
          ...(bf16 ? { dtype: 'bfloat16' } : { Quantization: m[4]! }),
          'Capability needed': needed,
          ...(has ? { 'GPU capability': has } : {}),
          ...(m[2] ? { GPU: m[2] } : {}),
          ...node(context),
        },
        fix: bf16
          ? 'Serve in float16 (--dtype half; vllm.args), or on GPUs of compute capability 8.0 or newer (Ampere on).'
          : `Use a build of the model in a quantization this GPU supports (AWQ or GPTQ with Marlin kernels on older GPUs; FP8 needs 8.9, Ada or newer), or GPUs of compute capability ${needed} or newer.`,
      }
    },
  },
  {
    // argparse (vLLM's FlexibleArgumentParser): "vllm: error: unrecognized arguments: --omni", "api_server.py: error: unrecognized arguments: <path>".
    code: 'VLLM_FLAG_UNKNOWN',
    // (The program's name is read in hit: a pattern starting with a character class is scanned at every position of every line.)
    // (Also the message alone at a line's start: a report that quotes argparse's line without the program's "<prog>: error: " before it.)
    pattern: /(?:error: |^\s*)unrecognized arguments: (.+?)\s*$/,
    hit: (found, line, _ray, context) => {
      const m = [found[0], /(?:^|\s)([\w.-]+): error: unrecognized arguments:/.exec(line)?.[1], found[1]]
      const args = (m[2] ?? '').split(/\s+/).filter((a) => a !== '')
      const flags = args.filter((a) => a.startsWith('-'))
      const shown = (flags.length > 0 ? flags : args).slice(0, 8).join(' ')
      return {
        key: shown,
        severity: 'error',
        message: `${m[1] ?? 'The program'} refused ${flags.length > 0 ? `flag(s) its version does not know: ${shown}` : `argument(s) it takes no place for: ${shown}`}, so vLLM never started.`,
        evidence: { 'Unrecognised arguments': shown, ...(m[1] ? { Program: m[1] } : {}), ...node(context) },
        fix:
          flags.length > 0
            ? `The image's vLLM lacks ${flags.slice(0, 3).join(', ')}: check it with docker run --rm <image> vllm serve --help | grep -e ${flags[0]}, then pin an image whose vLLM has it or drop it from the serve arguments; a flag and its value given as one list item ("--port 8000") is also read as an unknown argument.`
            : "The entrypoint takes no positional argument here: with api_server.py (python -m vllm.entrypoints.openai.api_server) give the model as --model <path>; with vllm serve the model comes first; check the image's ENTRYPOINT (docker inspect) so the arguments are not handed to a different program.",
      }
    },
  },
  {
    // The same refusal for engine arguments given in code, not on a command line: Python's own TypeError when LLM(...) or a framework builds
    // vLLM's dataclass with a field this version lacks ("TypeError: EngineArgs.__init__() got an unexpected keyword argument 'task'",
    // AsyncEngineArgs likewise; vllm/engine/arg_utils.py defines both), and Ray Serve LLM's check of engine_kwargs against the installed vLLM
    // (ray/llm/_internal/serve/.../vllm_models.py: raise ValueError(f"Unknown engine argument: {key}")). Captures: ray-project/ray#64466 (vLLM 0.22,
    // task), xorbitsai/inference#4468 (vLLM ≥ 0.13, task), NVIDIA-NeMo/RL#870 (logprobs_mode), vllm-project/vllm#23283 (disable_log_requests).
    code: 'VLLM_FLAG_UNKNOWN',
    pattern: /\b((?:Async)?EngineArgs)\.__init__\(\) got an unexpected keyword argument '(\w+)'|Unknown engine argument: (\w+)/,
    hit: (m, _line, _ray, context) => {
      const arg = m[2] ?? m[3]!
      const via = m[1] !== undefined ? `vLLM's ${m[1]} (the Python API: LLM(...) or a framework building it)` : "Ray Serve LLM's engine_kwargs"
      return {
        key: `engine-arg:${arg}`,
        severity: 'error',
        message: `The installed vLLM has no engine argument '${arg}' (given through ${via}), so the engine was never built: the argument comes from a newer or older vLLM than the one in the image.`,
        evidence: { 'Engine argument': arg, 'Given through': m[1] ?? 'engine_kwargs (Ray Serve LLM)', ...node(context) },
        fix: `Drop or rename '${arg}' for the installed vLLM (python -c "import vllm, dataclasses; print(vllm.__version__, [f.name for f in dataclasses.fields(vllm.engine.arg_utils.EngineArgs)])" lists what it takes; 'task' became 'runner'/'convert' in vLLM 0.13), or pin the vLLM version the argument was written for, the same on every node.`,
      }
    },
  },
  {
    // vLLM ≥ 0.11 (ParallelConfig): "Value error, Tensor parallel size (16) cannot be larger than the number of available GPUs (8)";
    // vLLM 0.7 (platforms/cuda.py): "please set tensor_parallel_size (4) to less than max local gpu count (1)";
    // vLLM ≥ 0.11 (gpu_worker.py): "local_world_size (16) must be less than or equal to the number of visible devices (8).";
    // vLLM 0.19.1–0.34.0 (config/parallel.py, ParallelConfig, read from the wheels; live in the 0.24.0 capture of test/real/captures):
    // "Value error, World size (2) is larger than the number of available GPUs (1) in this node. If this is intentional …" (quoted without
    // "in this node" too: llm-d/llm-d PR #764, 2026, a chart's TP left at 4 on a one-GPU pod; operators' notes in the code index)
    code: 'GPU_SHORTFALL',
    pattern:
      /Tensor parallel size \((\d+)\) cannot be larger than the number of available GPUs \((\d+)\)|tensor_parallel_size \((\d+)\) to less than max local gpu count \((\d+)\)|local_world_size \((\d+)\) must be less than or equal to the number of visible devices \((\d+)\)|World size \((\d+)\) is larger than the number of available GPUs \((\d+)\)/,
    hit: (m, _line, _ray, context) => {
      const tp = m[1] ?? m[3] ?? m[5] ?? m[7] ?? '?'
      const gpus = m[2] ?? m[4] ?? m[6] ?? m[8] ?? '?'
      return {
        key: `${tp}/${gpus}`,
        severity: 'error',
        message: `vLLM was asked for ${tp} GPU workers but sees ${gpus} GPU(s)${m[1] ? ' in the cluster it joined' : ' on this node'}: the other nodes' GPUs are not part of it.`,
        evidence: { 'Workers asked for (TP, or TP×PP per node)': tp, 'GPUs vLLM sees': gpus, ...node(context) },
        fix: `With Ray: start vllm serve only after every node joined with its GPUs (ray status shows ${tp} GPU) and pass --distributed-executor-backend ray; in the native mode (--nnodes), keep TP × PP = nodes × GPUs per node and TP ≤ GPUs per node (use PP across nodes); give each container its GPUs (--gpus all, no CUDA_VISIBLE_DEVICES narrowing).`,
      }
    },
  },
  {
    // GPUStack's scheduler (gpustack/policies, vLLM multi-node check): "vLLM multi-node: --tensor-parallel-size 2 cannot divide worker[0] 1 GPUs
    // (vLLM requires each TP unit fit inside one node)" — refused before anything starts.
    code: 'GPU_SHORTFALL',
    pattern: /--tensor-parallel-size (\d+) cannot divide (worker\[\d+\]|[\w.-]+) (\d+) GPUs/,
    hit: (m, _line, _ray, context) => ({
      key: `divide:${m[1]}/${m[3]}`,
      severity: 'error',
      message: `The scheduler refused TP ${m[1]} because ${m[2]} has ${m[3]} GPU(s): it places each tensor-parallel group inside one node.`,
      evidence: { 'Tensor parallel size': m[1]!, Worker: m[2]!, 'GPUs on that worker': m[3]!, ...node(context) },
      fix: `Keep TP ≤ the GPUs of one node (${m[3]}) and span the nodes with pipeline parallelism (--pipeline-parallel-size = number of nodes), or run vLLM across the nodes yourself (Ray or --nnodes), where one TP group may span nodes.`,
    }),
  },
  {
    // NCCL bootstrap: "bootstrap.cc:77 NCCL WARN Message truncated : received 172 bytes instead of 64" — the ranks exchanged structures of
    // different sizes: different NCCL builds on the nodes. NCCL's socket transport: "NET/Socket : [peer <ip><port>] message truncated : receiving
    // <a> bytes instead of <b>" — the ranks disagree on what they send: NCCL settings (NCCL_PROTO, buffer sizes) or versions that differ between
    // nodes, or ranks calling different collectives (NVIDIA/nccl PR #605 made this an invalid-usage error for that reason).
    code: 'VERSION_SKEW',
    pattern: /Message truncated : received (\d+) bytes instead of (\d+)|(?:message truncated :?\s*)?receiving (\d+) bytes instead of (\d+)/i,
    hit: (m, line, _ray, context) => {
      // NCCL's "host:pid:tid [dev]" record prefix, on this line or the NCCL record before it (a paste cut inside a record)
      const host = /(?:^|\s)([\w.-]+):\d+:\d+ \[\d+\]/.exec(line)?.[1] ?? context.memory?.get('ncclHost')
      const peer = /peer (\d{1,3}(?:\.\d{1,3}){3})/.exec(line)?.[1] ?? context.memory?.get('ncclTruncatedPeer')
      const bootstrap = m[1] !== undefined
      const got = m[1] ?? m[3]!
      const want = m[2] ?? m[4]!
      // NVSHMEM's UID bootstrap (src/modules/bootstrap/uid/bootstrap_uid.cpp, NCCL's bootstrap code under DeepEP and pplx) says the same: its
      // ranks also disagree when two processes start as the same rank (deepseek-ai/DeepEP#121: both nodes rank 0, held-out batch 131).
      if (bootstrap && /nvshmem|bootstrap_uid/i.test(line))
        return {
          key: 'nvshmem-bootstrap',
          severity: 'error',
          message: `NVSHMEM's bootstrap received ${got} bytes where it expected ${want}: its ranks do not agree on what they exchange — two processes started as the same rank (every node as rank 0), or NVSHMEM versions that differ between the nodes.`,
          evidence: { 'Bytes received': got, 'Bytes expected': want, Library: 'NVSHMEM (bootstrap_uid)', ...node(context) },
          fix: 'Give every process its own rank (each node its own node rank or RANK, the world size the same on all) and run the same image, with the same nvidia-nvshmem, on every node (pip list | grep nvshmem in each container).',
        }
      return {
        key: `${got}/${want}`,
        severity: 'error',
        message: bootstrap
          ? `NCCL's bootstrap${host ? ` on ${host}` : ''} received ${got} bytes where it expected ${want}: the ranks run different NCCL versions (different images, or a pip nvidia-nccl beside the image's), so they cannot form a communicator.`
          : `NCCL${host ? ` on ${host}` : ''} received ${got} bytes where it expected ${want}${peer ? ` from ${peer}` : ''}: the ranks disagree on what they exchange — NCCL versions or NCCL_* settings that differ between the nodes, or ranks running different collectives.`,
        evidence: {
          'Bytes received': got,
          'Bytes expected': want,
          ...(host ? { 'NCCL host': host } : {}),
          ...(peer ? { Peer: peer } : {}),
          ...node(context),
        },
        fix: 'Run the same image (by digest) with the same NCCL_* environment on every node, and compare NCCL and torch there: python -c "import torch; print(torch.__version__, torch.cuda.nccl.version())" in each container; remove a second NCCL (pip list | grep nccl) so every rank loads the same libnccl.',
      }
    },
  },
  {
    // NCCL misc/socket.cc (ncclSocketInit, 2.19 on): "ncclSocketInit: connecting to address with family 0 is neither AF_INET(2) nor AF_INET6(10)" —
    // the address came from a peer's connection handle that this NCCL cannot read: the ranks run different NCCL builds (NVIDIA/nccl#1267: one node
    // had nvidia-nccl-cu12 2.20.5, the others 2.19.3), or NCCL and its net plugin disagree. Family 1 (AF_UNIX) is a single-node NCCL bug (#2057), not skew.
    code: 'VERSION_SKEW',
    pattern: /ncclSocketInit: connecting to address\s*\S*\s*with family (\d+) is neither AF_INET\(2\) nor AF_INET6\(10\)/,
    hit: (m, line, _ray, context) => {
      if (m[1] === '1') return null
      // NCCL's "host:pid:tid [dev]" record prefix, on this line or the record's line before it (a paste wrapped inside the record)
      const host = /(?:^|\s)([\w.-]+):\d+:\d+ \[\d+\]/.exec(line)?.[1] ?? context.memory?.get('ncclHost')
      return {
        key: `nccl-family:${m[1]}`,
        severity: 'error',
        message: `NCCL${host ? ` on ${host}` : ''} was handed a peer address it cannot read (address family ${m[1]}): the ranks run different NCCL builds (a pip nvidia-nccl of another version on one node, a second libnccl, or NCCL and its net plugin of different releases), so their connection handles differ in layout.`,
        evidence: { 'Address family read': m[1]!, ...(host ? { 'NCCL host': host } : {}), ...node(context) },
        fix: 'Compare NCCL on every node inside the containers (python -c "import torch; print(torch.__version__, torch.cuda.nccl.version())"; pip list | grep -i nccl; ls /usr/lib/*/libnccl* and the NCCL_NET_PLUGIN / libnccl-net*.so in use) and make them the same: one image by digest on every node, no second nvidia-nccl wheel, a net plugin built for that NCCL.',
      }
    },
  },
  {
    // A process that needs a GPU and sees none, in torch's and vLLM's words across versions: torch (cuda/__init__.py _lazy_init): "RuntimeError:
    // No CUDA GPUs are available" (CUDA_VISIBLE_DEVICES empty or naming no device: Ray gives an actor with num_gpus=0 CUDA_VISIBLE_DEVICES="") and
    // "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver …" (no driver inside the
    // container); vLLM ≤ 0.4 (config.py DeviceConfig): "RuntimeError: No supported device detected."; vLLM ≥ 0.5: "RuntimeError: Failed to infer device type".
    // vLLM ≥ 0.7 falls back to vllm.platforms.interface.UnspecifiedPlatform when its probe finds no platform (platforms/__init__.py,
    // logger.info "No platform detected, vLLM is running on UnspecifiedPlatform"; a platform plugin may still activate after it, so that
    // INFO line is no failure by itself), and the start then fails on what that platform lacks: "AttributeError: 'UnspecifiedPlatform'
    // object has no attribute 'device_name'" (also behind a launcher's "Config error: ", gpustack/gpustack#1898 on a GPU-less server;
    // intel/ipex-llm#13303 on an XPU its vLLM build did not know), or torch's "RuntimeError: Device string must not be empty" for the
    // platform's empty device_type (vllm-project/vllm#23096 on a CPU-only machine).
    code: 'DRIVER_NO_GPU',
    pattern:
      /\bNo CUDA GPUs are available\b|Found no NVIDIA driver on your system|No supported device detected|Failed to infer device type|'UnspecifiedPlatform' object has no attribute '\w+'|\bDevice string must not be empty\b/,
    hit: (m, _line, _ray, context) => {
      const noDriver = m[0].startsWith('Found no NVIDIA driver')
      // vLLM's platform probe (no CUDA device through NVML/the driver's libraries): also a CUDA image on another accelerator
      const probe = m[0].startsWith('Failed to infer') || m[0].includes('UnspecifiedPlatform') || m[0].startsWith('Device string')
      return {
        key: `no-gpu:${m[0]}:${context.prefixIp ?? ''}`,
        severity: 'error',
        message: noDriver
          ? `A process${context.prefixIp ? ` on ${context.prefixIp}` : ''} that must use a GPU found no NVIDIA driver: its container was started without the GPUs (no --gpus / NVIDIA runtime), or the node has none.`
          : probe && !m[0].startsWith('Failed to infer')
            ? `vLLM${context.prefixIp ? ` on ${context.prefixIp}` : ''} detected no platform to run on (it fell back to UnspecifiedPlatform) and failed on it (${m[0]}): the process sees no GPU — a container without its GPUs, a node with none, or a vLLM build for another accelerator than the node has.`
            : `A process${context.prefixIp ? ` on ${context.prefixIp}` : ''} that must use a GPU sees none (${m[0]}): it runs where no GPU was given to it — a Ray actor or driver placed without num_gpus (Ray sets CUDA_VISIBLE_DEVICES to empty for it), CUDA_VISIBLE_DEVICES naming a device the node lacks, or a container without its GPUs.`,
        evidence: { Error: m[0], ...node(context) },
        fix: noDriver
          ? 'Start every node\'s container with its GPUs (docker run --gpus all, or the nvidia runtime) and check inside it: nvidia-smi and python -c "import torch; print(torch.cuda.device_count())" on each node.'
          : probe
            ? 'vLLM found no CUDA device to run on: start the container with its GPUs (--gpus all / the nvidia runtime), keep the driver\'s libraries on LD_LIBRARY_PATH (e.g. /usr/local/nvidia/lib64 in Kubernetes images), use an image built for the node\'s accelerator, and check python -c "import torch; print(torch.cuda.device_count())" in the container on each node.'
            : 'Run vllm serve (the driver) on a node whose Ray registered GPUs, with the executor asking for GPUs (--distributed-executor-backend ray; an actor that builds the engine needs num_gpus ≥ 1 or a placement group bundle with GPU); leave CUDA_VISIBLE_DEVICES unset or to indices the node has; check python -c "import torch; print(torch.cuda.device_count())" in the container on each node.',
      }
    },
  },
  {
    // NCCL init.cc (every release since 2.4): "NCCL WARN Mismatched NCCL version detected : rank %d version %d rank %d version %d" — the
    // ranks' peer info carries each one's NCCL_VERSION_CODE (2.9 on: major*10000 + minor*100 + patch; before: major*1000 + minor*100 + patch).
    code: 'VERSION_SKEW',
    pattern: /Mismatched NCCL version detected : rank (\d+) version (\d+) rank (\d+) version (\d+)/,
    hit: (m, _line, _ray, context) => {
      const [a, b] = [ncclVersion(m[2]!), ncclVersion(m[4]!)]
      return {
        key: `nccl-version:${m[2]}/${m[4]}`,
        severity: 'error',
        message: `NCCL rank ${m[1]} runs NCCL ${a} and rank ${m[3]} runs NCCL ${b}: the nodes load different NCCL builds (different images, or a pip nvidia-nccl beside the image's), so they cannot form a communicator.`,
        evidence: { [`NCCL of rank ${m[1]}`]: a, [`NCCL of rank ${m[3]}`]: b, ...node(context) },
        fix: 'Run the same image (by digest) on every node and check each container: python -c "import torch; print(torch.__version__, torch.cuda.nccl.version())"; remove a second NCCL (pip list | grep nccl) so every rank loads the same libnccl.',
      }
    },
  },
  {
    // FlashInfer's version check of its kernel packages (flashinfer/jit/env.py, 0.5 on): "RuntimeError: flashinfer-cubin version (0.6.4) does not
    // match flashinfer version (0.6.3). Please install the same version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this
    // check." (also flashinfer-jit-cache). An image whose vLLM upgrade pulled one package and not the other: ray-project/ray PR #58026 (2025),
    // MinerU's install notes, SkyRL's vLLM 0.26 notes and a GB10 bootstrap script (2026) quote it.
    code: 'VERSION_SKEW',
    pattern: /\b(flashinfer-[\w-]+) version \(([^)\s]+)\) does not match flashinfer version \(([^)\s]+)\)/,
    hit: (m, _line, _ray, context) => ({
      key: `flashinfer:${m[1]}`,
      severity: 'error',
      message: `The image holds two FlashInfer releases: ${m[1]} ${m[2]} beside flashinfer ${m[3]}; FlashInfer refuses to run its kernels from another release.`,
      evidence: { [m[1]!]: m[2]!, 'flashinfer (flashinfer-python)': m[3]!, ...node(context) },
      fix: `Install the same FlashInfer release of every package in the image (pip install "flashinfer-python==X" "${m[1]}==X", X the one the image's vLLM requires: pip show vllm), rebuild, and run that image on every node; FLASHINFER_DISABLE_VERSION_CHECK=1 only skips the check, not the mismatch.`,
    }),
  },
  {
    // NCCL's record prefix "hvd1:2918:3333 [0] …" and its socket transport's "NET/Socket : peer 192.168.161.30<59210> message truncated :" (the byte
    // counts may follow on the next line): kept for VERSION_SKEW's evidence.
    code: 'VERSION_SKEW',
    pattern: /:\d+:\d+ \[\d+\] |NET\/Socket : peer (\S+?)<\d+> message truncated/,
    hit: (m, line, _ray, context) => {
      if (m[1] !== undefined) context.memory?.set('ncclTruncatedPeer', m[1])
      const host = /(?:^|\s)([\w.-]+):\d+:\d+ \[\d+\] /.exec(line)?.[1]
      if (host !== undefined) context.memory?.set('ncclHost', host)
      return null
    },
  },
  {
    // torch c10d (2.x): "The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE,
    // message: address already in use" (older: without the port); CPython: "OSError: [Errno 98] Address already in use" (macOS errno 48); uvicorn:
    // "[Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use"; C++: "bind: Address already in use";
    // zmq: "Address already in use (addr='tcp://…:5555')"; docker's port mapping: "Bind for 0.0.0.0:8000 failed: port is already allocated".
    code: 'PORT_IN_USE',
    pattern:
      /\bEADDRINUSE\b|address already in use|server socket has failed to listen on any local network address\. port: (\d+)|Bind for [\d.:[\]a-f]*?:(\d+) failed: port is already allocated/i,
    hit: (m, line, _ray, context) => {
      const port =
        m[1] ??
        m[2] ??
        /\bport:? (\d{2,5})\b/.exec(line)?.[1] ??
        /bind on address \('([^']*)', (\d+)\)/.exec(line)?.[2] ??
        // an address with its port (zmq's addr='tcp://…:5555', an IPv4 or [IPv6] address), not a logger's "file.py:108" tag or a time
        /(?:addr=['"]?(?:tcp:\/\/)?[^'"\s:]*|\b\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\]|\blocalhost):(\d{2,5})\b/.exec(line)?.[1]
      const address = /bind on address \('([^']*)'/.exec(line)?.[1]
      const store = /server socket has failed to listen/.test(line)
      // A port below 1024 is privileged and seldom one a job picks: most often one derived wrong (SkyRL's vLLM 0.26 notes, 2026: the workers'
      // store port computed from a data-parallel master port that was 0, so every engine asked for port 100).
      const low = port !== undefined && Number(port) < 1024
      return {
        key: `port:${port ?? '?'}`,
        severity: 'error',
        message: low
          ? `${store ? "torch's rendezvous store" : 'A server'} could not listen on port ${port}${address ? ` (${address})` : ''}, a privileged port below 1024: a port that low is seldom one a job picks, most often one computed wrong (an offset added to a base port that was 0), and only root may listen there.`
          : `${store ? "torch's rendezvous store" : 'A server'} could not listen${port ? ` on port ${port}` : ''}${address ? ` (${address})` : ''}: another process on this node already holds it (an earlier vLLM/torch run still alive, a second job, or two ranks given the same port).`,
        evidence: {
          ...(port ? { Port: port } : {}),
          ...(low ? { 'Port range': 'privileged (below 1024)' } : {}),
          ...(address ? { Address: address } : {}),
          ...node(context),
        },
        fix: low
          ? `Find where port ${port} comes from: the ports given to vLLM and torch (--port, --master-port, --data-parallel-rpc-port, VLLM_PORT, MASTER_PORT) and the ones derived from them (a base of 0 plus an offset); give the job a port above 1024 that is free on every node.`
          : `Find the holder on that node: ss -ltnp 'sport = :${port ?? '<port>'}' (or lsof -i :${port ?? '<port>'}); stop the leftover (an old container: docker rm -f; an old vllm serve or VLLM::Worker process), or give this one a free port (--port, --master-port, VLLM_PORT${store ? ', MASTER_PORT' : ''}); ports freed by a crash can stay in TIME_WAIT for a minute.`,
      }
    },
  },
  {
    // A launcher's own port pre-check before it starts anything: GPUStack (gpustack/cmd/prerun.py check_ports_availability, 2.x at 47277d79,
    // 2026-08) logs "Port {port} required for service '{service}' is not available." for each port its server/worker/gateway needs, then
    // "Failed to pre-check the configuration: One or more required ports are not available." (gpustack#5846: worker_port/worker_metrics_port
    // not applied, so the worker still asked for 10150/10151, which another process held).
    code: 'PORT_IN_USE',
    pattern: /\bPort (\d{2,5}) required for service '([^'\n]+)' is not available\b/,
    hit: (m, _line, _ray, context) => {
      const port = m[1] ?? '?'
      const service = m[2] ?? '?'
      return {
        key: `port:${port}`,
        severity: 'error',
        message: `The launcher's pre-check found port ${port}, which its service '${service}' needs, already taken on this node, so it refused to start (another process holds it, or the port it was configured to use was not applied).`,
        evidence: { Port: port, Service: service, ...node(context) },
        fix: `Find the holder on that node: ss -ltnp 'sport = :${port}' (or lsof -i :${port}); stop it, or give the launcher free ports (GPUStack: --port/--worker-port/--worker-metrics-port, or the cluster's worker_port/worker_metrics_port) and check that the running worker really took them (its prerun log names each port it checks).`,
      }
    },
  },
  {
    // A launcher's own refusal after it checked the port itself, at an error mark (a level word, "[Error]", a red cross): "[glm53-exl3] ERROR: port
    // 8000 is held by glm53-exl3-head — use './start.sh restart'" (a DGX Spark recipe's start.sh, 2026), "[Error] UDP port 5000 is already in use by
    // another mapping." (a proxy's set-up script), "❌ Port 8000 is already in use" (a PowerShell pre-check), "Error: Port 8000 Is Already in Use" (a
    // troubleshooting page quoting its server). Not the same words as a warning ("Port 8000 is already in use", then the next port is tried) or
    // as advice ("Check if port 8000 is already in use").
    code: 'PORT_IN_USE',
    pattern:
      /(?:\b(?:ERROR|FATAL|CRITICAL)\b|\bError\b|\berror:|❌|✗)[^\n]{0,80}?\b(?:TCP |UDP )?port (\d{2,5}) (?:is )?(?:already )?(?:in use|held|taken|occupied|allocated)\b(?: by ([^\s,;:—–]+))?/i,
    hit: (m, _line, _ray, context) => {
      const port = m[1] ?? '?'
      const holder = m[2] && !/^(?:another|other|a|an|the|some)$/i.test(m[2]) ? m[2].replace(/[.'"]+$/, '') : undefined
      return {
        key: `port:${port}`,
        severity: 'error',
        message: `The launcher found port ${port} already taken on this node${holder ? ` (by ${holder})` : ''} and refused to start: an earlier server or container is still running there, or another service holds the port.`,
        evidence: { Port: port, ...(holder ? { 'Held by': holder } : {}), ...node(context) },
        fix: `Stop what holds it first${holder ? ` (${holder}: docker rm -f ${holder}, or the launcher's own stop/restart)` : ''}: ss -ltnp 'sport = :${port}' (or lsof -i :${port}) names the process; or give this server another port (--port) and point clients at it.`,
      }
    },
  },
  {
    // Ascend CANN/HCCL (torch_npu): "EJ0003: … Failed to bind the IP port. Reason: The IP address and port have been bound already." and HCCL's
    // "host nic listen start failed, port[60000], return[11]": two HCCL jobs on one node both took the base port (HCCL_IF_BASE_PORT, 60000).
    // HCCL's socket (hccl_socket.cc, EI0019): "socket type[0], listen on ip[192.2.2.195] and specific port[16666] fail. Please check the port
    // status and whether the port is being used by other process." — type 0/1 a device NIC's port (16666 unless HCCL_NPU_SOCKET_PORT_RANGE),
    // type 2 the host's (vllm-project/vllm-ascend#4725: a prefill and a decode instance on one host; CANN's HCCL troubleshooting pages).
    code: 'PORT_IN_USE',
    pattern:
      /Failed to bind the IP port\. Reason: The IP address and port have been bound already|\blisten start failed, port\[(\d+)\]|\bsocket type\[(\d)\], listen on ip\[([^\]]+)\] and specific port\[(\d+)\] fail/,
    hit: (m, _line, _ray, context) => {
      const port = m[1] ?? m[4]
      if (m[4] !== undefined) {
        const device = m[2] !== '2'
        return {
          key: `port:${port}`,
          severity: 'error',
          message: `HCCL could not listen on ${m[3]} port ${port} (${device ? "an NPU's network port" : "the host's"}): another process already holds it — ${device ? 'a second process using the same NPU (a prefill and a decode instance, two engines) takes the same default port' : 'a second HCCL job on this host started from the same base port'}.`,
          evidence: {
            Address: m[3]!,
            Port: port!,
            'HCCL socket type': `${m[2]} (${device ? 'device NIC' : 'host NIC'})`,
            Library: 'HCCL (Ascend CANN)',
            ...node(context),
          },
          fix: device
            ? `Give each process on an NPU its own device port range (HCCL_NPU_SOCKET_PORT_RANGE, e.g. "auto" or a range per instance) or keep one process per NPU; ss -ltnp 'sport = :${port}' names a leftover holding it.`
            : `Give each HCCL job on the host its own port range (HCCL_HOST_SOCKET_PORT_RANGE="auto", or HCCL_IF_BASE_PORT apart), or stop the leftover that holds ${port} (ss -ltnp 'sport = :${port}').`,
        }
      }
      return {
        key: `port:${port ?? 'hccl'}`,
        severity: 'error',
        message: `HCCL could not listen${port ? ` on port ${port}` : ''}: another process on this node already holds it (most often a second HCCL job on the same node that started from the same base port, or a leftover of an earlier run).`,
        evidence: { ...(port ? { Port: port } : {}), Library: 'HCCL (Ascend CANN)', ...node(context) },
        fix: `Give each HCCL job on a node its own port range (HCCL_IF_BASE_PORT, default 60000; each rank takes ports from it), or stop the leftover that holds ${port ?? 'the port'} (ss -ltnp 'sport = :${port ?? '<port>'}').`,
      }
    },
  },
  {
    // NCCL's socket transport taking container and virtual bridges along with the fabric (NCCL excludes only docker* and lo by default): "NCCL INFO
    // NET/Socket : Using [0]bond0:192.168.1.161<0> [1]br-05ab815fa14e:172.19.0.1<0> … [12]veth6163fba:fe80::…<0>" — the list on its line, or one
    // interface a line as a page wraps it (NVIDIA/nccl#697, held-out batch 157: docker compose networks' br-<id> on every node; the ranks then try
    // addresses the peers cannot reach). A warning naming them: NCCL_SOCKET_IFNAME unset.
    code: 'SOCKET_IFNAME_MISSING',
    pattern: new RegExp(`NET/Socket : Using\\b|${NCCL_BRIDGE_ENTRY.source}`),
    hit: (_m, line, _ray, context) => {
      if (/NET\/Socket : Using\b/.test(line)) context.memory?.set('ncclSocketList', '1')
      const bridges = [...line.matchAll(NCCL_BRIDGE_ENTRIES)].map((b) => b[1]!)
      if (bridges.length === 0 || !context.memory?.has('ncclSocketList')) return null
      return {
        key: 'nccl-socket-bridges',
        severity: 'warning',
        message: `NCCL's socket transport uses virtual or container-bridge interfaces (${bridges.slice(0, 3).join(', ')}${bridges.length > 3 ? ', …' : ''}) beside the fabric: NCCL_SOCKET_IFNAME is not set, and a peer may be sent an address it cannot reach.`,
        evidence: { 'Bridge interfaces NCCL took': bridges.join(', '), ...node(context) },
        fix: 'Set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) to the fabric interface in every container (NCCL_SOCKET_IFNAME=bond0, or an exclusion list: ^br-,veth,docker,lo), so every rank offers only the addresses its peers reach.',
      }
    },
  },
  {
    // gloo (transport/tcp/device.cc): "ifa != nullptr. Unable to find address for: <iface>" (GLOO_SOCKET_IFNAME names an interface that is not
    // there or has no IPv4 address, or is given NCCL's "^lo,docker" syntax); "Unable to find interface for: [<addr>]" (the hostname resolves to
    // an address no interface holds).
    code: 'SOCKET_IFNAME_MISSING',
    pattern: /Unable to find address for: (\S+)|Unable to find interface for: \[([^\]]+)\]/,
    hit: (m, _line, _ray, context) => {
      const iface = m[1]
      const address = m[2]
      const excluded = iface?.startsWith('^')
      return {
        key: iface ?? address ?? '?',
        severity: 'error',
        message: iface
          ? `Gloo was told to use the interface "${iface}", which ${excluded ? "is NCCL's exclusion syntax, not an interface name (Gloo takes one concrete name)" : 'does not exist in this container or has no IPv4 address'}, so vLLM's CPU process group cannot start.`
          : `Gloo resolved this host's name to ${address}, an address no interface of this container holds, so vLLM's CPU process group cannot start.`,
        evidence: {
          ...(iface ? { 'Interface Gloo was told': iface } : {}),
          ...(address ? { 'Address the hostname resolved to': address } : {}),
          ...node(context),
        },
        fix: iface
          ? `Set GLOO_SOCKET_IFNAME to one concrete interface that exists in the container and holds the fabric IPv4 address (ip -4 -br addr inside it; on a bond use the bond, not a slave)${excluded ? '; keep "^lo,docker" lists for NCCL_SOCKET_IFNAME only' : ''}, the same name on every node or each node's own.`
          : `Make the hostname resolve to this node's fabric IP (/etc/hosts in the container, or --add-host), or set GLOO_SOCKET_IFNAME (and VLLM_HOST_IP) to the fabric interface and address so Gloo does not resolve the hostname.`,
      }
    },
  },
  {
    // torch TCPStore: "torch.distributed.DistStoreError: wait timeout after 600000ms" (a rank waited for keys other ranks never wrote) and the head's
    // "Timed out after <n> seconds waiting for clients. <k>/" when the count is cut off (the full line is read by signature-rules-native.ts).
    code: 'RENDEZVOUS_RANKS_MISSING',
    pattern: /DistStoreError: (?:wait timeout(?: after (\d+) ?ms)?|Timed out after (\d+) seconds waiting for clients\.(?! \d+\/\d+ clients joined))/,
    hit: (m, _line, _ray, context) => ({
      key: `store:${m[1] ?? m[2] ?? ''}`,
      severity: 'error',
      message: `torch's rendezvous store timed out${m[1] ? ` after ${Number(m[1]) / 1000} s` : m[2] ? ` after ${m[2]} s` : ''} waiting for ranks that never arrived: a node not started, not reaching the master address, or a rank count (--nnodes, TP×PP) larger than the ranks started.`,
      evidence: { ...(m[1] || m[2] ? { Waited: m[1] ? `${Number(m[1]) / 1000} s` : `${m[2]} s` } : {}), ...node(context) },
      fix: "On every node compare the serve arguments (the same --nnodes, --master-addr and --master-port, node ranks 0…N-1 once each, TP×PP = the GPUs started) and read the other nodes' logs for their own failure; set --distributed-timeout-seconds low while debugging.",
    }),
  },
]

/** NCCL_VERSION_CODE as a version: 22705 → 2.27.5 (from 2.9 on), 2408 → 2.4.8 (before). */
function ncclVersion(code: string): string {
  const n = Number(code)
  return n >= 10000
    ? `${Math.floor(n / 10000)}.${Math.floor((n % 10000) / 100)}.${n % 100}`
    : `${Math.floor(n / 1000)}.${Math.floor((n % 1000) / 100)}.${n % 100}`
}
