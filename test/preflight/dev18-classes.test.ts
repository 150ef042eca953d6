/**
 * Classes from dev batch dev18: Ray's own fatal check (RAY_CHECK's "An unexpected system state has occurred … Check failed: …", a Ray bug) read
 * into the UNRECOGNISED_FAILURE with the Ray process, the source line and the check, and Ray Compiled Graphs named where the check is in its
 * mutable-object channels (vLLM's Ray executor across nodes); SGLang's load barrier ("TP rank N could finish the model loading, but there are
 * other ranks that didn't finish loading") read as "the cause is on the ranks that never arrived". Wordings from ray-project/ray
 * src/ray/util/logging.h and the reports quoted below; sglang python/sglang/srt/model_executor/model_runner.py (0.4-0.5.x). Near misses stay clean.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 't.log')
const unrecognised = (text: string) => scan(text).filter((f) => f.code === 'UNRECOGNISED_FAILURE')

describe("UNRECOGNISED_FAILURE: Ray's own fatal check", () => {
  it("a raylet aborting in Compiled Graphs' mutable-object provider (ray-project/ray#59191, 2025)", () => {
    const f = unrecognised(
      "[2025-12-05 11:51:55,584 C 1154169 1154169] (raylet) experimental_mutable_object_provider.cc:154:  An unexpected system state has occurred. You have likely discovered a bug in Ray. Please report this issue at https://github.com/ray-project/ray/issues and we'll work with you to fix it. Check failed: object_manager_->WriteAcquire(info.local_object_id, total_data_size, nullptr, total_metadata_size, info.num_readers, object_backing_store) Status not OK: ChannelError: Channel closed. \n*** StackTrace Information ***\n",
    )
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence).toMatchObject({
      'Ray process': 'raylet',
      'Ray source': 'experimental_mutable_object_provider.cc:154',
      'Ray feature': "Compiled Graphs (vLLM's Ray executor)",
    })
    expect(f[0]!.evidence['Check that failed']).toMatch(/^object_manager_->WriteAcquire\(.*ChannelError: Channel closed\./)
    expect(f[0]!.message).toMatch(/what failed: Ray's own internal check in its raylet \(Compiled Graphs' mutable-object channel\)/)
    expect(f[0]!.fix).toMatch(/a bug in Ray, not a setting/)
    expect(f[0]!.fix).toMatch(/--nnodes\/--node-rank\/--master-addr/)
  })

  it("a worker's OpenSemaphores check with no component named, after a clean start on 2x DGX Spark (ray-project/ray#62328, 2026)", () => {
    const f = unrecognised(
      [
        '(APIServer pid=1) INFO:     Application startup complete.',
        "(EngineCore pid=107) INFO 04-03 12:10:43 [ray_executor.py:634] Using Ray's NCCL communicator for Ray Compiled Graph communication.",
        "[2026-04-03 12:10:44,576 C 107 107] experimental_mutable_object_manager.cc:177:  An unexpected system state has occurred. You have likely discovered a bug in Ray. Please report this issue at https://github.com/ray-project/ray/issues and we'll work with you to fix it. Check failed: RAY_PREDICT_TRUE(_left_ != _right_)  0 vs 0",
        '',
      ].join('\n'),
    )
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence['Ray process']).toBeUndefined()
    expect(f[0]!.evidence).toMatchObject({
      'Ray source': 'experimental_mutable_object_manager.cc:177',
      'Check that failed': 'RAY_PREDICT_TRUE(_left_ != _right_)  0 vs 0',
    })
    expect(f[0]!.fix).toMatch(/^Ray aborted on one of its own internal checks/)
  })

  it("the GCS's bare check of older releases, not Compiled Graphs (ray-project/ray#40589, 2023)", () => {
    const f = unrecognised(
      '[2023-10-23 07:01:14,720 C 290 290] (gcs_server) id_def.h:25:  Check failed: binary.size() == Size() || binary.size() == 0 expected size is 28, but got data of size 27\n*** StackTrace Information ***\n',
    )
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence).toMatchObject({ 'Ray process': 'gcs_server', 'Ray source': 'id_def.h:25' })
    expect(f[0]!.evidence['Ray feature']).toBeUndefined()
    expect(f[0]!.fix).not.toMatch(/Compiled Graphs/)
  })

  it('the shorter preamble of a 2026 raylet, with the Ray prefix a driver adds (raylet node_manager.cc)', () => {
    const f = unrecognised(
      '(raylet, ip=10.56.58.11) [2026-05-08 15:00:23,783 C 159 159] (raylet) node_manager.cc:3309:  An unexpected system state has occurred. Check failed: status.has_value() Timed out waiting for file /tmp/ray/session_2026-05-07_11-59-38_801864_1/metrics_agent_port\n',
    )
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence).toMatchObject({ 'Ray process': 'raylet', 'Ray source': 'node_manager.cc:3309' })
  })

  it('near misses: an E record, a health-check warning and a glog check of another program carry no Ray-check note', () => {
    for (const line of [
      '[2025-03-03 13:03:38,823 E 53766 2515875] core_worker.cc:499: :info_message: Attempting to recover 1 lost objects by resubmitting their tasks.',
      '[2022-11-14 04:46:24,287 W 2143 2143] (gcs_server) gcs_health_check_manager.cc:108: Health check failed for node 6ab5f17b693563a70020f2747c7ce198cf18f1edd771ec4795cc37da, remaining checks 4',
      'F0505 18:21:58.604787  7485 node_manager.cc:3094]  Check failed: node_info Spilling back to a node manager, but no GCS info found for node 075633a6',
    ]) {
      for (const f of scan(`${line}\n`)) {
        expect(f.evidence['Ray source'], line).toBeUndefined()
        expect(f.fix ?? '', line).not.toMatch(/own internal checks/)
      }
    }
  })
})

describe("UNRECOGNISED_FAILURE: SGLang's load barrier (other ranks never finished loading)", () => {
  const frames = ['  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 840, in load_model', '    raise ValueError(']
  for (const [name, line, rank] of [
    [
      'a code change that hung loading on some ranks (sgl-project/sglang#13347, 2025)',
      "ValueError: TP rank 2 could finish the model loading, but there are other ranks that didn't finish loading. It is likely due to unexpected failures (e.g., OOM) or a slow node.",
      '2',
    ],
    [
      'the older wording with "e.g." without a comma (sgl-project/sglang#4503, 2025)',
      "ValueError: TP rank 1 could finish the model loading, but there are other ranks that didn't finish loading. It is likely due to unexpected failures (e.g. OOM) or a slow node.",
      '1',
    ],
    [
      "rank 1 of a 2025 build, then the next rank's scheduler record (kvcache-ai/ktransformers#1666, SGLang inside)",
      "ValueError: TP rank 1 could finish the model loading, but there are other ranks that didn't finish loading. It is likely due to unexpected failures (e.g., OOM) or a slow node.\n\n[2025-12-04 07:44:24 TP2] Scheduler hit an exception: Traceback (most recent call last):",
      '1',
    ],
  ] as const) {
    it(name, () => {
      const f = unrecognised(`${[...frames, line].join('\n')}\n`)
      expect(f).toHaveLength(1)
      expect(f[0]!.evidence['Rank that finished loading']).toBe(rank)
      expect(f[0]!.message).toMatch(/what failed: SGLang's load barrier/)
      expect(f[0]!.fix).toMatch(/^This rank loaded its weights and then waited for the others/)
      expect(f.some((x) => x.code === 'OOM_KILLED')).toBe(false)
    })
  }

  it('near misses: healthy load lines stay clean', () => {
    const healthy = [
      '[2025-10-16 09:06:10 TP0] Load weight begin. avail mem=137.34 GB',
      '[2025-10-16 09:08:10 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=60.10 GB, mem usage=77.24 GB.',
      'Loading safetensors checkpoint shards: 100% Completed | 30/30 [01:58<00:00,  3.95s/it]',
    ].join('\n')
    expect(scan(`${healthy}\n`).filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')).toEqual([])
  })
})
