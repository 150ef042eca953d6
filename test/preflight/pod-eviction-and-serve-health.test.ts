/**
 * The kubelet evicting a pod (pkg/kubelet/eviction/helpers.go's messages, Kubernetes 1.9–1.36) and Ray Serve's controller giving up on a
 * replica's health check (serve/_private/deployment_state.py): a vLLM pod's own log just ends, so these lines are the failure. Lines from
 * public threads, each named.
 */
import { describe, expect, it } from 'vitest'
import { scan } from './support/paste-scan.js'

describe('a pod evicted for disk: DISK_SPACE_LOW with what ran out and who used it', () => {
  it.each([
    // foundation-model-stack/fms-hf-tuning PR #106 (2024): the older wording, no container name
    [
      'The node was low on resource: ephemeral-storage. Container was using 1498072868Ki, which exceeds its request of 0.',
      { 'Container was using': '1498072868Ki', 'Its request': '0' },
    ],
    // kubernetes/kubernetes#91600 (2020): `kubectl describe pod`
    [
      'Status:         Failed\nReason:         Evicted\nMessage:        The node was low on resource: ephemeral-storage. Container ebaogi-bff-app was using 34260Ki, which exceeds its request of 0. ',
      { Container: 'ebaogi-bff-app', 'Container was using': '34260Ki' },
    ],
    // sematic-ai/sematic#853 (2023): a pod status message with the node condition
    ['"message": "Pod The node had condition: [DiskPressure]. ",', { 'Node was low on': 'DiskPressure' }],
    // kubelet 1.26+: the threshold and the newer container wording
    [
      'Warning  Evicted  3m  kubelet  The node was low on resource: ephemeral-storage. Threshold quantity: 80463020976, available: 78017988Ki. Container app was using 1148032Ki, request is 0, has larger consumption of ephemeral-storage. ',
      { 'Eviction threshold': '80463020976', Available: '78017988Ki', Container: 'app' },
    ],
    // helpers.go's limit messages
    [
      'Warning  Evicted  1m  kubelet  Pod ephemeral local storage usage exceeds the total limit of containers 10Gi. ',
      { 'Ephemeral-storage limit (pod)': '10Gi' },
    ],
    [
      'Warning  Evicted  1m  kubelet  Container vllm exceeded its local ephemeral storage limit "20Gi". ',
      { Container: 'vllm', 'Ephemeral-storage limit': '20Gi' },
    ],
  ])('%#', (text, evidence) => {
    const f = scan(text).filter((x) => x.code === 'DISK_SPACE_LOW')
    expect(f).toHaveLength(1)
    expect(f[0]!.severity).toBe('error')
    expect(f[0]!.evidence).toMatchObject(evidence)
    expect(f[0]!.fix).toMatch(/volume|ephemeral-storage/)
  })

  it("an emptyDir /dev/shm over its sizeLimit is named as the pod's /dev/shm", () => {
    const f = scan('Warning  Evicted  1m  kubelet  Usage of EmptyDir volume "dshm" exceeds the limit "1Gi". ').filter((x) => x.code === 'DISK_SPACE_LOW')
    expect(f).toHaveLength(1)
    expect(f[0]!.message).toMatch(/\/dev\/shm/)
    expect(f[0]!.evidence).toMatchObject({ 'emptyDir volume': 'dshm', sizeLimit: '1Gi' })
  })
})

describe('a pod evicted for memory: OOM_KILLED by the kubelet', () => {
  it.each([
    'Message:        The node was low on resource: memory. Container vllm was using 60123456Ki, which exceeds its request of 32Gi. ',
    '"message": "Pod The node had condition: [MemoryPressure]. ",',
  ])('%s', (text) => {
    const f = scan(text).filter((x) => x.code === 'OOM_KILLED')
    expect(f).toHaveLength(1)
    expect(f[0]!.evidence.Killer).toMatch(/kubelet/)
  })
})

describe('other evictions and Ray Serve health checks are failure lines, never silent', () => {
  it.each([
    'Warning  Evicted  1m  kubelet  The node was low on resource: pids. ',
    // sematic-ai/sematic#853 (2023): `kubectl get pods` rows
    'sematic-server-ee-584694978d-ntsv6                             0/1     Evicted                  0             7m9s',
    // Ray Serve's controller (deployment_state.py), a replica whose health check did not return in time
    "WARNING 2025-06-25 04:39:50,001 controller 1758 -- Didn't receive health check response for replica Replica(id='a1b2c3d4', deployment='LLMServer:qwen', app='llm') after 10.0s, marking it unhealthy.",
    "WARNING 2025-06-25 04:39:50,001 controller 1758 -- Replica(id='a1b2c3d4', deployment='LLMServer:qwen', app='llm') failed health check, stopping it.",
  ])('%s', (text) => {
    expect(scan(text).map((x) => `${x.code}/${x.severity}`)).toEqual(['UNRECOGNISED_FAILURE/error'])
  })

  it('near miss: the eviction manager and Serve describing themselves is no finding', () => {
    expect(scan('I0101 eviction_manager.go:366] "Eviction manager: attempting to reclaim" resourceName="ephemeral-storage"')).toEqual([])
    expect(scan('INFO 2025-06-25 04:39:50,001 controller 1758 -- Health check period is 10.0s, timeout is 30.0s.')).toEqual([])
    expect(scan('vllm-0   1/1     Running   0          3h')).toEqual([])
  })
})
