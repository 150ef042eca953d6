import { formatManifestError, pathLabel, type ManifestError } from '../manifest/manifest-error.js'
import { escapeMarkdownCell } from './findings.js'

export function renderManifestErrorsText(errors: readonly ManifestError[], noun = 'problem'): string {
  const head = `${errors.length} ${noun}${errors.length === 1 ? '' : 's'} in ${errors[0]?.file ?? 'the manifest'}:`
  return [head, ...errors.map((e) => formatManifestError(e))].join('\n') + '\n'
}

export function renderManifestErrorsMarkdown(errors: readonly ManifestError[], problem = 'problem'): string {
  const rows = errors.map(
    (e) =>
      `| \`${escapeMarkdownCell(`${e.file}:${e.line}:${e.col}`)}\` | \`${escapeMarkdownCell(pathLabel(e.path))}\` | ${escapeMarkdownCell(e.message)} | ${escapeMarkdownCell(e.fix ?? '')} |`,
  )
  return [`| where | key | ${problem} | fix |`, '| --- | --- | --- | --- |', ...rows].join('\n') + '\n'
}

export const manifestErrorsJson = (errors: readonly ManifestError[]) => ({ errors: manifestIssuesJson(errors) })

export const manifestIssuesJson = (errors: readonly ManifestError[]) =>
  errors.map((e) => ({
    code: e.code,
    file: e.file,
    line: e.line,
    col: e.col,
    path: pathLabel(e.path),
    message: e.message,
    ...(e.fix && { fix: e.fix }),
  }))
