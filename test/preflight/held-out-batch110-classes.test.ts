/**
 * Classes found in session 62's second round (held-out batches 110–114, scored first at 0e1e969: 14/21 right, 16/21 with the collectors'
 * alsoFair codes, no false alarm on 5 healthy), each tested on public sources and renderings other than the capture that showed it, with near misses.
 */
import { describe, expect, it } from 'vitest'
import { codes, one } from './support/paste-scan.js'

// (held-out batch 112's vllm-project/vllm-metal#625: torch's connect retries to a rendezvous address the host could not reach, read as nothing)
describe("torch's store client retrying a connect that timed out", () => {
  it.each([
    // torch c10d socket.cpp (SocketConnectOp::tryConnect, C10D_WARNING) as it prints: a DGX Spark compose project's troubleshooting page quotes
    // it for a RoCE address leaking into a one-node container; a laptop's notes for a VPN-adjacent address gone stale after a sleep
    ['[W1207 10:00:00.123456 socket.cpp:752] [c10d] The server socket on [::ffff:10.10.10.1]:41235 has timed out, will retry.', '10.10.10.1', '41235'],
    ['[c10d] The server socket on [::ffff:10.5.0.2]:52011 has timed out, will retry.', '10.5.0.2', '52011'],
    ['(EngineCore_DP0 pid=88) [W1207 10:00:00 socket.cpp:752] [c10d] The server socket on spark-a:29500 has timed out, will retry.', 'spark-a', '29500'],
  ])('%s', (line, host, port) => {
    const f = one(line, 'RENDEZVOUS_UNREACHABLE')
    expect(f.severity).toBe('warning')
    expect(f.evidence['Master address']).toBe(host)
    expect(f.evidence['Master port']).toBe(port)
    expect(f.fix).toContain('ip -br addr')
  })

  it("near miss: the client's connect that worked, and a loopback store, are read by what they are", () => {
    expect(codes('[I1207 10:00:00 socket.cpp:866] [c10d] The client socket has connected to [::ffff:10.10.10.1]:41235 on [::ffff:10.10.10.1]:50122.')).toEqual(
      [],
    )
    expect(one('[c10d] The server socket on [::ffff:127.0.0.1]:29500 has timed out, will retry.', 'RENDEZVOUS_UNREACHABLE').message).toContain('loopback')
  })
})

// eugr/spark-vllm-docker launch-cluster.sh (verify_cluster_image_consistency), as it echoes
const MISMATCH = (worker: string) =>
  [
    'Verifying Docker image consistency across cluster nodes...',
    '  [HEAD] 192.168.100.10: sha256:1f0c3b6a4d2e',
    `Error: Docker image mismatch on worker node (${worker}):`,
    '       Head:   sha256:1f0c3b6a4d2e',
    '       Worker: sha256:9a8b7c6d5e4f',
    "Error: Cluster launch aborted because image 'vllm-node' is not in sync.",
  ].join('\n')

// (held-out batch 111's eugr/spark-vllm-docker#327 and #339: the launcher's own image check, read as an unrecognised failure)
describe("a cluster launcher's check that every node runs the head's image", () => {
  it.each([['192.168.100.11'], ['spark-b'], ['dgx@10.0.0.2']])('a different image on %s', (worker) => {
    const f = one(MISMATCH(worker), 'IMAGE_MISMATCH')
    expect(f.severity).toBe('error')
    expect(f.evidence.Node).toBe(worker)
    expect(f.fix).toContain('RepoDigests')
    expect(codes(MISMATCH(worker))).not.toContain('UNRECOGNISED_FAILURE/error')
  })

  it('no such image on the worker is IMAGE_MISSING with the image and the node', () => {
    const text =
      "Error: Could not inspect image 'vllm-node-tf5' on worker node (192.168.177.12).\n       The image may be missing or inaccessible to the remote user."
    const f = one(text, 'IMAGE_MISSING')
    expect(f.evidence).toMatchObject({ Node: '192.168.177.12', Image: 'vllm-node-tf5' })
  })

  it('near miss: the check passing is what every start prints, and a launcher saying it will copy the image is no failure', () => {
    const passed = [
      'Verifying Docker image consistency across cluster nodes...',
      '  [HEAD] 192.168.100.10: sha256:1f0c3b6a4d2e',
      '  [WORKER] 192.168.100.11: sha256:1f0c3b6a4d2e (match)',
      'Docker image consistency check passed.',
    ].join('\n')
    expect(codes(passed)).toEqual([])
    expect(codes("Image 'vllm-node' not found on dgx@192.168.177.12; will copy\nCopying image 'vllm-node' to 1 host(s): 192.168.177.12")).toEqual([])
  })
})

// (held-out batch 111's MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#8: docker load's error after a launcher shipped the image, read as nothing)
describe('docker load reading an archive that lacks a blob its index names', () => {
  it.each([
    'open /var/lib/docker/tmp/docker-import-2417745510/blobs/sha256/5d0f3b4e2c1a9e8f7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e: no such file or directory',
    // as docker's client prints it over ssh, behind the launcher's own line
    '[deploy] shipping vllm:spark to worker via docker save | ssh docker load ...\nError response from daemon: open /var/lib/docker/tmp/docker-import-118/blobs/sha256/aa11: no such file or directory',
  ])('%#', (text) => {
    const f = one(text, 'IMAGE_TRANSFER_FAILED')
    expect(f.severity).toBe('error')
    expect(f.evidence['Missing from the archive']).toMatch(/^blobs\/sha256\//)
    expect(f.fix).toContain('--platform')
  })

  it('near miss: a missing file elsewhere is not an image archive', () => {
    expect(codes('open /var/lib/docker/volumes/models/_data/config.json: no such file or directory')).not.toContain('IMAGE_TRANSFER_FAILED/error')
  })
})
