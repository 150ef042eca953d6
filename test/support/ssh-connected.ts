import { type SshTarget, SshTransport } from '../../src/transport/ssh.js'

/** A connected SshTransport for a test that needs one; a failure to connect fails the test with the Problem's message. */
export async function sshConnected(target: SshTarget): Promise<SshTransport> {
  const r = await SshTransport.connect(target)
  if (!r.ok) throw new Error(r.problem.message)
  return r.value
}
