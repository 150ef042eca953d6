import { describe, expect, it } from 'vitest'
import { createLineJoiner } from '../../src/preflight/paste-normalise.js'
import { scanLog } from '../../src/preflight/signatures.js'

const scan = (text: string) => scanLog(text, 'paste')
/** The logical line a single pasted line reads as. */
const read = (line: string): string => {
  const joiner = createLineJoiner()
  return [...joiner.push(line), ...joiner.end()].map((l) => l.text).join('\n')
}

describe('links an autolinker made of host-like words are read as the words', () => {
  it("NCCL's source names and peers' IPs turned into markdown links (NVIDIA/nccl#1710) give the peer, not the link", () => {
    // NVIDIA/nccl#1710: GitHub took `net_ib.cc:1909` and the peers' IPs for web addresses
    const line =
      '> node023:10214:10303 [0] transport/[net_ib.cc:1909](http://net_ib.cc:1909/) NCCL WARN NET/IB : Got completion from peer [10.1.3.201](http://10.1.3.201/)<33057> with status=9 opcode=0 len=0 vendor err 138 (Send) localGid ::ffff:[10.206.1.23](http://10.206.1.23/) remoteGids::ffff:[10.206.1.11](http://10.206.1.11/)'
    const f = scan(line).find((x) => x.code === 'NCCL_TRANSPORT_ERROR')
    expect(f?.evidence.Peer).toMatch(/^10\.1\.3\.201\b/)
    expect(f?.evidence.Peer).not.toContain('](')
    expect(f?.evidence['Remote GID']).toBe('::ffff:10.206.1.11')
  })
  it('reads the same form in other wordings: NCCL socket connect (misc/socket.cc), a Ray GCS address, https and no trailing slash', () => {
    // NCCL 2.2x misc/socket.cc: "socketStartConnect: Connect to %s failed : %s"
    expect(
      read(
        'h1:1:2 [0] misc/[socket.cc:484](http://socket.cc:484/) NCCL WARN socketStartConnect: Connect to [10.0.0.2](http://10.0.0.2)<43511> failed : Software caused connection abort',
      ),
    ).toBe('h1:1:2 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<43511> failed : Software caused connection abort')
    // Ray rpc_client.h (2.4x–2.5x): "Failed to connect to GCS at address %s within %d seconds."
    expect(
      read(
        '[2026-04-20 17:24:52,119 W 1 1] [rpc_client.h:153](https://rpc_client.h:153/): Failed to connect to GCS at address [172.16.11.65:41000](http://172.16.11.65:41000/) within 5 seconds.',
      ),
    ).toBe('[2026-04-20 17:24:52,119 W 1 1] rpc_client.h:153: Failed to connect to GCS at address 172.16.11.65:41000 within 5 seconds.')
    expect(
      scan(
        '[2026-04-20 17:24:52,119 W 1 1] rpc_client.h:153: Failed to connect to GCS at address [172.16.11.65:41000](http://172.16.11.65:41000/) within 5 seconds.',
      ).map((f) => f.code),
    ).toContain('RAY_GCS_UNREACHABLE')
  })
  it("near miss: real links, a link to another address and a log's own brackets stay as they are", () => {
    for (const line of [
      'See [the docs](https://docs.vllm.ai/en/latest/serving/distributed_serving.html) for multi-node.',
      'fixed by [#45179](https://github.com/vllm-project/vllm/pull/45179)',
      '[net_ib.cc](http://example.com/net_ib.cc) is where it fails',
      "specs=[{'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status`",
      '[2026-01-01 00:00:00,000 I 1 1] (raylet) main.cc:300: [http://10.0.0.1] ok',
    ])
      expect(read(line)).toBe(line)
  })
})
