/**
 * The one table of options every command takes, as data: each option's CLI flag, its Action input
 * (absent: CLI only), its value kind and what it holds. Read by the command table
 * (src/tasks/command-table.ts), both front doors, and by option-words.ts (an option named inside a
 * message, in each front door's words). Here, in the first folder, so that the core's messages can
 * name options from it. Pure; depends on nothing.
 */

/**
 * Every option any command takes, named once: its CLI flag, its Action input (absent: CLI only),
 * its value kind, and what it holds (the CLI's usage shows `arg`).
 * - `text`: the CLI flag names a file whose text is the value; the Action input holds the text.
 * - `writes`: CLI only; the path the named output file of the outcome is written to.
 */
export const OPTIONS = {
  manifest: { flag: 'manifest', input: 'manifest', type: 'string', arg: 'F' },
  json: { flag: 'json', type: 'boolean' },
  image: { flag: 'image', input: 'image', type: 'string', arg: 'REF' },
  release: { flag: 'release', input: 'release', type: 'string', arg: 'ID' },
  sshKey: { flag: 'ssh-key', input: 'ssh-private-key', type: 'string', arg: 'F', text: true, env: 'VRD_SSH_PRIVATE_KEY' },
  knownHosts: { flag: 'known-hosts', input: 'known-hosts', type: 'string', arg: 'F', text: true, env: 'VRD_KNOWN_HOSTS' },
  /** The key's passphrase, from a file (never a command-line value, which `ps` shows); masked in the Action. */
  sshKeyPassphrase: {
    flag: 'ssh-key-passphrase',
    input: 'ssh-key-passphrase',
    type: 'string',
    arg: 'F',
    text: true,
    env: 'VRD_SSH_KEY_PASSPHRASE',
    secret: true,
  },
  /**
   * The Hugging Face token a hub download uses (model.source.hub): $HF_TOKEN or a file holding it,
   * never a command-line value; masked in the Action. It reaches the node on stdin only
   * (src/deploy/weights/hub.ts), as the rollout's HF_TOKEN.
   */
  hfToken: { flag: 'hf-token-file', input: 'hf-token', type: 'string', arg: 'F', text: true, env: 'HF_TOKEN', secret: true },
  factsOut: { flag: 'facts-out', type: 'string', arg: 'F', writes: 'facts-file' },
  facts: { flag: 'facts', input: 'facts', type: 'string', arg: 'F' },
  rayNodes: { flag: 'ray-nodes', input: 'ray-nodes', type: 'string', arg: 'F' },
  rayStatus: { flag: 'ray-status', input: 'ray-status', type: 'string', arg: 'F' },
  logs: { flag: 'log', input: 'logs', type: 'string', arg: 'F ...', multiple: true },
  launchScript: { flag: 'launch-script', input: 'launch-script', type: 'string', arg: 'F' },
  fixOut: { flag: 'fix-out', type: 'string', arg: 'F', writes: 'fix-file' },
  /** deploy, rollback: write the diagnostics bundle (src/deploy/diagnostics-bundle.ts) into this directory, whether the rollout failed or not. */
  bundleDir: { flag: 'bundle-dir', type: 'string', arg: 'DIR' },
  nodes: { flag: 'nodes', type: 'string', arg: 'N' },
  purge: { flag: 'purge', type: 'boolean' },
  serve: { flag: 'serve', type: 'boolean' },
  force: { flag: 'force', input: 'force', type: 'boolean' },
  onFailure: { flag: 'on-failure', input: 'on-failure', type: 'string', arg: 'rollback|stop|keep' },
  to: { flag: 'to', input: 'rollback-to', type: 'string', arg: 'RELEASE' },
  waitLock: { flag: 'wait-lock', input: 'wait-lock', type: 'boolean' },
} as const satisfies Record<string, OptionEntry>

/** An option's entry; `writes` names an output of the outcome (tasks/outcome.ts's OutputName, checked there). */
export interface OptionEntry {
  readonly flag: string
  readonly input?: string
  readonly type: 'string' | 'boolean'
  readonly arg?: string
  readonly multiple?: boolean
  readonly text?: boolean
  readonly writes?: string
  /** The CLI takes the value from this environment variable when the flag is not given. */
  readonly env?: string
  /** A secret: the Action masks it (core.setSecret) before anything can print it. */
  readonly secret?: boolean
}
