/**
 * Log signatures of a model snapshot that is not whole on a node, in the wordings of the newest releases:
 * huggingface_hub 2.x's offline snapshot checks (a cached snapshot with files missing, no cached tree
 * listing), transformers 5.x's hub errors (a name that is neither a folder nor a repo, a revision that does
 * not exist, a config that is not JSON, no checkpoint index) and vLLM 0.34's index check (shards the index
 * names that are not on disk). Each names the repo, path or files. Wordings with their source files and
 * versions in src/preflight/WORDINGS.md ("Swept from the newest sources").
 */

import type { LineContext, RuleHit, SignatureRule } from './signature-rules.js'
import { nodeEvidence as node } from './line-node.js'
import { invalidModel } from './signature-rules-weights.js'

/** The word just before `at` on the line (the name transformers puts first), without quotes. */
const wordBefore = (line: string, at: number): string => (/(\S+)\s+$/.exec(line.slice(Math.max(0, at - 400), at))?.[1] ?? '').replace(/^['"`]|['"`:]$/g, '')

/** File names in a Python list or set as printed: ['a', 'b'] / {'a', 'b'} / (a, b). */
const fileNames = (text: string): string[] => [...text.matchAll(/[\w.-]+\.(?:safetensors|bin|pt|gguf|json)/g)].map((f) => f[0])

const NOT_A_FOLDER = 'OSError (transformers: not a local folder nor a repo on the hub)'

const COPY_FIX = (files: readonly string[], where: string) =>
  `Copy the whole snapshot to every node, the same revision everywhere (huggingface-cli download <repo> --revision <commit> --local-dir ${where}, or rsync from a node that has it), then check the files the index names are there: ${files.slice(0, 3).join(', ') || 'every shard'}${files.length > 3 ? ', …' : ''}.`

function snapshotIncomplete(m: RegExpExecArray, context: LineContext): RuleHit {
  const files = fileNames(m[5] ?? '')
  return {
    key: `snapshot:${m[1] ?? 'cache'}`,
    severity: 'error',
    message: m[1]
      ? `This node's hub cache holds only part of ${m[1]}${m[3] ? ` (commit ${m[3].slice(0, 12)})` : ''}: ${m[4] ?? 'some'} file(s) are missing and the hub may not be asked, so the model cannot load.`
      : `This node's hub cache has no file listing for ${m[6] ?? 'the model'}${m[7] ? ` (revision ${m[7]})` : ''}: the snapshot was never downloaded whole into this cache, and the hub may not be asked.`,
    evidence: {
      Exception: m[1] ? 'IncompleteSnapshotError' : 'CachedRepoTreeNotFoundError',
      'Repo id': m[1] ?? m[6] ?? '?',
      ...((m[2] ?? m[7]) ? { Revision: (m[2] ?? m[7])! } : {}),
      ...(m[4] ? { 'Files missing': `${m[4]}${files.length > 0 ? `: ${files.join(', ')}` : ''}` } : {}),
      'Hub look-ups': 'disabled (HF_HUB_OFFLINE / local_files_only)',
      ...node(context),
    },
    fix: `${COPY_FIX(files, '<HF_HOME or the served dir>')} With HF_HUB_OFFLINE=1 the cache must be complete before vLLM starts: download with network access once (huggingface-cli download ${m[1] ?? m[6] ?? '<repo>'}), then copy HF_HOME to every node.`,
  }
}

export const SNAPSHOT_RULES: readonly SignatureRule[] = [
  {
    // huggingface_hub 2.x (_snapshot_download.py): "IncompleteSnapshotError: The cached snapshot for 'Qwen/Qwen3-32B' (revision 'main', commit 9216db…) is
    // incomplete: 2 file(s) are missing (model-00002-of-00017.safetensors, …). <reason> Re-run the download with network access …"; "CachedRepoTreeNotFoundError:
    // No cached tree listing found for 'Qwen/Qwen3-32B' (revision 'main', …)".
    code: 'WEIGHTS_OFFLINE_MISSING',
    pattern:
      /The cached snapshot for '([^']+)' \(revision '([^']*)', commit (\w+)\) is incomplete: (\d+) file\(s\) are missing \(([^)]*)\)?|No cached tree listing found for '([^']+)'(?: \(revision '([^']*)')?/,
    hit: (m, _line, _ray, context) => snapshotIncomplete(m, context),
  },
  {
    // vLLM 0.34 model_executor/model_loader/weight_utils.py: "FileNotFoundError: Weight files referenced in index but missing:
    // ['model-00003-of-00004.safetensors']" (a set in some paths).
    code: 'WEIGHTS_NOT_FOUND',
    pattern: /Weight files referenced in index but missing:\s*(.*)$/,
    hit: (m, _line, _ray, context) => {
      const files = fileNames(m[1] ?? '')
      return {
        key: `index-missing:${files.join(',')}`,
        severity: 'error',
        message: `The model's index names ${files.length || 'some'} weight file(s) that are not on this node${files.length > 0 ? ` (${files.slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''})` : ''}: a copy or download that stopped part-way.`,
        evidence: { 'Files missing': files.join(', ') || (m[1] ?? '').slice(0, 200), ...node(context) },
        fix: COPY_FIX(files, '<the served dir>'),
      }
    },
  },
  {
    // transformers 5.x (utils/hub.py): "OSError: <name> is not a local folder or a valid repository name on 'https://hf.co'." and (4.x–5.x) "… is not a
    // local folder and is not a valid model identifier listed on 'https://huggingface.co/models'". The name before it is read in hit.
    code: 'WEIGHTS_NOT_FOUND',
    pattern: /is not a local folder (?:or a valid repository name|and is not a valid model identifier)/,
    hit: (m, line, _ray, context) => invalidModel(wordBefore(line, m.index), context, false, NOT_A_FOLDER),
  },
  {
    code: 'WEIGHTS_OFFLINE_MISSING',
    pattern: /is not a local folder (?:or a valid repository name|and is not a valid model identifier)/,
    hit: (m, line, _ray, context) => invalidModel(wordBefore(line, m.index), context, true, NOT_A_FOLDER),
  },
  {
    // transformers 4.x–5.x (utils/hub.py): "OSError: v2.0 is not a valid git identifier (branch name, tag name or commit id) that exists for this model
    // name. Check the model page at 'https://huggingface.co/<repo>' for available revisions."
    code: 'WEIGHTS_NOT_FOUND',
    pattern: /is not a valid git identifier \(branch name, tag name or commit id\)(?:.*?huggingface\.co\/([^'\s]+?)'?(?:\s|$))?/,
    hit: (m, line, _ray, context) => {
      const revision = wordBefore(line, m.index)
      return {
        key: `revision:${revision}`,
        severity: 'error',
        message: `The hub has no revision "${revision}"${m[1] ? ` of ${m[1]}` : ''}: a branch, tag or commit that does not exist.`,
        evidence: { Revision: revision, ...(m[1] ? { 'Repo id': m[1] } : {}), ...node(context) },
        fix: 'Pin a revision that exists (a full commit sha from the hub page, or main), the same on every node (vllm serve --revision, model.source.revision).',
      }
    },
  },
  {
    // vLLM 0.34 transformers_utils/config.py: "ValueError: Could not detect config format for no config file found. With config_format 'auto', ensure your
    // model has either config.json (HF format) or params.json (Mistral format)."; transformers 5.x utils/hub.py: "Can't find a checkpoint index
    // (model.safetensors.index.json) in /models/x."
    code: 'WEIGHTS_NOT_FOUND',
    pattern: /Could not detect config format for no config file found|Can't find a checkpoint index \(([^)]+)\) in (\S+?)\.?(?:\s|$)/,
    hit: (m, _line, _ray, context) => ({
      key: `no-config:${m[2] ?? ''}`,
      severity: 'error',
      message: m[1]
        ? `The model directory ${m[2]} has no ${m[1]} on this node, so its shards cannot be found.`
        : 'vLLM found neither config.json nor params.json for the model on this node: the directory is empty, not mounted, or a parent folder of the snapshot.',
      evidence: { 'File missing': m[1] ?? 'config.json / params.json', ...(m[2] ? { Path: m[2] } : {}), ...node(context) },
      fix: 'Check the model directory inside the container on every node (docker exec <container> ls <dir>): it must be the snapshot itself (config.json and the index beside the shards), mounted at the same path on every node.',
    }),
  },
  {
    // transformers 4.x–5.x (configuration_utils.py): "OSError: It looks like the config file at '/models/x/config.json' is not a valid JSON file."
    code: 'WEIGHTS_CORRUPT',
    pattern: /It looks like the config file at '([^']+)' is not a valid JSON file/,
    hit: (m, _line, _ray, context) => ({
      key: `config-json:${m[1]}`,
      severity: 'error',
      message: `The model's config file ${m[1]} is not JSON on this node: a Git LFS pointer, an HTML error page or a file cut short.`,
      evidence: { Path: m[1]!, ...node(context) },
      fix: `Download the snapshot again on that node (huggingface-cli download <repo> --revision <commit>), check ${m[1]} is JSON (python -m json.tool ${m[1]}) and the same file on every node.`,
    }),
  },
]
