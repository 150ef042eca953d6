/** How `vllm serve` reads its flag names, for every reader of its arguments (the manifest's vllm.args, the live and script checks). */

/**
 * vLLM's FlexibleArgumentParser reads `--flag_name` as `--flag-name` (vllm/utils, FlexibleArgumentParser.parse_args):
 * the long name a `vllm serve` word stands for, without any `=value`. Other words as they are.
 */
export function vllmFlagName(word: string): string {
  if (!word.startsWith('--')) return word
  const eq = word.indexOf('=')
  return (eq > 0 ? word.slice(0, eq) : word).replace(/_/g, '-')
}
