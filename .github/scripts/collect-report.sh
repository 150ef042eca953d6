#!/usr/bin/env bash
# After a failed vllm-ray-deploy step: put what the step reported next to the files the action wrote
# (facts bundle, summary, plan) in REPORT_DIR, so one artifact holds everything an operator needs.
# Values arrive through the environment only (RESULT, HEADLINE, FINDINGS), never in this script's text.
set -euo pipefail
: "${REPORT_DIR:?REPORT_DIR must name the directory the action writes its files to}"
mkdir -p "$REPORT_DIR"
{
  printf 'result: %s\n' "${RESULT:-(the step did not finish)}"
  printf 'summary: %s\n' "${HEADLINE:-}"
  printf 'run: %s/%s/actions/runs/%s (attempt %s)\n' "${GITHUB_SERVER_URL:-}" "${GITHUB_REPOSITORY:-}" "${GITHUB_RUN_ID:-}" "${GITHUB_RUN_ATTEMPT:-}"
  printf 'commit: %s\n' "${GITHUB_SHA:-}"
} >"$REPORT_DIR/outcome.txt"
if [ -n "${FINDINGS:-}" ]; then printf '%s\n' "$FINDINGS" >"$REPORT_DIR/findings.json"; fi
echo "report files in $REPORT_DIR:"
ls -l "$REPORT_DIR"
