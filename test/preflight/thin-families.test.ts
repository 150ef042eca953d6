/**
 * Issue 36's families that had fewer than three public captures: a process placed where it sees no GPU
 * (DRIVER_NO_GPU), NCCL builds that differ between nodes (VERSION_SKEW), and a rendezvous master that is a
 * loopback, a netmask, one number (0.0.0.0/8) or nothing on a run that spans nodes (MASTER_ADDR_LOOPBACK / MASTER_ADDR_NOT_FABRIC).
 * Each from several public threads (sources in fixtures/README.md) and the projects' own wordings, with
 * the value that matters as evidence, and near misses. torch version skew has no log wording of its own
 * (torch checks no versions across ranks: pytorch/pytorch#24273); it is VERSION_SKEW from the node facts.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { Finding } from '../../src/preflight/finding.js'
import { diagnose } from '../../src/preflight/offline-diagnosis.js'
import { scanLog } from '../../src/preflight/signatures.js'
import { readFixture } from './fixtures/read.js'

const scan = (file: string) => scanLog(readFixture(`logs/${file}`), file)
/** The path `vllm-ray-deploy diagnose --log FILE` takes (offline-diagnosis.ts): every log rule, de-duplicated, errors first. */
const diagnoseFile = (file: string) => diagnose({ logs: [{ source: file, text: readFixture(`logs/${file}`) }] })
const one = (text: string) => scanLog(text, 'paste')
const only = (found: readonly Finding[], code: string): Finding => {
  const of = found.filter((f) => f.code === code)
  expect(of, found.map((f) => f.code).join(',')).toHaveLength(1)
  expect(of[0]!.severity).toBe('error')
  return of[0]!
}

describe('DRIVER_NO_GPU: a process that must use a GPU sees none (torch and vLLM wordings)', () => {
  it('five public captures: torch "No CUDA GPUs are available", "Found no NVIDIA driver", vLLM 0.3 "No supported device detected"', () => {
    for (const [file, error] of [
      ['driver-no-gpu-cuda-vllm-14413.txt', 'No CUDA GPUs are available'],
      ['driver-no-gpu-cuda-sarathi-vattention-44.txt', 'No CUDA GPUs are available'],
      ['driver-no-gpu-no-driver-ray-43145.txt', 'Found no NVIDIA driver on your system'],
      ['driver-no-gpu-no-driver-openllm-746.txt', 'Found no NVIDIA driver on your system'],
      ['driver-no-gpu-no-device-openrlhf-233.txt', 'No supported device detected'],
    ] as const)
      expect(only(scan(file), 'DRIVER_NO_GPU').evidence['Error'], file).toBe(error)
  })

  it('behind a Ray worker prefix: the node; vLLM ≥ 0.5 "Failed to infer device type"', () => {
    const f = only(one('(RayWorkerWrapper pid=2981, ip=10.0.0.12) RuntimeError: No CUDA GPUs are available\n'), 'DRIVER_NO_GPU')
    expect(f.evidence).toMatchObject({ 'Node (log prefix)': '10.0.0.12' })
    expect(f.message).toContain('on 10.0.0.12')
    expect(f.fix).toContain('num_gpus')
    expect(only(one('RuntimeError: Failed to infer device type\n'), 'DRIVER_NO_GPU').fix).toContain('LD_LIBRARY_PATH')
    expect(
      only(one('RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver\n'), 'DRIVER_NO_GPU').fix,
    ).toContain('--gpus all')
  })

  it('near miss: a start that found its GPUs is no finding', () => {
    expect(one('INFO 02-09 02:31:08 __init__.py:190] Automatically detected platform cuda.\nCUDA Available: True\nCUDA Device Count: 1\n')).toEqual([])
  })
})

