/**
 * The two things every command on a node starts from: the head node, and where the tool keeps its
 * files there. A module of its own so that the deploy lock, its task and the Action's post step
 * take only these, not node-commands.ts with executor-commands.ts (each would be copied into their
 * chunks of the build: docs/development.md, what dist/ holds).
 */
import type { Manifest, ManifestNode } from '../manifest/schema.js'

/** Where the tool keeps its files on a node. */
export const NODE_STATE_DIR = '/var/lib/vllm-ray-deploy'

/** The head node (the manifest guarantees exactly one). */
export function headOf(m: Manifest): ManifestNode {
  const head = m.nodes.find((n) => n.role === 'head')
  // bug: validation guarantees exactly one head before any plan is made
  if (!head) throw new Error('manifest has no head node (validation should have caught this)')
  return head
}
