/**
 * The deploy lock on the head node, as commands (data). The lock is a directory: `mkdir` is
 * atomic, so of two deploys that try at once exactly one creates it. Inside it, `holder.json`
 * records who holds it (written through a rename, so no reader sees half of it).
 *
 * Every script answers in one shape the parser in src/deploy/deploy-lock.ts reads:
 *   now=<node's clock, epoch seconds>
 *   state=acquired|held|free|busy|changed|removed|renewed
 *   mtime=<epoch seconds the lock directory was made>      (only when a lock exists)
 *   ---
 *   <holder.json as it is on the node>                     (only when a lock exists)
 * Values (the lock path, the holder record, the expected record) arrive as positional arguments.
 *
 * Time is the head's: the runner sends the holder record without `since`/`expiresAt`, and the
 * script stamps both from the head's clock (`date`), so a runner whose clock is hours off cannot
 * write a lock that is already expired, or one that never expires.
 */
import { type Argv, shScript } from '../command/shell.js'
import type { Manifest } from '../manifest/schema.js'
import { NODE_STATE_DIR } from './node-basics.js'

/** The lock directory of a cluster on its head node. */
export const deployLockDir = (m: Manifest): string => `${NODE_STATE_DIR}/${m.cluster}/deploy.lock`
export const LOCK_HOLDER_FILE = 'holder.json'
/** The most of a holder record a script prints (a real one is a few hundred bytes). */
export const MAX_RECORD_BYTES = 16 * 1024
/** A guard older than this is a dead holder's. */
export const GUARD_EXPIRY_S = 30

/**
 * Prints what is there now. A lock just made by another deploy may not have its record yet
 * (mkdir, then write): wait up to 2 s for it before reporting a lock without one.
 */
const DESCRIBE = `describe() {
  i=0
  while [ -d "$dir" ] && [ ! -f "$dir/holder.json" ] && [ "$i" -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
  if [ -d "$dir" ]; then
    echo "mtime=$(stat -c %Y -- "$dir" 2>/dev/null || echo 0)"
    echo "---"
    # Bounded: a record past what any holder writes is read as unreadable (and --force removes it).
    head -c ${MAX_RECORD_BYTES} -- "$dir/holder.json" 2>/dev/null || true
  fi
}
`

/**
 * \`take_guard\`: the guard directory a renewal and a removal hold while they compare and change the
 * record. It cannot outlive its holder: the EXIT trap removes it, INT, TERM and HUP exit through
 * that trap (dash runs no EXIT trap when a signal kills it), and a guard older than
 * GUARD_EXPIRY_S (a holder killed by SIGKILL; the work under it takes milliseconds) is taken over.
 */
export const TAKE_GUARD = `take_guard() {
  guard="$dir.guard"
  if ! mkdir -- "$guard" 2>/dev/null; then
    made=$(stat -c %Y -- "$guard" 2>/dev/null || echo 0)
    [ $(( $(date +%s) - made )) -gt ${GUARD_EXPIRY_S} ] && rmdir -- "$guard" 2>/dev/null && mkdir -- "$guard" 2>/dev/null || return 1
  fi
  trap 'rmdir -- "$guard" 2>/dev/null' EXIT
  trap 'exit 143' INT TERM HUP
}
`

/**
 * \`stamp <since>\`: the holder record ($holder, a JSON object without times) with \`since\` and an
 * \`expiresAt\` $ttl seconds from now on the head's clock, as one line.
 */
const STAMP = `stamp() {
  exp=$(date -u -d "now + $ttl seconds" +%Y-%m-%dT%H:%M:%S.%3NZ) || return 1
  printf '%s,"since":"%s","expiresAt":"%s"}\\n' "\${holder%\\}}" "$1" "$exp"
}
`

/** $1 lock dir, $2 the holder record (JSON, one line, no times), $3 the TTL in seconds. */
export const ACQUIRE_LOCK_SCRIPT = `set -u
dir=$1; holder=$2; ttl=$3
${DESCRIBE}
${STAMP}
echo "now=$(date +%s)"
mkdir -p -- "$(dirname -- "$dir")" || exit 1
if mkdir -- "$dir" 2>/dev/null; then
  stamp "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" > "$dir/holder.json.tmp" && mv -f -- "$dir/holder.json.tmp" "$dir/holder.json" || { rm -rf -- "$dir"; exit 1; }
  echo "state=acquired"
  describe
  exit 0
fi
if [ -d "$dir" ]; then echo "state=held"; describe; else echo "state=free"; fi
`

