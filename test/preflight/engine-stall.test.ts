/**
 * Two ways a failing log used to read as something less than a failure without a cause (issue 36, "never silent"):
 * vLLM's engine waiting on its workers after its start-up finished (engine-stall.ts), and an engine death that is the
 * log's only error and names no cause (signature-fallback.ts, causeNotNamed). Wordings from vLLM's shm_broadcast.py
 * across versions and the threads named beside each line; near misses that must stay quiet.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const unrecognised = (text: string) => scan(text).find((f) => f.code === 'UNRECOGNISED_FAILURE')
const errors = (text: string) => scan(text).filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')

const NEW_WAIT =
  'No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation, weight/kv cache quantization).'
const MID_WAIT =
  'No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).'

describe("vLLM's engine waiting on its workers after start-up: a hang, never silent", () => {
  it('after each kind of start-up line, in each wording, the wait is the failure line with the hang explained', () => {
    for (const [started, wait] of [
      // vLLM V1's engine start (the MiaAI two-Spark stall shape), 0.1x wording
      ['(EngineCore_DP0 pid=1) INFO 03-01 10:00:00 [core.py:250] init engine (profile, create kv cache, warmup model) took 87.34 seconds', NEW_WAIT],
      // the API server's own start, then the queue waiting (vllm-ascend#3977's repeating INFO line)
      [
        '(APIServer pid=9) INFO 11-04 18:50:00 [api_server.py:1000] Starting vLLM API server 0 on http://0.0.0.0:8000',
        `(EngineCore_DP0 pid=25527) INFO 11-04 18:54:33 [shm_broadcast.py:466] ${MID_WAIT}`,
      ],
      // uvicorn's start-up line, then a 0.6-era warning without "shared memory broadcast"
      ['INFO:     Application startup complete.', 'WARNING 09-01 12:00:00 shm_broadcast.py:386] No available block found in 60 second. '],
      // an offline LLM.generate run whose progress bar stays at 0 % (vllm-ascend#3717)
      [
        'Processed prompts:   0%|          | 0/4 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, output: 0.00 toks/s]',
        `(EngineCore_DP0 pid=323240) INFO 12-09 11:25:53 [shm_broadcast.py:466] ${MID_WAIT}`,
      ],
    ]) {
      const text = `${started}\n${wait}\n${wait}\n`
      const f = unrecognised(text)
      expect(f, text).toBeDefined()
      expect(f!.severity).toBe('error')
      expect(f!.message).toContain('hang')
      expect(f!.evidence['First failing line']).toContain('No available')
    }
  })
  it('another failure line in the log is what the finding quotes first, not the wait', () => {
    const f = unrecognised(
      `INFO:     Application startup complete.\n${NEW_WAIT}\n[rank1]:[E1224 13:23:05.48 ProcessGroupNCCL.cpp:542] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12590, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n`,
    )
    expect(f!.evidence['First failing line']).toContain('Watchdog')
  })
  it('near misses: a wait during a long load or compile that goes on, and a stall that ends in generation', () => {
    for (const text of [
      // gpustack#3888: a long load logs the wait, then the start goes on
      `INFO 12-15 10:00:00 [gpu_model_runner.py:2000] Loading model from scratch...\n${MID_WAIT}\n${MID_WAIT}\nINFO 12-15 10:03:00 [gpu_model_runner.py:2100] Model loading took 120.1 GiB and 170.2 seconds\nINFO 12-15 10:05:00 [api_server.py:1000] Starting vLLM API server 0 on http://0.0.0.0:8000\n`,
      // the first request's compilation after the start, then the engine generates
      `INFO:     Application startup complete.\n${NEW_WAIT}\nINFO 03-01 10:02:10 [loggers.py:123] Engine 000: Avg prompt throughput: 812.4 tokens/s, Avg generation throughput: 35.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs\n`,
      // an offline run that finishes
      `Processed prompts:   0%|          | 0/4 [00:00<?, ?it/s]\n${MID_WAIT}\nProcessed prompts: 100%|██████████| 4/4 [01:10<00:00, 17.6s/it]\n`,
    ])
      expect(errors(text), text).toEqual([])
  })
  it('near miss: an idle server whose throughput line reads zero is no stall by itself', () => {
    expect(
      errors(
        'INFO:     Application startup complete.\nINFO 03-01 10:02:10 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs\n',
      ),
    ).toEqual([])
  })
})

describe('an engine death that is the only error and names no cause: UNRECOGNISED_FAILURE beside it', () => {
  it('the death and a failure without a cause, quoting the death line', () => {
    for (const line of [
      // vLLM V1 (vllm-project/vllm#52504 shape): the RPC to the workers timed out
      '(EngineCore_DP0 pid=77) ERROR 05-02 10:00:00 [core.py:900] EngineCore encountered a fatal error.',
      // ray-project/ray#63875 shape
      'RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}',
    ]) {
      const found = scan(`${line}\n`)
      expect(
        found.map((f) => f.code),
        line,
      ).toContain('ENGINE_DEAD')
      const f = found.find((x) => x.code === 'UNRECOGNISED_FAILURE')
      expect(f, line).toBeDefined()
      expect(line).toContain(f!.evidence['First failing line'])
      expect(f!.message).toContain('ENGINE_DEAD')
    }
  })
  it('not when another error names the cause, nor when the death names its own', () => {
    expect(
      scan(
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.02 GiB is free.\nRuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n',
      ).map((f) => f.code),
    ).not.toContain('UNRECOGNISED_FAILURE')
    expect(scan('(EngineCore_DP0 pid=300) AssertionError: collective_rpc should not be called on follower node\n').map((f) => f.code)).not.toContain(
      'UNRECOGNISED_FAILURE',
    )
  })
})
