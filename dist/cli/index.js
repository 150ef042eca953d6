#!/usr/bin/env node
// The CLI: the Action bundle behind another front door (see src/index.ts).
globalThis[Symbol.for('vllm-ray-deploy.front-door')] = 'cli'
require('../index.js')
