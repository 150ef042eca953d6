/**
 * Log signatures of the user-space memory killers that end a start before the kernel's OOM killer would: earlyoom (kill.c, the
 * "low memory!" line, then the process it chose and its resident memory), systemd-oomd (a unit killed on memory pressure) and an
 * operator's own memory guard that stops the container once MemAvailable falls under a floor — what this tool's own watchdog does
 * (MEMORY_FLOOR_REACHED, src/deploy/memory-guard.ts). On a GB10 (one memory pool for the host and the GPU) they are how a start
 * that needs more memory than the node has usually ends. Wordings with their sources in src/preflight/WORDINGS.md.
 */

import { hostMemoryFix } from './signature-rules-memory.js'
import type { SignatureRule } from './signature-rules.js'
import { nodeEvidence as node } from './line-node.js'

const USER_SPACE_KILLER =
  'Give the start the memory it needs rather than moving the killer out of the way: lower --gpu-memory-utilization, --max-model-len and --max-num-seqs (vllm-ray-deploy plan shows the fit), stop other processes on that node, and add swap only as a cushion.'

export const MEMORY_KILLER_RULES: readonly SignatureRule[] = [
  {
    // earlyoom (src/kill.c, 1.6–1.8): "mem avail: 11750 of 124610 MiB (9.43%), swap free: 207 of 16383 MiB (1.27%)" (kept for the evidence),
    // "low memory! at or below SIGTERM limits: mem 10.00%, swap 10.00%", then "sending SIGTERM to process 2677144 uid 996 "llama-server":
    // badness 1022, VmRSS 11791 MiB" (newer: "…: oom_score 712, oom_score_adj 0, VmRSS 4514 MiB, cmdline …"), or "Could not find a process to
    // kill" when nothing was left to choose (a node that then died).
    code: 'OOM_KILLED',
    pattern:
      /\bmem avail:\s*(\d+) of\s*(\d+) MiB|\b(?:sending (SIG(?:TERM|KILL)) to process (\d+)(?: uid \d+)? "([^"]*)"|killing process (\d+) "([^"]*)" with signal (\d+))[^\n]*?VmRSS (\d+) MiB|\bearlyoom\b[^\n]*\bCould not find a process to kill\b/,
    hit: (m, line, _ray, context) => {
      if (m[1] !== undefined) {
        // the newest reading (earlyoom's fixed-width readings are the same length, so a paste may have had two joined as a wrap)
        const last = [...line.matchAll(/\bmem avail:\s*(\d+) of\s*(\d+) MiB/g)].at(-1)!
        context.memory?.set('earlyoomAvail', `${last[1]} of ${last[2]} MiB`)
        if (!/\b(?:sending SIG|killing process|Could not find a process to kill)/.test(line)) return null
      }
      const avail = context.memory?.get('earlyoomAvail')
      // earlyoom 1.3+: "sending SIGTERM to process <pid> …"; 1.2: "killing process <pid> "<name>" with signal 15" (read again from the
      // line: a reading joined before it matched first)
      const v =
        /\b(?:sending (SIG(?:TERM|KILL)) to process (\d+)(?: uid \d+)? "([^"]*)"|killing process (\d+) "([^"]*)" with signal (\d+))[^\n]*?VmRSS (\d+) MiB/.exec(
          line,
        ) ?? []
      const pid = v[2] ?? v[4]
      const signal = v[1] ?? (v[6] === '9' ? 'SIGKILL' : v[6] === '15' ? 'SIGTERM' : `signal ${v[6]}`)
      const victim = pid !== undefined ? `${v[3] ?? v[5]} (pid ${pid})` : undefined
      const rss = v[7]
      return {
        key: `earlyoom:${pid ?? 'none'}`,
        severity: 'error',
        message: victim
          ? `earlyoom (the user-space OOM killer) sent ${signal} to ${victim}, which held ${rss} MiB resident: the node had run out of memory${avail ? ` (${avail} available)` : ''}.`
          : `earlyoom found the node out of memory${avail ? ` (${avail} available)` : ''} and nothing it could kill: a node in that state usually stops answering.`,
        evidence: {
          ...(victim
            ? { 'Killed process': victim, 'Resident memory (VmRSS)': `${rss} MiB`, Signal: signal }
            : { earlyoom: 'Could not find a process to kill' }),
          ...(avail ? { 'Memory available': avail } : {}),
          Killer: 'earlyoom',
          ...node(context),
        },
        fix: `${USER_SPACE_KILLER} ${hostMemoryFix(line, context.memory)}`,
      }
    },
  },
  {
    // systemd-oomd (src/oom/oomd-manager.c): "Killed /user.slice/…/run-r25ac….scope due to memory pressure for /user.slice/user-1001.slice/user@1001.service
    // being 55.71% > 50.00% for > 20s with reclaim activity" (systemd#23606); newer systemd: "Marked /system.slice/systemd-journald.service for
    // killing due to memory pressure for /system.slice being 85.03% > 80.00% for > 2s …" (systemd PR #42321, 2026) — memory pressure (PSI), not exhaustion.
    code: 'OOM_KILLED',
    pattern: /\b(?:Killed|Marked) (\S+) (?:for killing )?due to memory pressure for (\S+) being ([\d.]+%) > ([\d.]+%)/,
    hit: (m, line, _ray, context) => ({
      key: `systemd-oomd:${m[1]}`,
      severity: 'error',
      message: `systemd-oomd killed ${m[1]}: memory pressure on ${m[2]} was ${m[3]}, over its limit of ${m[4]} (the user-space OOM killer Ubuntu and Fedora run by default; it acts on pressure, before memory is gone).`,
      evidence: { 'Killed unit': m[1]!, 'Memory pressure': `${m[3]} > ${m[4]}`, Killer: 'systemd-oomd', ...node(context) },
      fix: `${USER_SPACE_KILLER} Run the server outside the user slice (a system service or a container under docker's own slice) or raise ManagedOOMMemoryPressureLimit for it if the pressure is expected. ${hostMemoryFix(line, context.memory)}`,
    }),
  },
  {
    // An operator's memory guard that stops the container before the host wedges, in its own words (bigs/deepseek-v4-flash-dgx-spark, 2026:
    // "guard: docker exited return_code=137 reason=MemAvailable 36.78 GiB below 48.00 GiB"): MemAvailable under a floor, with what was done.
    code: 'MEMORY_FLOOR_REACHED',
    pattern: /\bMemAvailable[=:\s]+([\d.]+\s*[KMGT]i?B)\s+(?:is\s+)?(?:below|under|<)\s+(?:the\s+)?(?:floor\s+(?:of\s+)?)?([\d.]+\s*[KMGT]i?B)/i,
    hit: (m, line, _ray, context) => {
      // a guard that acted, not a monitor's reading
      if (!/\b(?:kill(?:ed|ing)?|exit(?:ed)?|stopp(?:ed|ing)|terminat\w*|abort\w*|return_code=137|rm -f)\b/i.test(line)) return null
      return {
        key: `guard:${context.prefixIp ?? ''}`,
        severity: 'error',
        message: `A memory guard stopped the start${context.prefixIp ? ` on ${context.prefixIp}` : ''}: MemAvailable fell to ${m[1]}, under its floor of ${m[2]}, so the model, its KV cache and the host did not fit the node's memory.`,
        evidence: { MemAvailable: m[1]!, Floor: m[2]!, ...node(context) },
        fix: hostMemoryFix(line, context.memory),
      }
    },
  },
  {
    // A launcher or supervisor saying the kernel's OOM killer ended its process, in its own words: "[engine terminated: killed by SIGKILL]" /
    // "nothing in the engine sends SIGKILL to itself: this is the kernel's OOM-killer..." (JustVugg/colibri#305, 2026), "… was killed by the
    // OOM killer", "the OOM killer killed …". Not a list of possible causes: Ray's "Some common causes include: (1) the process was killed by
    // the OOM killer …" and "There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer …" name it as a guess.
    code: 'OOM_KILLED',
    pattern:
      /\b(?:killed|terminated|reaped) by (?:the )?(?:(?:Linux |host |system |kernel(?:'s)? )?OOM[- ]?killer|kernel(?:'s)? OOM)\b|\bthis (?:is|was) the kernel'?s OOM[- ]?killer\b|\bOOM[- ]?killer (?:killed|terminated|reaped)\b/i,
    hit: (_m, line, _ray, context) => {
      if (
        /potential root causes|common causes include|possible causes|\b(?:may|might|could) (?:have )?be(?:en)?\b|\b(?:possibly|probably|likely|perhaps)\b|\bif (?:the|it|a)\b|\bwhether\b|\(\d\)/i.test(
          line,
        )
      )
        return null
      return {
        key: `oom-killer-said:${context.prefixIp ?? ''}`,
        severity: 'error',
        message: `The kernel's OOM killer ended the process${context.prefixIp ? ` on ${context.prefixIp}` : ''} (its supervisor says so): the node ran out of host memory while the model loaded or ran.`,
        evidence: { 'Said by the log': line.trim().slice(0, 200), ...node(context) },
        fix: `${USER_SPACE_KILLER} ${hostMemoryFix(line, context.memory)}`,
      }
    },
  },
]
