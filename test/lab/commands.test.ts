import { describe, expect, it } from 'vitest'
import { render } from '../../src/command/shell.js'
import { containerArgs, dockerCommands, mountArg } from '../../src/lab/docker-commands.js'
import { GUARD_COMMENT, chroot, debootstrap, guardRules, iptablesCommands, labRulesIn, pipDownload, sshKeygen, tarInto } from '../../src/lab/host-commands.js'
import { FABRIC_NETWORK, MGMT_NETWORK, instanceNames, labLayout } from '../../src/lab/layout.js'
import { readFileSync } from 'node:fs'

const docker = dockerCommands('/usr/bin/docker')
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')

describe('docker command builders', () => {
  it('creates the mgmt network with a fixed bridge name and the internal fabric', () => {
    expect(docker.networkCreate(MGMT_NETWORK, { 'vrd-lab': '1' }).argv).toEqual([
      '/usr/bin/docker',
      'network',
      'create',
      '--driver',
      'bridge',
      '--subnet',
      '172.30.230.0/24',
      '--gateway',
      '172.30.230.1',
      '--opt',
      'com.docker.network.bridge.name=vrd-lab-mgmt0',
      '--label',
      'vrd-lab=1',
      'vrd-lab-mgmt',
    ])
    expect(docker.networkCreate(FABRIC_NETWORK, {}).argv).toContain('--internal')
    expect(docker.networkCreate(MGMT_NETWORK, {}).argv).not.toContain('--internal')
  })

  it('builds with the legacy builder, no network, never pulling', () => {
    const cmd = docker.build({ tag: 'vrd-lab/node:latest', context: '/a', dockerfile: '/a/node.Dockerfile', buildArgs: { BASE: 'b' }, labels: { x: 'y' } })
    expect(cmd.env).toEqual({ DOCKER_BUILDKIT: '0' })
    expect(cmd.argv.slice(0, 5)).toEqual(['/usr/bin/docker', 'build', '--network', 'none', '--force-rm'])
    expect(cmd.argv).toContain('BASE=b')
    expect(cmd.argv).not.toContain('--pull')
    expect(cmd.argv.at(-1)).toBe('/a')
  })

  it('imports a rootfs from stdin with dockerfile changes', () => {
    expect(docker.importImage('vrd-lab/x', ['LABEL a=1', 'CMD ["/bin/bash"]']).argv).toEqual([
      '/usr/bin/docker',
      'import',
      '--change',
      'LABEL a=1',
      '--change',
      'CMD ["/bin/bash"]',
      '-',
      'vrd-lab/x',
    ])
    expect(render(tarInto('/lab/tree', docker.importImage('vrd-lab/x')))).toBe('tar -C /lab/tree --numeric-owner -cf - . | /usr/bin/docker import - vrd-lab/x')
  })

  it('connects a container to a network at a fixed address with an alias', () => {
    expect(docker.networkConnect('vrd-lab-fabric', 'vrd-lab-spark-a', '172.30.200.12', ['spark-a-fabric']).argv).toEqual([
      '/usr/bin/docker',
      'network',
      'connect',
      '--ip',
      '172.30.200.12',
      '--alias',
      'spark-a-fabric',
      'vrd-lab-fabric',
      'vrd-lab-spark-a',
    ])
  })

  it('renders container flags in a fixed order', () => {
    expect(
      containerArgs({
        name: 'n',
        image: 'i',
        hostname: 'h',
        init: true,
        cgroupns: 'private',
        capAdd: ['ALL'],
        capDrop: ['SYS_RESOURCE'],
        network: 'net',
        ip: '1.2.3.4',
        aliases: ['a'],
        dns: ['127.0.0.1'],
        dnsOptions: ['timeout:1'],
        publish: ['127.0.0.1:5000:5000'],
        mounts: [{ type: 'volume', source: 'v', target: '/var/lib/docker' }],
        env: { A: 'b c' },
        labels: { l: '1' },
        stopTimeoutSeconds: 20,
      }),
    ).toEqual([
      '--name',
      'n',
      '--hostname',
      'h',
      '--init',
      '--cgroupns=private',
      '--cap-add',
      'ALL',
      '--cap-drop',
      'SYS_RESOURCE',
      '--network',
      'net',
      '--ip',
      '1.2.3.4',
      '--network-alias',
      'a',
      '--dns',
      '127.0.0.1',
      '--dns-option',
      'timeout:1',
      '--publish',
      '127.0.0.1:5000:5000',
      '--mount',
      'type=volume,source=v,target=/var/lib/docker',
      '--env',
      'A=b c',
      '--label',
      'l=1',
      '--stop-timeout',
      '20',
    ])
  })

  it('refuses mount paths docker would split', () => {
    expect(mountArg({ type: 'bind', source: '/x', target: '/y', readonly: true })).toBe('type=bind,source=/x,target=/y,readonly')
    expect(() => mountArg({ type: 'bind', source: '/a,b', target: '/y' })).toThrow(/comma/)
  })

  it('keeps raw values in argv: quoting happens only in render', () => {
    const cmd = docker.exec('vrd-lab-spark-a', 'sh', '-c', "echo 'hi'")
    expect(cmd.argv.at(-1)).toBe("echo 'hi'")
    expect(render(cmd)).toBe(`/usr/bin/docker exec vrd-lab-spark-a sh -c 'echo '\\''hi'\\'''`)
  })
})

