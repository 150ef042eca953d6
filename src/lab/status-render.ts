/**
 * `lab status` for people: a short table. Pure.
 */
import type { LabStatus } from './lab-types.js'

const mark = (ok: boolean): string => (ok ? 'ok' : 'NO')

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => rows.reduce((w, r) => Math.max(w, (r[i] ?? '').length), 0))
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  )
}

export function renderLabStatus(s: LabStatus): string {
  const out: string[] = []
  if (!s.docker.ok) {
    out.push(`lab ${s.dir}: docker is not usable (${s.docker.binary}: ${s.docker.detail ?? 'no answer'})`)
    return `${out.join('\n')}\n`
  }
  const verdict = s.healthy ? 'healthy' : s.down ? 'down' : 'NOT healthy'
  out.push(`lab ${s.dir}: ${verdict} (docker ${s.docker.version ?? '?'})`)
  if (s.down) return `${out.join('\n')}\n`
  if (s.files.missing.length > 0)
    out.push(
      `${s.files.dirExists ? `${s.dir} lacks ${s.files.missing.join(', ')}` : `${s.dir} does not exist`}: the containers below were set up from another directory (VRD_LAB_DIR or another clone); run lab up here, or set VRD_LAB_DIR to that directory`,
    )
  out.push('')
  if (s.nodes.length === 0) out.push('no nodes')
  else {
    out.push(
      ...table([
        ['node', 'container', 'state', 'mgmt', 'fabric', 'sshd', 'docker'],
        ...s.nodes.map((n) => [
          n.name,
          n.container,
          n.state,
          n.mgmtIp ?? '-',
          n.fabricIp ?? '-',
          mark(n.sshReachable),
          n.dockerReady ? `ok ${n.dockerVersion ?? ''} ${n.storageDriver ?? ''}`.trimEnd() : `NO${n.detail ? ` (${n.detail})` : ''}`,
        ]),
      ]),
    )
  }
  out.push('')
  out.push(`registry  ${s.registry.container} ${s.registry.state}, ${s.registry.address}/v2/ ${s.registry.reachable ? 'answers' : 'does NOT answer'}`)
  out.push(`networks  ${s.networks.map((n) => `${n.name} ${n.subnet} ${n.present ? 'present' : 'MISSING'}`).join('; ')}`)
  out.push(
    `egress    ${s.egressGuard.present ? 'guard in place' : 'guard MISSING'} (${s.egressGuard.rules.length} rule(s) in DOCKER-USER)${s.egressGuard.detail ? `: ${s.egressGuard.detail}` : ''}`,
  )
  out.push(`volumes   ${s.volumes.length ? s.volumes.join(', ') : 'none'}`)
  out.push(`files     ${s.files.missing.length === 0 ? 'manifest.yml, id_ed25519, known_hosts present' : `MISSING ${s.files.missing.join(', ')}`}`)
  return `${out.join('\n')}\n`
}
