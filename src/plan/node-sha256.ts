/**
 * SHA-256 on a node by the fastest hasher it has (POSIX sh snippet for the node-side scripts).
 *
 * Measured on the lab's x86 cores (SHA-NI): coreutils `sha256sum` has no SHA extensions and runs
 * about 400 MB/s; Python's hashlib (OpenSSL's SHA-256, which uses SHA-NI on x86 and the ARMv8 SHA2
 * instructions on Arm server cores such as Grace's Neoverse V2) 1.15 GB/s; `openssl dgst` is the
 * same code. So: python3 → openssl → sha256sum, each taken only when it hashes the empty input
 * right (a missing or broken one is skipped).
 */

/** SHA-256 of stdin in 1 MiB reads, printed as 64 hex digits (no single quote in it: it sits in a heredoc). */
export const SHA256_PY = `import hashlib, sys
h = hashlib.sha256()
f = sys.stdin.buffer.raw
while True:
    b = f.read(1 << 20)
    if not b:
        break
    h.update(b)
print(h.hexdigest())
`

/** SHA-256 of nothing: how the snippet tells a working hasher from a missing or broken one. */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'

/**
 * POSIX sh. Defines `pick_hasher` (sets `hasher` to python3, openssl or sha256sum: the first that
 * hashes the empty input right; call it once, outside `$(...)`, before the first `sha`) and `sha`
 * (stdin → a line that starts with the 64 hex digits of its SHA-256). `hasher` starts empty.
 */
export const NODE_SHA256_SH = `SHAPY=$(cat <<'PYEOF'
${SHA256_PY}PYEOF
)
hasher=
pick_hasher() {
  if [ "$(python3 -c "$SHAPY" </dev/null 2>/dev/null)" = ${EMPTY_SHA256} ]; then hasher=python3
  elif [ "$(openssl dgst -sha256 -r </dev/null 2>/dev/null | cut -c1-64)" = ${EMPTY_SHA256} ]; then hasher=openssl
  else hasher=sha256sum; fi
}
sha() {
  case $hasher in
    python3) python3 -c "$SHAPY" ;;
    openssl) openssl dgst -sha256 -r ;;
    *) sha256sum ;;
  esac
}
`
