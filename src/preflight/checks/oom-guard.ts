/**
 * OOM_GUARD_MISSING: a node whose GPU shares the host's memory (GB10, DGX Spark) runs no user-space
 * OOM killer. There the kernel's OOM killer often comes too late or not at all: the host wedges or
 * hard-resets instead of killing vLLM (NVIDIA/dgx-spark-playbooks#97, NVIDIA/open-gpu-kernel-modules#1358,
 * vllm#46307). earlyoom kills the largest process while memory is still low but not gone; the DGX
 * Spark tooling ships it (eugr/spark-vllm-docker's `--earlyoom` launch option, the container's
 * low-memory monitor; spark-arena/sparkrun's `setup earlyoom`, PR #77, which prefers vLLM and Ray).
 * systemd-oomd and nohang count as the same guard. Read from the unit's state and the running
 * processes (a guard inside a container counts), not from whether a binary is installed.
 */
import type { HostFacts } from '../facts.js'
import type { Finding } from '../finding.js'
import type { CheckContext } from './check-context.js'

/** The evidence row of each guard: its unit's state and whether a process of it runs. */
function guardStates(g: NonNullable<HostFacts['oomGuards']>): Record<string, string> {
  const names = [...new Set([...Object.keys(g.units ?? {}), ...g.running])]
  return Object.fromEntries(
    names.map((n) => [n, `${g.units?.[n] !== undefined ? `unit ${g.units[n]}` : 'no unit state'}; ${g.running.includes(n) ? 'running' : 'no process'}`]),
  )
}

export function oomGuardMissing(ctx: CheckContext): Finding[] {
  return ctx.nodes.flatMap((node): Finding[] => {
    const h = node.facts?.host
    const g = h?.oomGuards
    if (!h?.unifiedMemory || !g) return []
    const active = Object.entries(g.units ?? {}).filter(([, state]) => state === 'active')
    if (active.length > 0 || g.running.length > 0) return []
    const earlyoom = g.units?.['earlyoom']
    // `inactive`/`failed`: the unit exists but does not run; systemctl says `inactive` for a unit it does not know as well.
    const installedNotRunning = earlyoom !== undefined && earlyoom !== 'inactive' && earlyoom !== 'active'
    const login = `${node.expected?.sshUser ?? '<user>'}@${node.expected?.sshHost ?? node.name}`
    return [
      {
        code: 'OOM_GUARD_MISSING',
        severity: 'warning',
        node: node.name,
        message: `${node.name}'s GPU shares the host's memory and no user-space OOM killer runs there (earlyoom, systemd-oomd or nohang): when vLLM's start-up or a long prompt takes the last of it, the host can wedge or reset instead of the kernel killing vLLM.`,
        evidence: {
          [`${node.name} GPU`]: `${node.facts?.gpus[0]?.name ?? '?'} (unified memory)`,
          ...guardStates(g),
          ...(g.unitsError && { systemctl: g.unitsError }),
          'Guard processes': g.running.join(', ') || '(none)',
        },
        fix: `${installedNotRunning ? `Start earlyoom on ${node.name} (its unit is ${earlyoom}): sudo systemctl enable --now earlyoom` : `Install and start earlyoom on ${node.name}: sudo apt-get install -y earlyoom && sudo systemctl enable --now earlyoom`}; have it act before the host runs dry and pick vLLM, not the host's services, e.g. EARLYOOM_ARGS="-m 5 -s 100 -r 60 --prefer '^(python3?|vllm|VLLM::.*|ray::.*)$' --avoid '^(sshd|dockerd|containerd|systemd.*)$'" in /etc/default/earlyoom, then sudo systemctl restart earlyoom; check: ssh ${login} systemctl is-active earlyoom`,
      },
    ]
  })
}
