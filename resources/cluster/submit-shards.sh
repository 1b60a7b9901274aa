#!/bin/bash
# Submits a study as N shards (a Slurm job array) and the merge that runs after them:
#   resources/cluster/submit-shards.sh STUDY.json N OUTDIR
# The results end in OUTDIR/all.db; OUTDIR/part-K.db hold the shards.
set -euo pipefail
STUDY=${1:?usage: submit-shards.sh STUDY.json N OUTDIR}
SHARDS=${2:?usage: submit-shards.sh STUDY.json N OUTDIR}
OUT=${3:?usage: submit-shards.sh STUDY.json N OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
ARRAY=$(sbatch --parsable --array="1-$SHARDS" "$HERE/slurm-shards.sbatch" "$STUDY" "$SHARDS" "$OUT")
MERGE=$(sbatch --parsable --dependency="afterany:$ARRAY" "$HERE/slurm-merge.sbatch" "$OUT")
echo "shards: job $ARRAY (array 1-$SHARDS), merge: job $MERGE -> $OUT/all.db"
