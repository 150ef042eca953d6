import { main } from './cli/cli-main.js'
import { UNSETTLED_MESSAGE, failIfUnsettled } from './tasks/unsettled.js'

/** The CLI process: argv in, exit code out (3 when the run's promise never settles). */
export function startCli(): void {
  void failIfUnsettled(main(process.argv.slice(2)), () => {
    process.stderr.write(`vllm-ray-deploy: ${UNSETTLED_MESSAGE}\n`)
    process.exitCode = 3
  }).then((code) => {
    process.exitCode = code
  })
}
