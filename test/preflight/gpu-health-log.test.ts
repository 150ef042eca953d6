/**
 * A GPU, or the driver under it, that cannot be used, read from a log (issue 36): CUDA's system errors 802 (Fabric
 * Manager on NVSwitch systems) and 803 (a driver library of another release), nvidia-smi without a driver, NGC's
 * entrypoint without one, and GPU_FAULT — the kernel driver's Xid records read against NVIDIA's Xid catalog, a GPU
 * fallen off the bus or lost, uncorrectable ECC. Real captures from different public sources
 * (fixtures/logs/gpu-fault-*, driver-no-gpu-80*), each with the value that matters, and the near misses: Xids that
 * only follow a process's end, a recovery action back to None, a healthy node's own driver lines.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { scan } from './support/paste-scan.js'
import { readCapture } from './fixtures/read.js'

const fixture = (name: string) => readCapture(`logs/${name}`)
const only = (text: string, code: string) => {
  const found = scan(text)
  const of = found.filter((f) => f.code === code)
  expect(of.length, JSON.stringify(found.map((f) => f.code))).toBeGreaterThan(0)
  expect(found.filter((f) => f.code === 'UNRECOGNISED_FAILURE')).toHaveLength(0)
  return of
}

describe('GPU_FAULT: the GPU reports a fault of its own', () => {
  it('Xid 119, the GSP timeout under a vLLM run (vllm#40652, 2026): each GPU with its Xid and the driver record', () => {
    const f = only(fixture('gpu-fault-xid119-gsp-vllm-40652.txt'), 'GPU_FAULT')
    expect(f.map((x) => x.evidence.GPU)).toEqual(['PCI 0001:6c:00', 'PCI 0001:96:00'])
    expect(f[0]!.severity).toBe('error')
    expect(f[0]!.evidence.Xid).toBe('119 (a GSP RPC timeout)')
    expect(f[0]!.evidence['Driver record']).toContain('Timeout after 45s of waiting for RPC response from GPU5 GSP')
    expect(f[0]!.fix).toMatch(/update the driver/)
  })
  it("Xid 62 beside NVSwitch errors (open-gpu-kernel-modules#1118, 2026): the halt is the finding, the workers' Xid 45 teardown is not", () => {
    const f = only(fixture('gpu-fault-xid62-vllm-worker-open-gpu-kernel-modules-1118.txt'), 'GPU_FAULT')
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence).toMatchObject({ GPU: 'PCI 0000:48:00', Xid: '62 (an internal micro-controller halt)' })
    expect(f[0]!.fix).toMatch(/nvidia-smi -r/)
  })
  it('a GPU fallen off the bus over three driver lines, without an Xid (NVSentinel#155): the address from the first line, a reboot', () => {
    const f = only(fixture('gpu-fault-fallen-off-bus-nvsentinel-155.txt'), 'GPU_FAULT')
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence.GPU).toBe('PCI 0000:b3:00.0')
    expect(f[0]!.fix).toMatch(/^Reboot that node/)
    const xid79 = only('[ 5121.1] NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.', 'GPU_FAULT')[0]!
    expect(xid79.evidence.Xid).toBe('79 (the GPU has fallen off the bus)')
    expect(only('NVRM: Xid (0000:03:00): 79, pid=1234, name=python3, GPU has fallen off the bus.', 'GPU_FAULT')[0]!.evidence.GPU).toBe('PCI 0000:03:00')
  })
  it("nvidia-smi's lost GPU (marian#251) and CUDA's uncorrectable ECC (accelerate#1192): errors with the GPU or the CUDA error", () => {
    expect(only(fixture('gpu-fault-gpu-lost-nvidia-smi-marian-251.txt'), 'GPU_FAULT')[0]!.evidence.GPU).toBe('PCI 0000:03:00.0')
    const ecc = only(fixture('gpu-fault-ecc-uncorrectable-accelerate-1192.txt'), 'GPU_FAULT')[0]!
    expect(ecc.severity).toBe('error')
    expect(ecc.evidence['CUDA error']).toBe('214 (uncorrectable ECC error encountered)')
  })
  it('Xid 154 names the recovery the driver asks for; back to None it is not a fault', () => {
    const f = only('NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)', 'GPU_FAULT')[0]!
    expect(f.evidence['Recovery the driver asks for']).toBe('Node Reboot Required')
    expect(f.fix).toMatch(/^Reboot/)
    expect(scan('NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)')).toEqual([])
  })
  it("a process's own fault (Xid 13, 31) is a warning: the GPU is fine once the process is gone", () => {
    for (const line of [
      "NVRM: Xid (PCI:000f:01:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address",
      'NVRM: Xid (PCI:0000:41:00): 31, pid=2710, name=python3, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f2e_80000000.',
    ]) {
      const f = scan(line)
      expect(
        f.map((x) => `${x.severity}:${x.code}`),
        line,
      ).toEqual(['warning:GPU_FAULT'])
    }
  })
  it('near misses: the Xids that only follow a process ending, unknown numbers, the driver naming a GPU, an ECC column', () => {
    for (const line of [
      'NVRM: Xid (PCI:0000:48:00): 45, pid=22884, name=VLLM::Worker, channel 0x0000000a',
      'NVRM: Xid (PCI:0000:48:00): 43, pid=22884, name=VLLM::Worker, Ch 00000010',
      'NVRM: Xid (PCI:0000:48:00): 63, pid=0, Row Remapper: New row (0x0000000000abcdef) marked for remapping, reset gpu to activate.',
      'NVRM: GPU at PCI:0000:48:00: GPU-5fc0bcec-c2e1-38dc-8994-2a9f9f3b709e',
      'NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.126.20  Release Build',
      '| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |',
      'Nov 02 10:01:12 node1 nv-fabricmanager[2210]: Successfully configured all the available NVSwitches to route GPU NVLink traffic.',
      'logging system not yet initialized, buffering records',
    ]) {
      expect(scan(line), line).toEqual([])
    }
  })
})

describe('DRIVER_NO_GPU: CUDA will not start on the node', () => {
  it("error 802 in three programs' words (HF Jobs, vLLM's workers, NCCL): Fabric Manager named in the fix", () => {
    for (const name of [
      'driver-no-gpu-802-fabric-manager-hf-hub-4134.txt',
      'driver-no-gpu-802-vllm-worker-gpustack-4891.txt',
      'driver-no-gpu-802-nccl-llamafactory-8968.txt',
    ]) {
      const f = only(fixture(name), 'DRIVER_NO_GPU')
      expect(f[0]!.severity, name).toBe('error')
      expect(f[0]!.evidence['CUDA error'], name).toBe('802 (system not yet initialized)')
      expect(f[0]!.fix, name).toMatch(/nvidia-fabricmanager/)
    }
    // torch's warning at import says the same, before the start fails on it
    expect(
      only(
        '/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:174: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized (Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)',
        'DRIVER_NO_GPU',
      )[0]!.severity,
    ).toBe('error')
  })
  it('error 803 (vllm#15335): the driver library against the kernel module, compat libraries named', () => {
    const f = only(fixture('driver-no-gpu-803-mismatch-vllm-15335.txt'), 'DRIVER_NO_GPU')[0]!
    expect(f.evidence['CUDA error']).toMatch(/^803/)
    expect(f.fix).toMatch(/cuda-compat/)
  })
  it("nvidia-smi without a driver or without a GPU is the host checks' NO_GPU_VISIBLE; NGC's entrypoint without a driver is a warning", () => {
    expect(
      scan(
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
      ).map((f) => `${f.severity}:${f.code}`),
    ).toEqual(['error:NO_GPU_VISIBLE'])
    const none = scan('$ nvidia-smi\nNo devices were found\n')
    expect(none.map((f) => `${f.severity}:${f.code}`)).toEqual(['error:NO_GPU_VISIBLE'])
    expect(none[0]!.fix).toMatch(/open kernel modules/)
    // not a sentence that goes on, nor another tool's longer line
    expect(scan('lsusb: No devices were found matching the filter\n')).toEqual([])
    expect(
      scan(
        'WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n   Use the NVIDIA Container Toolkit to start this container with GPU support; see\n',
      ).map((f) => `${f.severity}:${f.code}`),
    ).toEqual(['warning:DRIVER_NO_GPU'])
  })
  it("the driver's own libraries missing in the process (libcuda.so.1, libnvidia-ml.so.1), but not libnvidia-container's own load failure", () => {
    for (const line of [
      'OSError: libcuda.so.1: cannot open shared object file: No such file or directory',
      'ImportError: libnvidia-ml.so.1: cannot open shared object file: No such file or directory',
    ]) {
      expect(
        scan(line).map((f) => `${f.severity}:${f.code}`),
        line,
      ).toEqual(['error:DRIVER_NO_GPU'])
    }
    expect(
      scan(
        'nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown',
      ).map((f) => f.code),
    ).toEqual(['NVIDIA_RUNTIME_MISSING'])
  })
})

describe('CUDA_DRIVER_TOO_OLD: PTX from a newer CUDA than the driver (CUDA error 222)', () => {
  it("vLLM's FlashAttention kernel (vllm#31700, 2026), ggml's wording (ctransformers#87), verl's rollout (verl#672)", () => {
    const f = only(fixture('cuda-ptx-toolchain-vllm-31700.txt'), 'CUDA_DRIVER_TOO_OLD')[0]!
    expect(f.evidence['CUDA error']).toMatch(/^222 /)
    expect(f.fix).toMatch(/Upgrade the node's NVIDIA driver/)
    only(
      'CUDA error 222 at /home/runner/work/ctransformers/ctransformers/models/ggml/ggml-cuda.cu:5141: the provided PTX was compiled with an unsupported toolchain.',
      'CUDA_DRIVER_TOO_OLD',
    )
    only('(main_task pid=1477553) RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.', 'CUDA_DRIVER_TOO_OLD')
  })
})

describe('the NVLink fabric: Fabric Manager not running or not done (DRIVER_NO_GPU), a GPU not admitted (GPU_FAULT)', () => {
  const section = (state: string, status: string) =>
    `    Fabric\n        State                             : ${state}\n        Status                            : ${status}\n        CliqueId                          : 0\n`
  it("nvidia-smi -q's Fabric section: Insufficient Resources (azhpc-images PR #506's shape), In Progress (huggingface_hub#4128's Fabric Manager)", () => {
    const notAdmitted = scan(section('Completed', 'Insufficient Resources'))
    expect(notAdmitted.map((f) => `${f.severity}:${f.code}`)).toEqual(['error:GPU_FAULT'])
    expect(notAdmitted[0]!.evidence['Fabric Status']).toBe('Insufficient Resources')
    const registering = scan(section('In Progress', 'N/A'))
    expect(registering.map((f) => `${f.severity}:${f.code}`)).toEqual(['error:DRIVER_NO_GPU'])
    expect(registering[0]!.fix).toMatch(/nvidia-fabricmanager/)
  })
  it("near misses: a healthy or absent fabric (the real H200 capture's N/A), other sections' State and Status lines", () => {
    expect(scan(section('Completed', 'Success'))).toEqual([])
    expect(scan(readFileSync(join(import.meta.dirname, '../fixtures/hardware/h200/nvidia-smi-q.txt'), 'utf8'))).toEqual([])
    expect(
      scan(
        '    Persistence Mode                      : Enabled\n    State                                 : In Progress\n    Status                                : Degraded\n',
      ),
    ).toEqual([])
  })
  it("a health checker's words: gpud's fabric-manager component (gpud PR #1151's shape)", () => {
    const f = scan('        "reason": "NVIDIA-H100-80GB-HBM3 checked fabric state; fabric manager found but not active",\n')
    expect(f.map((x) => `${x.severity}:${x.code}`)).toEqual(['error:DRIVER_NO_GPU'])
  })
})
