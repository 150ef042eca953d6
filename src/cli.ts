#!/usr/bin/env node
import { main } from './cli/main.js'
import { UNSETTLED_MESSAGE, failIfUnsettled } from './tasks/unsettled.js'

void failIfUnsettled(main(process.argv.slice(2)), () => {
  process.stderr.write(`vllm-ray-deploy: ${UNSETTLED_MESSAGE}\n`)
  process.exitCode = 3
}).then((code) => {
  process.exitCode = code
})