describe('VERSION_SKEW: NCCL builds that differ between the nodes', () => {
  it("NCCL's own check (a tutorial's capture) with both versions decoded", () => {
    expect(only(scan('image-nccl-skew-mismatched-forgather.txt'), 'VERSION_SKEW').evidence).toMatchObject({
      'NCCL of rank 1': '2.27.5',
      'NCCL of rank 0': '2.27.3',
    })
  })

  it('a peer address NCCL cannot read (family 0 or garbage): NVIDIA/nccl#1267 (2.20.5 beside 2.19.3) and aws-ofi-nccl#715', () => {
    expect(only(scan('image-nccl-skew-family-nccl-1267.txt'), 'VERSION_SKEW').evidence['Address family read']).toBe('0')
    const ofi = only(scan('image-nccl-skew-family-aws-ofi-nccl-715.txt'), 'VERSION_SKEW')
    expect(ofi.evidence).toMatchObject({ 'Address family read': '33022', 'NCCL host': 'algo-1' })
    expect(ofi.fix).toContain('net plugin')
  })

  it('near miss: family 1 (AF_UNIX) is a single-node NCCL bug, not two versions: still an error, not VERSION_SKEW', () => {
    const codes = scan('nccl-family-unix-not-skew-nccl-2057.txt').map((f) => `${f.code}/${f.severity}`)
    expect(codes).toEqual(['UNRECOGNISED_FAILURE/error'])
  })
})

