/**
 * The classes held-out batch 14 missed with the cause in its log (issue 36; first score 18/26 in fixtures/README.md), each read from
 * its program's own wording and tried on several sources, with near misses. The lines below come from other public sources (named
 * beside each) or are written in the program's documented wording; batch 14's own captures are scored in held-out.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
const codes = (text: string) => scan(text).map((f) => `${f.severity}:${f.code}`)
const failures = (text: string) => scan(text).filter((f) => f.severity === 'error' || f.code === 'UNRECOGNISED_FAILURE')

describe("a launcher's own refusal of a port already taken, at an error mark", () => {
  it('reads the port and, where the launcher names it, the holder', () => {
    const held = scan("[glm53-exl3] ERROR: port 8000 is held by glm53-exl3-head — use './start.sh restart' or './start.sh stop' first\n")
    const f = held.find((x) => x.code === 'PORT_IN_USE')
    expect(f?.severity).toBe('error')
    expect(f?.evidence.Port).toBe('8000')
    expect(f?.evidence['Held by']).toBe('glm53-exl3-head')
  })
  it('other launchers and wordings: a proxy set-up script, a PowerShell pre-check, a troubleshooting page quoting its server', () => {
    // a reverse-proxy set-up script's `echo "[Error] UDP port ${custom_port} is already in use by another mapping." >&2; exit 1`
    const udp = scan('[Error] UDP port 5000 is already in use by another mapping.\n').find((x) => x.code === 'PORT_IN_USE')
    expect(udp?.evidence.Port).toBe('5000')
    expect(udp?.evidence['Held by']).toBeUndefined()
    // `Write-Host "❌ Port $port is already in use" -ForegroundColor Red` before the script stops
    expect(codes('❌ Port 8188 is already in use\n')).toContain('error:PORT_IN_USE')
    expect(codes('Error: Port 8000 Is Already in Use\n')).toContain('error:PORT_IN_USE')
    expect(codes('2026-03-02 10:14:07 FATAL launcher: TCP port 29500 already in use\n')).toContain('error:PORT_IN_USE')
  })
  it('near misses: a warning that goes on to the next port, advice, a free port', () => {
    // `print_warning "Port $port is already in use"; return 1` in a find_available_port loop: the launcher tries the next one
    expect(codes('[WARN] Port 8080 is already in use\n')).not.toContain('error:PORT_IN_USE')
    expect(codes('WARNING: port 8000 is already in use, trying 8001\n')).not.toContain('error:PORT_IN_USE')
    expect(codes('- Check if port 8000 is already in use: `lsof -i :8000`\n')).toEqual([])
    expect(codes('[launcher] INFO: port 8000 is free, starting vllm serve\n')).toEqual([])
  })
})

describe("Ray's file-system monitor: the session directory over its capacity threshold (file_system_monitor.cc)", () => {
  it('reads the path, the threshold and the space in either unit Ray printed, as a warning', () => {
    // vllm-project/vllm#721 (2023, Ray 2.5: bytes)
    const bytes = scan(
      '[2023-08-09 22:39:16,002 E 209 223] (raylet) file_system_monitor.cc:111: /tmp/ray/session_2023-08-09_22-27-32_558284_37 is over 95% full, available space: 60427313152; capacity: 1599538507776. Object creation will fail if spilling is required.\n',
    ).find((x) => x.code === 'DISK_SPACE_LOW')
    expect(bytes?.severity).toBe('warning')
    expect(bytes?.evidence.Path).toBe('/tmp/ray/session_2023-08-09_22-27-32_558284_37')
    expect(bytes?.evidence['Free space']).toBe('60.4 GB')
    expect(bytes?.evidence.Capacity).toBe('1599.5 GB')
    // a verl user's notes (2025, Ray 2.4x: GB), behind Ray's own prefix
    const gb = scan(
      '(raylet) [2025-10-20 01:48:15,818 E 998594 998629] (raylet) file_system_monitor.cc:116: /tmp/ray/session_2025-10-20_01-47-33_454343_990302 is over 95% full, available space: 77.5226 GB; capacity: 1874.72 GB. Object creation will fail if spilling is required.\n',
    ).find((x) => x.code === 'DISK_SPACE_LOW')
    expect(gb?.evidence['Free space']).toBe('77.5226 GB')
    expect(gb?.evidence['Full over']).toBe('95%')
    // an RL run's log (2026), between its task runner's lines
    expect(
      codes(
        '(IsoGraphTaskRunner pid=3047524) Using dataset class: RLHFDataset\n(raylet) [2026-04-05 21:13:24,446 E 3046261 3046294] (raylet) file_system_monitor.cc:116: /tmp/ray/session_2026-04-05_21-13-11_721984_3045524 is over 95% full, available space: 2.10976 GB; capacity: 467.89 GB. Object creation will fail if spilling is required.\n',
      ),
    ).toEqual(['warning:DISK_SPACE_LOW'])
    // a write-up that cut the path and wrapped the line
    expect(
      codes('[raylet] file_system_monitor.cc:116: /tmp/ray/session_... is over 95% full, \navailable space: 21.7165 GB; capacity: 491.586 GB. \n'),
    ).toContain('warning:DISK_SPACE_LOW')
    expect(codes('/tmp/ray/session_latest has no capacity, object creation will fail if spilling is required.\n')).toContain('warning:DISK_SPACE_LOW')
  })
  it('near misses: spilling that works, the object store on /tmp (its own rule)', () => {
    expect(codes('(raylet) Spilled 1024 MiB, 12 objects, write throughput 400 MiB/s.\n')).toEqual([])
    expect(codes('(raylet) [2025-01-02 10:00:00,000 I 1 2] (raylet) local_object_manager.cc:490: Spilled 5 MiB, 1 objects\n')).toEqual([])
  })
})

describe("Ray's node-death message with the node cut out of a write-up", () => {
  it('reads the elided form as RAY_NODE_DEAD, and the full form still names the node', () => {
    expect(codes('The node ... has been marked dead because the detector has missed too many heartbeats from it.\n')).toContain('error:RAY_NODE_DEAD')
    expect(codes('The node … has been marked dead because the monitor has missed too many heartbeats from it.\n')).toContain('error:RAY_NODE_DEAD')
    const full = scan(
      'The node with node id: 4a1b2c3d4e5f60718293a4b5c6d7e8f9 and address: 10.0.0.2 and node name: 10.0.0.2 has been marked dead because the detector has missed too many heartbeats from it.\n',
    ).find((x) => x.code === 'RAY_NODE_DEAD')
    expect(full?.evidence['Node address']).toBe('10.0.0.2')
  })
  it('near miss: a node that left on purpose', () => {
    expect(codes('INFO node_manager.cc:1 The node has been drained and will be removed.\n')).not.toContain('error:RAY_NODE_DEAD')
  })
})

describe("a shell launcher's error line behind its tags is a failure line, never silent", () => {
  it('one or two bracketed tags, then the level and a colon, or the level as the last tag', () => {
    for (const line of [
      '[sparkrun] ERROR: model directory /models/qwen is missing on 192.168.100.11',
      '[10:02:11] [ops-sup] ERROR: worker did not come up within 600 s',
      '[2026-08-03 10:02:11] [ERROR] vllm serve exited before the health check answered',
      '[node-1] FATAL: container vllm_node exited with status 1',
    ])
      expect(codes(`${line}\n`), line).toContain('error:UNRECOGNISED_FAILURE')
  })
  it("near misses: transformers' docstring check at [ERROR] on a healthy start, a level word in a sentence, an INFO tag", () => {
    expect(
      failures(
        'Aug 25 19:32:22 sys0 vllm[7222]: (APIServer pid=7222) [ERROR] `min_frames` is part of Qwen3VLVideoProcessorInitKwargs, but not documented. Make sure to add it to the docstring of the function in /data/.venv/lib/python3.12/site-packages/transformers/models/qwen3_vl/video_processing_qwen3_vl.py.\n',
      ),
    ).toEqual([])
    expect(
      failures(
        "[2026-01-02 10:00:00] [ERROR] `loss` is part of Qwen3_5CausalLMOutputWithPast.__init__'s signature, but not documented. Make sure to add it to the docstring of the function in /usr/lib/python3.13/site-packages/transformers/models/qwen3_5/modeling_qwen3_5.py.\n",
      ),
    ).toEqual([])
    expect(failures('[launcher] checking for ERROR: lines in the worker log\n')).toEqual([])
    expect(failures('[launcher] INFO: no ERROR found, cluster healthy\n')).toEqual([])
  })
})