/**
 * $1 lock dir, $2 the record the holder last saw, $3 the holder record without times, $4 its
 * \`since\`, $5 the TTL in seconds. Moves \`expiresAt\` to TTL from now (head clock), only while the
 * record is still exactly the one the holder wrote (under the same guard as a removal); otherwise
 * the lock was broken or taken: \`changed\` or \`free\`, and the holder knows it lost it.
 */
export const RENEW_LOCK_SCRIPT = `set -u
dir=$1; expected=$2; holder=$3; since=$4; ttl=$5
${DESCRIBE}
${STAMP}
${TAKE_GUARD}
echo "now=$(date +%s)"
[ -d "$dir" ] || { echo "state=free"; exit 0; }
take_guard || { echo "state=busy"; exit 0; }
current=$(cat -- "$dir/holder.json" 2>/dev/null || true)
if [ "$current" != "$expected" ]; then echo "state=changed"; describe; exit 0; fi
stamp "$since" > "$dir/holder.json.tmp" && mv -f -- "$dir/holder.json.tmp" "$dir/holder.json" || exit 1
echo "state=renewed"
describe
`

/** $1 lock dir. */
export const LOCK_STATUS_SCRIPT = `set -u
dir=$1
${DESCRIBE}
echo "now=$(date +%s)"
if [ -d "$dir" ]; then echo "state=held"; describe; else echo "state=free"; fi
`

/**
 * $1 lock dir, $2 the record the caller saw. Removes the lock only when its record is still
 * exactly that one (a release by token, or breaking an expired lock nobody renewed meanwhile).
 * The check and the removal run under the guard (take_guard), so two breakers cannot both act on
 * the same stale lock and then remove a fresh one.
 */
export const REMOVE_LOCK_IF_SCRIPT = `set -u
dir=$1; expected=$2
${DESCRIBE}
${TAKE_GUARD}
echo "now=$(date +%s)"
[ -d "$dir" ] || { echo "state=free"; exit 0; }
take_guard || { echo "state=busy"; exit 0; }
current=$(cat -- "$dir/holder.json" 2>/dev/null || true)
if [ "$current" != "$expected" ]; then
  if [ -d "$dir" ]; then echo "state=changed"; describe; else echo "state=free"; fi
  exit 0
fi
gone="$dir.removed.$$"
mv -- "$dir" "$gone" && rm -rf -- "$gone" || exit 1
echo "state=removed"
`

/**
 * $1 lock dir. Removes whatever lock is there, under the guard: a renewal in flight finishes first
 * (\`busy\`: the caller tries again), so it cannot write its record into a lock taken after this.
 */
export const FORCE_REMOVE_LOCK_SCRIPT = `set -u
dir=$1
${TAKE_GUARD}
echo "now=$(date +%s)"
[ -d "$dir" ] || { echo "state=free"; exit 0; }
take_guard || { echo "state=busy"; exit 0; }
gone="$dir.removed.$$"
mv -- "$dir" "$gone" && rm -rf -- "$gone" || exit 1
echo "state=removed"
`

export const acquireLockCmd = (dir: string, holderJson: string, ttlSeconds: number): Argv => shScript(ACQUIRE_LOCK_SCRIPT, dir, holderJson, String(ttlSeconds))
export const renewLockCmd = (dir: string, expectedRecord: string, holderJson: string, since: string, ttlSeconds: number): Argv =>
  shScript(RENEW_LOCK_SCRIPT, dir, expectedRecord, holderJson, since, String(ttlSeconds))
export const lockStatusCmd = (dir: string): Argv => shScript(LOCK_STATUS_SCRIPT, dir)
export const removeLockIfCmd = (dir: string, expectedRecord: string): Argv => shScript(REMOVE_LOCK_IF_SCRIPT, dir, expectedRecord)
export const forceRemoveLockCmd = (dir: string): Argv => shScript(FORCE_REMOVE_LOCK_SCRIPT, dir)
