/**
 * The Action's inputs as one typed, validated object. Every input and its default are declared in
 * action.yml and nowhere else: the runner fills `INPUT_*` from action.yml's defaults before this code
 * runs, so an empty value here means "declared default is empty", never "use a fallback".
 */
import { ON_FAILURE, type OnFailure } from '../manifest/schema.js'

export const COMMANDS = ['validate', 'plan', 'deploy', 'preflight', 'smoke', 'diagnose', 'rollback'] as const
export type Command = (typeof COMMANDS)[number]

/** Every input name action.yml declares (the contract test checks this list against the file). */
export const INPUT_NAMES = [
  'command',
  'manifest',
  'ssh-private-key',
  'ssh-key-passphrase',
  'known-hosts',
  'image',
  'release',
  'on-failure',
  'facts',
  'ray-nodes',
  'ray-status',
  'logs',
  'launch-script',
  'force',
  'wait-lock',
  'rollback-to',
] as const
export type InputName = (typeof INPUT_NAMES)[number]

export interface ActionInputs {
  readonly command: Command
  /** Path of the cluster manifest (action.yml's default applies when the workflow sets none). */
  readonly manifest: string
  readonly sshPrivateKey?: string
  /** The private key's passphrase, when it has one (masked like the key). */
  readonly sshKeyPassphrase?: string
  readonly knownHosts?: string
  readonly image?: string
  /** Release id recorded on the containers (action.yml's default: the commit SHA). */
  readonly release?: string
  /**
   * Overrides the manifest's `deploy.onFailure` when set; unset means the manifest decides
   * (see `effectiveOnFailure`). A deploy case takes it from here.
   */
  readonly onFailure?: OnFailure
  readonly facts?: string
  readonly rayNodes?: string
  readonly rayStatus?: string
  readonly logs: readonly string[]
  readonly launchScript?: string
  /** deploy: redeploy even when nothing changed. */
  readonly force: boolean
  /** deploy/rollback: wait for a held lock instead of failing. */
  readonly waitLock: boolean
  readonly rollbackTo?: string
}

export interface InputSource {
  readonly get: (name: InputName) => string
  readonly getMultiline: (name: InputName) => string[]
}

export type InputsResult = { readonly ok: true; readonly inputs: ActionInputs } | { readonly ok: false; readonly error: string }

const oneOf = <T extends string>(list: readonly T[], value: string): value is T => (list as readonly string[]).includes(value)

/** Read and check every input. A wrong value is a usage error that names the input. */
export function readActionInputs(source: InputSource): InputsResult {
  const text = (name: InputName): string | undefined => source.get(name) || undefined
  const command = source.get('command')
  if (!oneOf(COMMANDS, command)) return { ok: false, error: `input command must be one of ${COMMANDS.join(', ')}, got "${command}"` }
  const onFailure = source.get('on-failure')
  if (onFailure !== '' && !oneOf(ON_FAILURE, onFailure)) {
    return {
      ok: false,
      error: `input on-failure must be one of ${ON_FAILURE.join(', ')} (or empty: the manifest's deploy.onFailure decides), got "${onFailure}"`,
    }
  }
  const manifest = source.get('manifest')
  if (manifest === '') return { ok: false, error: 'input manifest is empty: give the path of the cluster manifest' }
  const key = text('ssh-private-key')
  const optional = {
    ...(key && { sshPrivateKey: key.endsWith('\n') ? key : `${key}\n` }),
    ...(text('ssh-key-passphrase') && { sshKeyPassphrase: source.get('ssh-key-passphrase') }),
    ...(text('known-hosts') && { knownHosts: source.get('known-hosts') }),
    ...(text('image') && { image: source.get('image') }),
    ...(onFailure !== '' && { onFailure: onFailure as OnFailure }),
    ...(text('release') && { release: source.get('release') }),
    ...(text('facts') && { facts: source.get('facts') }),
    ...(text('ray-nodes') && { rayNodes: source.get('ray-nodes') }),
    ...(text('ray-status') && { rayStatus: source.get('ray-status') }),
    ...(text('launch-script') && { launchScript: source.get('launch-script') }),
    ...(text('rollback-to') && { rollbackTo: source.get('rollback-to') }),
  }
  const flags: Record<string, boolean> = {}
  for (const name of ['force', 'wait-lock'] as const) {
    const v = source.get(name)
    if (v !== 'true' && v !== 'false') return { ok: false, error: `input ${name} must be "true" or "false", got "${v}"` }
    flags[name] = v === 'true'
  }
  return { ok: true, inputs: { command, manifest, logs: source.getMultiline('logs'), force: flags.force!, waitLock: flags['wait-lock']!, ...optional } }
}

/** What a failed deploy does: the `on-failure` input when set, else the manifest's `deploy.onFailure`. */
export const effectiveOnFailure = (inputs: Pick<ActionInputs, 'onFailure'>, manifest: { readonly deploy: { readonly onFailure: OnFailure } }): OnFailure =>
  inputs.onFailure ?? manifest.deploy.onFailure
