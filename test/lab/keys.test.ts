import { describe, expect, it } from 'vitest'
import { knownHostsText, publicKeyOf, sshConfigText } from '../../src/lab/keys.js'
import { labLayout } from '../../src/lab/layout.js'

const KEY_A = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFnbYhXbSvt96fDrlLv5HxGgrlNWhnwzIOMSeTw/jWgb'
const KEY_B = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIECZyaDHR60Vol0Tlq44P7kIADtMcbu6iQM2vpLK4VXD'

describe('lab ssh files', () => {
  const [a, b] = labLayout(2).nodes
  const pins = [
    { node: a!, hostKey: KEY_A },
    { node: b!, hostKey: KEY_B },
  ]

  it('pins each node by mgmt IP, hostname, fabric IP and fabric alias', () => {
    expect(
      knownHostsText(pins)
        .split('\n')
        .filter((l) => l && !l.startsWith('#')),
    ).toEqual([`172.30.230.12,spark-a,172.30.200.12,spark-a-fabric ${KEY_A}`, `172.30.230.13,spark-b,172.30.200.13,spark-b-fabric ${KEY_B}`])
  })

  it('writes an ssh_config that checks host keys strictly against the lab known_hosts', () => {
    const text = sshConfigText(pins, '/lab/id_ed25519', '/lab/known_hosts', 'root')
    expect(text).toContain('Host spark-a 172.30.230.12\n  HostName 172.30.230.12\n  HostKeyAlias 172.30.230.12\n  User root')
    expect(text).toContain('  StrictHostKeyChecking yes')
    expect(text).toContain('  UserKnownHostsFile /lab/known_hosts')
    expect(text).toContain('  IdentityFile /lab/id_ed25519\n  IdentitiesOnly yes')
  })

  it('takes the key type and body of a .pub line, dropping the comment', () => {
    expect(publicKeyOf(`${KEY_A} vrd-lab host key of spark-a\n`)).toBe(KEY_A)
    expect(() => publicKeyOf('garbage')).toThrow(/not an OpenSSH public key/)
  })
})