describe('host command builders', () => {
  it('guards each lab bridge with one DROP rule', () => {
    expect(guardRules([MGMT_NETWORK, FABRIC_NETWORK])).toEqual([
      ['-i', 'vrd-lab-mgmt0', '!', '-o', 'vrd-lab-mgmt0', '-m', 'comment', '--comment', GUARD_COMMENT, '-j', 'DROP'],
      ['-i', 'vrd-lab-fab0', '!', '-o', 'vrd-lab-fab0', '-m', 'comment', '--comment', GUARD_COMMENT, '-j', 'DROP'],
    ])
    const [rule] = guardRules([MGMT_NETWORK])
    expect(iptablesCommands.insert(rule!).argv.slice(0, 6)).toEqual(['iptables', '-w', '5', '-I', 'DOCKER-USER', '1'])
    expect(iptablesCommands.check(rule!).argv.slice(3, 5)).toEqual(['-C', 'DOCKER-USER'])
  })

  it('finds exactly the lab rules in a real `iptables -S DOCKER-USER`, ready for -D', () => {
    const rules = labRulesIn(fixture('iptables-docker-user.txt'))
    expect(rules).toHaveLength(2)
    expect(rules).toEqual(expect.arrayContaining(guardRules([MGMT_NETWORK, FABRIC_NETWORK])))
    expect(labRulesIn('-N DOCKER-USER\n-A DOCKER-USER -j RETURN\n')).toEqual([])
  })

  it("each lab instance finds only its own rules, so one lab's down leaves another's guard in place", () => {
    const two = instanceNames(2)
    const twoNets = labLayout(2, two)
    const twoRules = guardRules([twoNets.mgmt, twoNets.fabric], two.guardComment)
    expect(twoRules[0]).toEqual(['-i', 'vrd-lab2-mgmt0', '!', '-o', 'vrd-lab2-mgmt0', '-m', 'comment', '--comment', 'vrd-lab2-egress-guard', '-j', 'DROP'])
    const listing = fixture('iptables-docker-user-two-labs.txt')
    expect(labRulesIn(listing)).toEqual(expect.arrayContaining(guardRules([MGMT_NETWORK, FABRIC_NETWORK])))
    expect(labRulesIn(listing)).toHaveLength(2)
    expect(labRulesIn(listing, 'DOCKER-USER', two.guardComment)).toEqual(expect.arrayContaining(twoRules))
    expect(labRulesIn(listing, 'DOCKER-USER', two.guardComment)).toHaveLength(2)
  })

  it('bootstraps minbase with a deb cache', () => {
    expect(debootstrap({ suite: 'bookworm', target: '/t', mirror: 'http://m/debian', cacheDir: '/c' }).argv).toEqual([
      'debootstrap',
      '--variant=minbase',
      '--cache-dir=/c',
      'bookworm',
      '/t',
      'http://m/debian',
    ])
    expect(chroot('/t', '/bin/sh', '/tmp/s.sh', 'node').argv).toEqual(['chroot', '/t', '/bin/sh', '/tmp/s.sh', 'node'])
    // A host $TMPDIR (a test run's own folder) names nothing inside the new root: both run with its /tmp.
    expect(chroot('/t', 'true').env).toEqual({ TMPDIR: '/tmp' })
    expect(debootstrap({ suite: 'bookworm', target: '/t', mirror: 'http://m/debian', cacheDir: '/c' }).env).toEqual({ TMPDIR: '/tmp' })
  })

  it('downloads binary wheels for cp311 manylinux x86_64', () => {
    const cmd = pipDownload({
      python: 'python3',
      requirements: ['/w/requirements.txt'],
      dest: '/lab/cache/wheels',
      pythonVersion: '3.11',
      platforms: ['manylinux2014_x86_64', 'manylinux_2_17_x86_64'],
    })
    expect(render(cmd)).toBe(
      'python3 -m pip download --disable-pip-version-check --progress-bar off --only-binary=:all: --python-version 3.11 ' +
        '--platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 -r /w/requirements.txt -d /lab/cache/wheels',
    )
  })

  it('makes ed25519 keys without a passphrase', () => {
    expect(sshKeygen('/lab/id_ed25519', 'vrd-lab client').argv).toEqual([
      'ssh-keygen',
      '-q',
      '-t',
      'ed25519',
      '-N',
      '',
      '-C',
      'vrd-lab client',
      '-f',
      '/lab/id_ed25519',
    ])
  })
})
