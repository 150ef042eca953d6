/**
 * Classes found in session 62's round (held-out batches 105–109, scored first at 1f3e257: 12/19 right, 16/19 with the collectors' alsoFair
 * codes, no false alarm on 3 healthy), each tested on public sources and renderings other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { codes, one, scan } from './support/paste-scan.js'

// vLLM's own count, v1/executor/ray_utils.py initialize_ray_cluster (the wording since late 2025; vllm-project/vllm#31005 and PR #31067 quote it),
// and Ray's ray/_private/worker.py line when ray.init finds no cluster to join.
const TP_WARNING = (world: number, local: number, pid = 341) =>
  `(EngineCore_DP0 pid=${pid}) WARNING 03-11 12:22:12 [ray_utils.py:352] Tensor parallel size (${world}) exceeds available GPUs (${local}). This may result in Ray placement group allocation failures. Consider reducing tensor_parallel_size to ${local} or less, or ensure your Ray cluster has ${world} GPUs available.`
const LOCAL_RAY = (pid = 341) =>
  `(EngineCore_DP0 pid=${pid}) 2026-03-11 12:22:16,089\tINFO worker.py:2014 -- Started a local Ray instance. View the dashboard at http://127.0.0.1:8265 `

// (held-out batch 107's gpustack/gpustack#4028: vLLM's TP-against-local-GPUs warning, then a Ray instance of its own, read as nothing at all)
describe("vLLM's own GPU count with a Ray instance it started itself is a shortfall", () => {
  it.each([
    // the order vLLM logs them in (the count before ray.init), a GB10 pair's TP 2 on one node, and an 8-GPU box asked for 16
    ['count, then the local instance (TP 2 on one DGX Spark)', `${TP_WARNING(2, 1)}\n${LOCAL_RAY()}`, '2', '1'],
    ['count, then the local instance (16 on an 8-GPU node)', `${TP_WARNING(16, 8, 7)}\n${LOCAL_RAY(7)}`, '16', '8'],
    // a notebook or a framework that called ray.init before vLLM (the instance first)
    ['the local instance first', `${LOCAL_RAY()}\n${TP_WARNING(4, 1)}`, '4', '1'],
  ])('%s', (_name, text, world, local) => {
    const f = one(text, 'GPU_SHORTFALL')
    expect(f.severity).toBe('warning')
    expect(f.evidence['World size (as vLLM logged it)']).toBe(world)
    expect(f.evidence["This node's GPUs"]).toBe(local)
    expect(f.fix).toContain('RAY_ADDRESS')
  })

  it('near miss: the count alone, or beside a cluster vLLM joined, is what every healthy multi-node start prints', () => {
    expect(codes(TP_WARNING(2, 1))).toEqual([])
    // vllm-project/vllm#31005 (2 nodes × 8 H20, TP 8 × PP 2): the warning before Ray's own join lines
    const joined = [
      TP_WARNING(16, 8),
      '(EngineCore_DP0 pid=1912) 2025-12-16 19:14:02,113\tINFO worker.py:1691 -- Connecting to existing Ray cluster at address: 10.0.0.1:6379...',
      '(EngineCore_DP0 pid=1912) 2025-12-16 19:14:02,130\tINFO worker.py:1879 -- Connected to Ray cluster. View the dashboard at 127.0.0.1:8265 ',
    ].join('\n')
    expect(codes(joined)).toEqual([])
    // a local instance with enough GPUs of its own (a single 8-GPU node, TP 8): no count is logged, nothing to say
    expect(codes(LOCAL_RAY())).toEqual([])
  })
})

// (held-out batch 109's microsoft/WSL#12467 and vllm-project/vllm#4411: NCCL's shared-memory segment read as a full /dev/shm under WSL2)
describe("NCCL's shared-memory segment: a full /dev/shm only when space is what failed", () => {
  it.each([
    // NCCL 2.19+ with its errno (ROCm/TheRock's skipped-test note, an AMD serving guide's troubleshooting page: both "(28)")
    'torch.distributed.DistBackendError: NCCL error in: /app/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:94\nncclSystemError: System call (e.g. socket, malloc) or external library call failed\nError while creating shared memory segment /dev/shm/nccl-cjY8K5 (size 10617216), error: No space left on device (28)',
    // an older NCCL with no errno after torch's system error (Docker's 64 MB /dev/shm)
    'ncclSystemError: System call (e.g. socket, malloc) or external library call failed.\nLast error:\nError while creating shared memory segment /dev/shm/nccl-UbzKZ9 (size 9637888)',
    // NCCL's own WARN for the extend step
    'node1:412:412 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-UbzKZ9 to 9637892 bytes',
  ])('space: %#', (text) => {
    expect(codes(text)).toContain('DISK_SPACE_LOW/error')
    expect(scan(text).filter((x) => x.evidence['Refused with'] !== undefined)).toEqual([])
  })

  it.each([
    // torch's ncclUnhandledCudaError, then the segment with no errno (the WSL2 shape)
    [
      'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nError while creating shared memory segment /dev/shm/nccl-g0wGsu (size 9637888)',
      /CUDA failure/,
    ],
    // an errno that is not space (NCCL 2.19+)
    ['Error while creating shared memory segment /dev/shm/nccl-AbC123 (size 5251072), error: Operation not permitted (1)', /Operation not permitted \(1\)/],
  ])('refused, not full: %#', (text, why) => {
    const f = scan(text).find((x) => x.code === 'NCCL_TRANSPORT_ERROR' && x.severity === 'error')
    expect(f).toBeDefined()
    expect(f!.evidence['Refused with']).toMatch(why)
    expect(f!.fix).toContain('NCCL_SHM_DISABLE=1')
    expect(codes(text)).not.toContain('DISK_SPACE_LOW/error')
  })

  it("NCCL's own CUDA failure in shmutils.cc, then its segment: one finding, the CUDA error's", () => {
    const text =
      "box:88:88 [1] misc/shmutils.cc:101 NCCL WARN Cuda failure 'operation not supported'\nbox:88:88 [1] misc/shmutils.cc:160 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Qx81 (size 9637888)"
    expect(one(text, 'NCCL_TRANSPORT_ERROR').evidence['CUDA error']).toBe('operation not supported')
    expect(codes(text)).not.toContain('DISK_SPACE_LOW/error')
  })
})

// (held-out batch 109's vllm-project/vllm#4411: NCCL's CUDA failure while it connected two GPUs under WSL2 hidden behind a driver reading)
describe("NCCL's CUDA failure where it connects the GPUs of one host", () => {
  it.each([
    // PrimeIntellect-ai/verifiers#181 (2025): transport/p2p.cc, behind a bracketed time
    ["[2025-08-01 10:48:03] n0-0:30344:30344 [0] transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid argument'", 'invalid argument'],
    // vllm-project/vllm#4411's shape: transport.cc after channels via SHM
    ["desk:212030:212030 [0] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'", 'invalid argument'],
    // NCCL 2.19+ prints the error number too (include/checks.h)
    [
      "gpu7:5101:5101 [3] transport/shm.cc:412 NCCL WARN Cuda failure 217 'peer access is not supported between these two devices'",
      'peer access is not supported between these two devices',
    ],
  ])('%#', (line, error) => {
    const f = one(line, 'NCCL_TRANSPORT_ERROR')
    expect(f.severity).toBe('error')
    expect(f.evidence['CUDA error']).toBe(error)
    expect(f.fix).toContain('NCCL_P2P_DISABLE=1')
  })

  it('near miss: out of memory, the fabric manager and a kernel fault are read by their own families, not as a transport', () => {
    expect(codes("n:1:1 [0] include/alloc.h:124 NCCL WARN Cuda failure 2 'out of memory'")).toContain('GPU_OUT_OF_MEMORY/error')
    expect(codes("n:1:1 [0] transport/p2p.cc:200 NCCL WARN Cuda failure 'out of memory'")).not.toContain('NCCL_TRANSPORT_ERROR/error')
    expect(codes("n:1:1 [0] enqueue.cc:1497 NCCL WARN Cuda failure 'an illegal memory access was encountered'")).not.toContain('NCCL_TRANSPORT_ERROR/error')
  })

  it("NCCL's own search for libcuda.so by that name is a warning, and a library a process cannot load at all stays an error", () => {
    const lookup =
      "desk:212030:212030 [0] misc/cudawrap.cc:179 NCCL WARN Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: No such file or directory"
    expect(codes(lookup)).toEqual(['DRIVER_NO_GPU/warning'])
    expect(one(lookup, 'DRIVER_NO_GPU').fix).toContain('/usr/lib/wsl/lib')
    expect(codes('OSError: libcuda.so.1: cannot open shared object file: No such file or directory')).toContain('DRIVER_NO_GPU/error')
  })
})

// (held-out batch 107's modal-labs/modal-examples#546: an app saved as vllm.py, read as a version skew)
describe("a file of the package's name hiding the installed package", () => {
  it.each([
    ["ModuleNotFoundError: No module named 'vllm.engine'; 'vllm' is not a package", 'IMAGE_LACKS_VLLM', 'vllm.engine'],
    [
      "  File \"/root/vllm.py\", line 3, in <module>\nModuleNotFoundError: No module named 'vllm.entrypoints'; 'vllm' is not a package",
      'IMAGE_LACKS_VLLM',
      'vllm.entrypoints',
    ],
    ["ModuleNotFoundError: No module named 'ray.util'; 'ray' is not a package", 'IMAGE_LACKS_RAY', 'ray.util'],
  ])('%s', (text, code, asked) => {
    const f = one(text, code)
    expect(f.severity).toBe('error')
    expect(f.evidence['Asked for']).toBe(asked)
    expect(f.fix).toMatch(/Rename the script or module called (vllm|ray)\.py/)
  })

  it('near miss: the package missing, or one of its modules missing, is not a hidden package', () => {
    expect(one("ModuleNotFoundError: No module named 'vllm'", 'IMAGE_LACKS_VLLM').evidence['Hidden package']).toBeUndefined()
    expect(one("ModuleNotFoundError: No module named 'ray'", 'IMAGE_LACKS_RAY').evidence['Hidden package']).toBeUndefined()
    expect(codes("ModuleNotFoundError: No module named 'vllm.engine'")).not.toContain('IMAGE_LACKS_VLLM/error')
  })
})