describe('a rendezvous master no other node can reach, on a run that spans nodes', () => {
  it('MASTER_ADDR_LOOPBACK: a launch command with --nnodes 2 and --master_addr=localhost (pytorch/pytorch#76367)', () => {
    const f = only(scan('master-loopback-launch-pytorch-76367.txt'), 'MASTER_ADDR_LOOPBACK')
    expect(f.evidence).toMatchObject({ 'Master address': 'localhost', 'Multi-node because': '--nnodes 2' })
  })

  it("MASTER_ADDR_LOOPBACK: vLLM's rank line on another node, once with the headless line naming the same address (vLLM 0.24.0, test/real)", () => {
    const rank1 = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'real', 'captures', 'native-two-ranks-one-gpu', 'rank1.log'), 'utf8')
    expect(only(scanLog(rank1, 'rank1.log'), 'MASTER_ADDR_LOOPBACK').evidence['Head node address the node uses']).toBe('127.0.0.1:29514')
    // the rank line alone (vLLM parallel_state.py); vLLM's args of a headless rank; a launch command continued over lines
    const rankLine = only(
      one(
        '(Worker pid=5664) INFO 12-05 17:20:04 [parallel_state.py:1588] world_size=2 rank=1 local_rank=0 distributed_init_method=tcp://127.0.0.1:29514 backend=nccl\n',
      ),
      'MASTER_ADDR_LOOPBACK',
    )
    expect(rankLine.evidence['Multi-node because']).toContain('rank 1 is local rank 0')
    expect(
      only(
        one(
          "(APIServer pid=7) INFO 06-20 19:17:46 [api_utils.py:273] non-default args: {'model_tag': 'x', 'master_addr': 'localhost', 'nnodes': 2, 'node_rank': 1, 'headless': True}\n",
        ),
        'MASTER_ADDR_LOOPBACK',
      ).evidence['Master address'],
    ).toBe('localhost')
    const continued = 'torchrun \\\n  --nnodes=2 \\\n  --node_rank=1 \\\n  --master_addr=127.0.0.1 \\\n  --master_port=29500 train.py\n'
    expect(only(one(continued), 'MASTER_ADDR_LOOPBACK').evidence['Multi-node because']).toBe('--nnodes 2')
  })

  it("near miss: vLLM's head keeps 127.0.0.1 (its DP leader line and rank 0; torch's store listens on every address there; vLLM 0.24.0, test/real)", () => {
    expect(
      one(
        '(EngineCore pid=5608) INFO 12-05 17:20:01 [multiproc_executor.py:140] DP group leader: node_rank=0, node_rank_within_dp=0, master_addr=127.0.0.1, mq_connect_ip=192.0.2.2 (local), world_size=2, local_world_size=1\n(Worker pid=5794) INFO 12-05 17:20:28 [parallel_state.py:1588] world_size=2 rank=0 local_rank=0 distributed_init_method=tcp://127.0.0.1:29511 backend=nccl\n',
      ),
    ).toEqual([])
  })

  it('MASTER_ADDR_NOT_FABRIC: an empty master (deepspeedai/DeepSpeed#2612) and a netmask or 0.0.0.0 in the forms vLLM and the launchers print', () => {
    expect(only(scan('master-empty-deepspeed-2612.txt'), 'MASTER_ADDR_NOT_FABRIC').evidence['Master address']).toBe('(empty)')
    for (const line of [
      'INFO 12-05 17:19:37 [serve.py:212] Launching vLLM (v0.24.0) headless multiproc executor, with head node address 255.255.255.0:29501 for torch.distributed process group.',
      'vllm serve /models/x --nnodes 2 --node-rank 1 --master-addr 255.255.255.0 --headless',
      "(APIServer pid=536) INFO 06-20 19:17:46 [api_utils.py:273] non-default args: {'model_tag': 'x', 'master_addr': '255.255.0.0', 'nnodes': 2, 'tensor_parallel_size': 2}",
      'torchrun --nnodes=2 --node_rank=1 --master_addr=0.0.0.0 --master_port=29500 train.py',
    ]) {
      const f = only(one(`${line}\n`), 'MASTER_ADDR_NOT_FABRIC')
      expect(f.message, line).toMatch(/netmask|wildcard/)
    }
  })

  it('near misses: a routable master on two nodes (vllm-project/vllm#53894), loopback on one node (Project-HAMi/HAMi-core#261), a one-node launch, a host whose last octet is 255', () => {
    expect(scan('master-near-miss-multinode-vllm-53894.txt')).toEqual([])
    expect(scan('master-near-miss-single-node-hami-core-261.txt')).toEqual([])
    expect(one('torchrun --nnodes=1 --nproc_per_node=8 --master_addr=localhost --master_port=29500 train.py\n')).toEqual([])
    expect(one('torchrun --nnodes=2 --node_rank=1 --master_addr=10.0.1.255 --master_port=29500 train.py\n')).toEqual([])
  })

  it('MASTER_ADDR_NOT_FABRIC from the client side: c10d dialling a netmask (hiyouga/LlamaFactory#3715), through diagnose', () => {
    const f = only(diagnoseFile('master-netmask-c10d-llamafactory-3715.txt'), 'MASTER_ADDR_NOT_FABRIC')
    expect(f.evidence).toMatchObject({ 'Master address': '255.255.0.0:29500', 'Named by': 'failed to connect to' })
    expect(f.message).toContain('a netmask')
    // the rendezvous warning is not given beside it: one finding, the one that names the cause
    expect(diagnoseFile('master-netmask-c10d-llamafactory-3715.txt').map((x) => x.code)).not.toContain('RENDEZVOUS_UNREACHABLE')
  })

  it('MASTER_ADDR_NOT_FABRIC: a master written as one number, dialled in 0.0.0.0/8 (hpcaitech/Open-Sora#667, ofsoundof/GRL-Image-Restoration#27, zai-org/ChatGLM-6B#1476), through diagnose', () => {
    for (const [file, address] of [
      ['master-number-host-c10d-open-sora-667.txt', '0.104.99.143:47389'],
      ['master-number-host-c10d-grl-27.txt', '0.0.0.5:40323'],
      ['master-number-host-c10d-chatglm-1476.txt', '0.0.3.241:55121'],
    ] as const) {
      const found = diagnoseFile(file)
      const f = only(found, 'MASTER_ADDR_NOT_FABRIC')
      expect(f.evidence['Master address'], file).toBe(address)
      expect(f.message, file).toContain('0.0.0.0/8')
      expect(f.fix, file).toContain('--local-addr')
      // one finding names the cause: not beside it the generic "could not reach the rendezvous"
      expect(
        found.map((x) => x.code),
        file,
      ).not.toContain('RENDEZVOUS_UNREACHABLE')
    }
    // the host as torch was given it ("any network address of (6841231, 47389)"), alone, and a launcher given a number
    const given = only(
      one('[E socket.cpp:753] [c10d] The client socket has failed to connect to any network address of (6841231, 47389).\n'),
      'MASTER_ADDR_NOT_FABRIC',
    )
    expect(given.evidence['Master address']).toBe('6841231:47389')
    expect(given.message).toContain('reads as 0.104.99.143')
    for (const line of ['torchrun --nnodes=2 --node_rank=1 --master_addr=1009 --master_port=29500 train.py', 'export MASTER_ADDR=05'])
      expect(only(one(`${line}\n`), 'MASTER_ADDR_NOT_FABRIC').message, line).toContain('one number')
  })

  it('near misses: one number that is a real address (3232235777 is 192.168.1.1), host names with digits, a routable master that did not answer', () => {
    const codes = (text: string) => one(text).map((f) => f.code)
    expect(codes('torchrun --nnodes=2 --node_rank=1 --master_addr=3232235777 --master_port=29500 train.py\n')).toEqual([])
    expect(codes('torchrun --nnodes=2 --node_rank=1 --master_addr=node01 --master_port=29500 train.py\n')).toEqual([])
    expect(codes('[W socket.cpp:697] [c10d] The client socket has failed to connect to [gpu-01]:29500 (errno: 110 - Connection timed out).\n')).not.toContain(
      'MASTER_ADDR_NOT_FABRIC',
    )
    expect(codes('[W socket.cpp:697] [c10d] The client socket has failed to connect to 10.0.0.5:29500 (errno: 110 - Connection timed out).\n')).toEqual([
      'RENDEZVOUS_UNREACHABLE',
    ])
  })

  it("MASTER_ADDR_NOT_FABRIC: the wrong word of a command's output as the master, a path a login shell printed (huggingface/accelerate#2249)", () => {
    const f = only(diagnoseFile('master-wrong-field-accelerate-2249.txt'), 'MASTER_ADDR_NOT_FABRIC')
    expect(f.evidence).toMatchObject({ 'Master address': '/root/cuda11.8.bashrc', 'Named by': '--master_addr' })
    expect(f.message).toContain('not an address or host name')
  })

  it('MASTER_ADDR_NOT_FABRIC: a worker joining a Ray head at an empty address (ModalMinds/MM-EUREKA#54), beside the GCS failure it causes', () => {
    const found = diagnoseFile('master-empty-ray-mm-eureka-54.txt')
    const f = only(found, 'MASTER_ADDR_NOT_FABRIC')
    expect(f.evidence).toMatchObject({ 'Master address': '(empty):6379', 'Named by': 'ray start --address' })
    expect(f.fix).toContain('ray start --address=')
    expect(found.map((x) => x.code)).toContain('RAY_GCS_UNREACHABLE')
  })

  it('MASTER_ADDR_NOT_FABRIC in every launcher and client form (sources: torch run.py/TCPStore, vLLM arg_utils, Ray gcs_rpc_client, detectron2, SGLang, Paddle)', () => {
    for (const [line, value] of [
      ['torchrun --nnodes=2 --node_rank=1 --rdzv_endpoint=255.255.255.0:29400 --rdzv_backend=c10d train.py', '255.255.255.0:29400'],
      ["python train_net.py --num-machines 2 --machine-rank 1 --dist-url 'tcp://255.255.255.0:3425'", '255.255.255.0:3425'],
      ['vllm serve m --data-parallel-size 4 --data-parallel-address 255.255.240.0 --data-parallel-rpc-port 13345', '255.255.240.0'],
      ['python3 -m sglang.launch_server --model-path m --dist-init-addr 255.255.255.0:30000 --nnodes 2 --node-rank 1', '255.255.255.0:30000'],
      ['ray start --address=255.255.255.0:6379 --num-gpus 8 --block', '255.255.255.0:6379'],
      [
        '[2025-07-23 10:05:49,679 W 51000 51000] gcs_rpc_client.h:151: Failed to connect to GCS at address 255.255.255.0:6379 within 5 seconds.',
        '255.255.255.0:6379',
      ],
      [
        '[W1205 17:21:05.05 TCPStore.cpp:340] [c10d] TCP client failed to connect/validate to host 255.255.0.0:29512 - retrying (try=0, timeout=600000ms, delay=42508ms): Connection timed out',
        '255.255.0.0:29512',
      ],
      ['export MASTER_ADDR=10.0.0.5/24', '10.0.0.5/24'],
      [
        '(Worker pid=5664) INFO 12-05 17:20:04 [parallel_state.py:1588] world_size=2 rank=1 local_rank=0 distributed_init_method=tcp://:29514 backend=nccl',
        '(empty):29514',
      ],
    ] as const) {
      expect(only(one(`${line}\n`), 'MASTER_ADDR_NOT_FABRIC').evidence['Master address'], line).toBe(value)
    }
  })

  it("MASTER_ADDR_LOOPBACK: Debian's 127.0.1.1 from /etc/hosts as the master of a two-node Paddle launch (yeyupiaoling/PPASR#142), and other launchers' spellings", () => {
    const f = only(diagnoseFile('master-loopback-debian-hosts-ppasr-142.txt'), 'MASTER_ADDR_LOOPBACK')
    expect(f.evidence).toMatchObject({ 'Master address': '127.0.1.1:63919', 'Multi-node because': '--nnodes 2' })
    for (const [text, where] of [
      ['python tools/train_net.py --num-gpus 2 --num-machines 2 --machine-rank 1 --dist-url tcp://127.0.0.1:3425\n', '--nnodes 2'],
      ['FORCE_TORCHRUN=1 NNODES=2 NODE_RANK=1 MASTER_ADDR=127.0.1.1 MASTER_PORT=29500 llamafactory-cli train x.yaml\n', '--nnodes 2'],
      ['deepspeed --num_nodes 2 --num_gpus 8 --master_addr localhost --hostfile hostfile train.py\n', '--nnodes 2'],
    ] as const)
      expect(only(one(text), 'MASTER_ADDR_LOOPBACK').evidence['Multi-node because'], text).toBe(where)
  })

  it('near misses: no value to judge (env://, unexpanded variables, placeholders, prose), an unused empty MASTER_ADDR on one node, a local ray start (ray-project/ray#59110)', () => {
    const codes = (text: string) =>
      one(text)
        .map((f) => f.code)
        .filter((c) => c.startsWith('MASTER_ADDR'))
    for (const text of [
      'torchrun --nnodes=2 --node_rank=1 --master_addr=$MASTER_ADDR --master_port=29500 train.py\n',
      'python main.py --dist-url env:// --world-size 2 --rank 1\n',
      "ray start --address='<head-ip>:6379'\n",
      '# on a node started without --master-addr (default 127.0.0.1:29501)\n',
      'MASTER_ADDR=\nMASTER_PORT=29500\nWORLD_SIZE=1\n',
      'torchrun --nnodes=2 --node_rank=1 --master_addr=fe80::1 --master_port=29500 train.py\n',
      'torchrun --nnodes=2 --node_rank=1 --master_addr=gpu-node-01.cluster.local --master_port=29500 train.py\n',
      // a one-node run: 0.0.0.0 reaches the local host (torchrun --standalone style)
      'torchrun --nnodes=1 --nproc_per_node=8 --rdzv_endpoint=0.0.0.0:29400 train.py\n',
      // ray-project/ray#59110: a one-machine ray start at 127.0.0.1 (Ray's own bug: it dialled the public address instead)
      'ray start --address 127.0.0.1:6379\nLocal node IP: 192.168.255.10\n',
    ])
      expect(codes(text), text).toEqual([])
  })
})

describe("GLOO_LOOPBACK: a node's own name resolving to a loopback address, Gloo's pair connect", () => {
  it("gloo pair.cc's connect line at Debian's 127.0.1.1 (pytorch/gloo#223) and at 127.0.0.1 (ray-project/ray#24305), through diagnose", () => {
    for (const [file, peer] of [
      ['gloo-loopback-debian-hosts-gloo-223.txt', '127.0.1.1'],
      ['gloo-loopback-pair-ray-24305.txt', '127.0.0.1'],
    ] as const) {
      const f = only(diagnoseFile(file), 'GLOO_LOOPBACK')
      expect(f.evidence['Peer address'], file).toBe(`${peer} (loopback)`)
    }
    expect(only(diagnoseFile('gloo-loopback-debian-hosts-gloo-223.txt'), 'GLOO_LOOPBACK').message).toContain('/etc/hosts')
  })

  it('near miss: a pair connect to a routable peer is not a loopback (another family or none)', () => {
    expect(one('[../third_party/gloo/gloo/transport/tcp/pair.cc:799] connect [10.0.84.80]:14221: Connection refused\n').map((f) => f.code)).not.toContain(
      'GLOO_LOOPBACK',
    )
  })
})
