/**
 * The classes dev batch dev10b missed (issue 36; first score in fixtures/README.md, "Dev batch dev10b"),
 * each proven on its sources' own wordings and layouts beyond the captures: a placement group the
 * launchers around vLLM waited for (NeMo RL, SkyRL, Ray Train wordings, and a traceback cut inside
 * Ray's get under a placement-group wait), and the collective and device timeouts of the other
 * collective libraries (torch_npu's HCCL watchdog, Ascend's CANN device errors, Gloo's own timeout),
 * which must never read as "No findings".
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => f.code)
const loud = (text: string) => scan(text).filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')

describe("PLACEMENT_GROUP_TIMEOUT: the launchers' own wordings", () => {
  it('reads NeMo RL, SkyRL and Ray Train, with the bundle counts where the line gives them', () => {
    // NeMo RL nemo_rl/distributed/virtual_cluster.py (_create_placement_groups_internal)
    expect(
      codes(
        'TimeoutError: Timed out waiting for placement groups to be ready. The cluster may not have enough resources to satisfy the requested configuration, or the resources may be busy with other tasks.',
      ),
    ).toContain('PLACEMENT_GROUP_TIMEOUT')
    // SkyRL skyrl_train/utils/utils.py (get_ray_pg_ready_with_timeout), behind a Ray actor prefix
    const sky = scan(
      '(skyrl_entrypoint pid=4242) RuntimeError: Failed to create placement group with 4 bundles (requiring 4 GPUs, 4 CPUs total) in 180 seconds. This might indicate insufficient GPU resources.',
    ).find((f) => f.code === 'PLACEMENT_GROUP_TIMEOUT')
    expect(sky?.evidence).toMatchObject({ Bundles: '4', 'GPUs requested': '4', Timeout: '180 s' })
    // Ray Train backend executor / xgboost_ray
    expect(
      codes('TimeoutError: Placement group creation timed out. Make sure your cluster either has enough resources or use an autoscaling cluster.'),
    ).toContain('PLACEMENT_GROUP_TIMEOUT')
  })
  it('near miss: placement-group lines of a healthy start are no failure', () => {
    for (const line of [
      'INFO 06-16 06:13:42 [ray_utils.py:314] Using the existing placement group',
      'INFO 03-30 14:11:45 [ray_utils.py:339] No current placement group found. Creating a new placement group.',
      '(TaskRunner pid=1) Retrying placement group creation... 1/6. Next retry in 1 seconds.',
    ])
      expect(loud(line), line).toEqual([])
  })
})

describe('PLACEMENT_GROUP_TIMEOUT: a traceback cut inside a wait for a placement group', () => {
  const rayGet = [
    '  File "/venv/lib/python3.12/site-packages/ray/_private/auto_init_hook.py", line 22, in auto_init_wrapper',
    '    return fn(*args, **kwargs)',
    '  File "/venv/lib/python3.12/site-packages/ray/_private/worker.py", line 2882, in get',
    '    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)',
  ]
  it('the waiting line itself: ray.get(<pg>.ready(), …) then Ray get frames (NVIDIA-NeMo/RL#2352 layout)', () => {
    const text = [
      'Traceback (most recent call last):',
      '  File "/opt/nemo-rl/nemo_rl/algorithms/grpo.py", line 452, in setup',
      '    ray.get(helper_pg.ready(), timeout=1000)',
      ...rayGet,
    ].join('\n')
    const f = scan(text).find((x) => x.code === 'PLACEMENT_GROUP_TIMEOUT')
    expect(f?.evidence['Waiting on']).toBe('helper_pg.ready()')
    expect(codes(text)).not.toContain('UNRECOGNISED_FAILURE')
  })
  it('a function named for placement groups whose line is ray.get( (skypilot#7257 layout, behind a launcher prefix)', () => {
    const text = [
      '(head, rank=0, pid=4734) Traceback (most recent call last):',
      '(head, rank=0, pid=4734)   File "/root/nemo-rl/nemo_rl/distributed/virtual_cluster.py", line 330, in _create_placement_groups_internal',
      '(head, rank=0, pid=4734)     ray.get(',
      ...rayGet.map((l) => `(head, rank=0, pid=4734) ${l}`),
    ].join('\n')
    expect(codes(text)).toContain('PLACEMENT_GROUP_TIMEOUT')
  })
  it("a list of groups and vLLM's ray.wait, ending in Ray's GetTimeoutError", () => {
    const nemo = [
      'Traceback (most recent call last):',
      '  File "/opt/nemo-rl/nemo_rl/distributed/virtual_cluster.py", line 250, in _create_placement_groups_internal',
      '    ray.get([pg.ready() for pg in placement_groups], timeout=180)',
      'ray.exceptions.GetTimeoutError: Get timed out: some object(s) not ready.',
    ].join('\n')
    const f = scan(nemo).find((x) => x.code === 'PLACEMENT_GROUP_TIMEOUT')
    expect(f?.evidence).toMatchObject({ 'Ray error': 'GetTimeoutError' })
    const vllm = [
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/ray_utils.py", line 331, in _wait_until_pg_ready',
      '    ready, _ = ray.wait([current_placement_group.ready()], timeout=wait_interval)',
      ...rayGet,
    ].join('\n')
    expect(codes(vllm)).toContain('PLACEMENT_GROUP_TIMEOUT')
  })
  it('near misses: a get of something else, a get under another frame, a GetTimeoutError with no group, a group function raising its own error', () => {
    const other = [
      'Traceback (most recent call last):',
      '  File "/workdir/openrlhf/cli/train_ppo_ray.py", line 171, in train',
      '    ray.get(refs)',
      ...rayGet,
      'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.',
    ].join('\n')
    expect(codes(other)).not.toContain('PLACEMENT_GROUP_TIMEOUT')
    const deeper = [
      'Traceback (most recent call last):',
      '  File "/verl/single_controller/ray/base.py", line 131, in get_placement_groups',
      '    ray.get(',
      '  File "/verl/single_controller/ray/base.py", line 150, in _sort_placement_group_by_node_ip',
      '    node_ip = ray.get(get_ip.remote())',
      ...rayGet,
    ].join('\n')
    // the frame under the group function is another user frame (not Ray's get): not a wait for the group
    expect(codes(deeper.replace('in _sort_placement_group_by_node_ip', 'in sort_by_ip'))).not.toContain('PLACEMENT_GROUP_TIMEOUT')
    expect(codes('ray.exceptions.GetTimeoutError: Get timed out: some object(s) not ready.')).not.toContain('PLACEMENT_GROUP_TIMEOUT')
    const named = [
      'Traceback (most recent call last):',
      '  File "/verl/single_controller/ray/base.py", line 157, in get_placement_groups',
      '    pg = placement_group(bundles=bundles, strategy=strategy, name=name)',
      "ValueError: Failed to look up actor with name global_poolverl_group_4:0. You are either trying to look up a named actor you didn't create",
    ].join('\n')
    expect(codes(named)).not.toContain('PLACEMENT_GROUP_TIMEOUT')
    // a later traceback does not inherit an earlier one's wait
    const two = [
      'Traceback (most recent call last):',
      '    ray.get(pg.ready(), timeout=60)',
      'KeyboardInterrupt',
      'Traceback (most recent call last):',
      ...rayGet,
    ].join('\n')
    expect(codes(two)).not.toContain('PLACEMENT_GROUP_TIMEOUT')
  })
})

describe('UNRECOGNISED_FAILURE: the collective and device timeouts of every collective library are failure lines', () => {
  it('reads CANN device errors, torch_npu records, the HCCL watchdog and Gloo timeouts', () => {
    for (const text of [
      // vllm-project/vllm-ascend#16646 (the issue body), CANN runtime device_error_proc.cc
      'The error from device(chipId:0/2/4/5/6/7, dieId:0), serial number is …,\nhccl fftsplus task timeout occurred during task execution,\nstream_id:9, sq_id:9, task_id:51052, stuck notify num:1, timeout=1836s.',
      // the same line after its error code, with the timestamp CANN puts in front
      'EI9999: Inner Error!\nEI9999: 2024-10-21-10:42:00.204.495  The error from device(chipId:2, dieId:0), serial number is 9, hccl fftsplus task timeout occurred during task execution, stream_id:5, sq_id:5, task_id:38827, stuck notify num:1, timeout:30min(default).[FUNC:ProcessStarsHcclFftsPlusTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1435]',
      // the notify-wait variant (device_error_proc.cc, RT_STARS_SQE_TYPE_NOTIFY_WAIT)
      'notify wait timeout occurred during task execution, stream_id:3, sq_id:3, task_id:12, notify_id=4, timeout=1800s.',
      // torch_npu's own ERROR record behind a launcher's worker prefix
      'worker-1: [ERROR] 2024-07-03-11:28:40 (PID:639, Device:0, RankID:16) ERR00100 PTA call acl api failed.',
      // torch_npu ProcessGroupHCCL's watchdog (a copy of ProcessGroupNCCL.cpp)
      '[Rank 3] Watchdog caught collective operation timeout: WorkHCCL(SeqNum=876319, OpType=BROADCAST, NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for 600089 milliseconds before timing out.',
      'Some HCCL operations have failed or timed out. Due to the asynchronous nature of NPU kernels, subsequent NPU operations might run on corrupted/incomplete data.',
      // torch Gloo's own timeout without an exception in front (gloo/transport/tcp/unbound_buffer.cc)
      '[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete',
    ]) {
      const f = scan(text).find((x) => x.code === 'UNRECOGNISED_FAILURE')
      expect(f, text).toBeDefined()
      expect(f!.severity).toBe('error')
    }
  })
  it('near misses: the timeout settings and healthy NPU lines a start prints are no failure', () => {
    for (const line of [
      'export HCCL_CONNECT_TIMEOUT=120',
      'export HCCL_EXEC_TIMEOUT=1800',
      'INFO 11-10 02:40:57 [loggers.py:127] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 4.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.2%',
      '[2026-03-12 11:50:31] (TaskRunner pid=3483799) step:0 - timing/wait_timeout_s:30.0',
      'host:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0> Timeout(ms)=600000',
      'EID0001 is the identifier of this job',
    ])
      expect(loud(line), line).toEqual([])
  })
})

describe("GPU_OUT_OF_MEMORY: the device allocator's wording on every accelerator", () => {
  it('reads torch_npu, torch on ROCm and CANN, with the size, the device and what was free', () => {
    // vllm-project/vllm-ascend#1987 (torch_npu's allocator)
    const npu = scan(
      '【BUG】：RuntimeError: NPU out of memory. Tried to allocate 3.47 GiB (NPU 0; 60.97 GiB total capacity; 58.92 GiB already allocated; 58.92 GiB current active; 1.66 GiB free; 58.95 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.',
    ).find((f) => f.code === 'GPU_OUT_OF_MEMORY')
    expect(npu?.evidence).toMatchObject({ 'Tried to allocate': '3.47 GiB', 'NPU total': '60.97 GiB', 'Free then': '1.66 GiB' })
    expect(npu?.message).toContain('NPU 0')
    // torch 2.x on Ascend through vLLM's worker prefix
    expect(
      codes('(VllmWorker rank=3 pid=9) ERROR 06-15 [multiproc_executor.py:9] torch.OutOfMemoryError: NPU out of memory. Tried to allocate 674.00 MiB'),
    ).toContain('GPU_OUT_OF_MEMORY')
    // torch on ROCm (salesforce/CodeGen2#3 layout, behind a host prefix) and HIP's own error
    const hip = scan(
      'c05r2n11: RuntimeError: HIP out of memory. Tried to allocate 576.00 MiB (GPU 3; 15.98 GiB total capacity; 15.83 GiB already allocated; 0 bytes free; 15.84 GiB reserved in total by PyTorch)',
    ).find((f) => f.code === 'GPU_OUT_OF_MEMORY')
    expect(hip?.evidence).toMatchObject({ 'GPU total': '15.98 GiB', Runtime: 'ROCm HIP' })
    expect(codes('RuntimeError: HIP error: out of memory')).toContain('GPU_OUT_OF_MEMORY')
    // CANN through torch_npu (vllm-project/vllm-ascend#5650)
    expect(
      codes(
        [
          'capture_begin:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:178 NPU function error: c10_npu::acl::AclmdlRICaptureBegin(capture_stream_, capture_mode), error code is 207005',
          '[ERROR] 2026-01-06-17:54:58 (PID:357, Device:0, RankID:-1) ERR00100 PTA call acl api failed',
          '[Error]: Failed to apply for memory.',
        ].join('\n'),
      ),
    ).toContain('GPU_OUT_OF_MEMORY')
  })
  it("near misses: a host allocation CANN refused is not the NPU's memory; the allocator settings are no failure", () => {
    const host = [
      '(DiffusionWorker_SP7 pid=1119) CachingHostAllocator.cpp:252 NPU function error: aclrtMallocHostWithCfg, error code is 207001',
      '(DiffusionWorker_SP7 pid=1119) [ERROR] 2026-10-10-01:49:39 (PID:1119, Device:7, RankID:7) ERR00100 PTA call acl api failed',
      '(DiffusionWorker_SP7 pid=1119) [Error]: Failed to apply for memory.',
    ].join('\n')
    expect(codes(host)).not.toContain('GPU_OUT_OF_MEMORY')
    expect(codes(host)).toContain('UNRECOGNISED_FAILURE')
    for (const line of [
      'export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True',
      'INFO 01-06 [worker.py:1] NPU memory profiling: 58.92 GiB used before KV cache',
    ])
      expect(loud(line), line).toEqual([])
  })
})
