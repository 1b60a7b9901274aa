#!/bin/bash
# A study as N shards on any set of processes (one machine, or hosts sharing a folder) without
# Slurm or MPI, then the merge:
#   resources/cluster/parallel-shards.sh STUDY.json N OUTDIR [THREADS_PER_SHARD]
# With GNU parallel installed the shards go through it (add --sshloginfile to spread them over
# hosts that see OUTDIR and the binary); otherwise they run as plain background jobs here. Each
# shard trains THREADS_PER_SHARD runs at once (default 1): N x THREADS should not exceed the
# cores. Running the script again continues unfinished shards (--resume) and merges again into
# a fresh OUTDIR/all.db.
# Kubernetes indexed jobs: one shard per pod, the index counts from 0 and shards from 1:
#   paritylab-cli run STUDY.json --shard $((JOB_COMPLETION_INDEX + 1))/N \
#     --db OUTDIR/part-$((JOB_COMPLETION_INDEX + 1)).db
# then the merge below.
set -euo pipefail
STUDY=${1:?usage: parallel-shards.sh STUDY.json N OUTDIR [THREADS_PER_SHARD]}
SHARDS=${2:?usage: parallel-shards.sh STUDY.json N OUTDIR [THREADS_PER_SHARD]}
OUT=${3:?usage: parallel-shards.sh STUDY.json N OUTDIR [THREADS_PER_SHARD]}
THREADS=${4:-1}
CLI=${PARITYLAB_CLI:-build/app/paritylab-cli}
export STUDY SHARDS OUT THREADS CLI
mkdir -p "$OUT"

# Shard K into OUTDIR/part-K.db, continuing it when the database exists; output in part-K.log.
run_shard() {
  local k=$1 db="$OUT/part-$1.db" resume=()
  [ -e "$db" ] && resume=(--resume)
  "$CLI" run "$STUDY" --shard "$k/$SHARDS" --db "$db" --threads "$THREADS" "${resume[@]}" \
    >"$OUT/part-$k.log" 2>&1
}
export -f run_shard

status=0
if command -v parallel >/dev/null 2>&1; then
  seq 1 "$SHARDS" | parallel run_shard {} || status=$?
else
  pids=()
  for k in $(seq 1 "$SHARDS"); do
    run_shard "$k" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
fi
echo "shard logs: $OUT/part-*.log"
[ "$status" -eq 0 ] || echo "a shard ended with status $status; merging what is there" >&2
rm -f "$OUT/all.db" "$OUT/all.db-wal" "$OUT/all.db-shm"
exec "$CLI" merge "$OUT"/part-*.db --db "$OUT/all.db" --require-complete
