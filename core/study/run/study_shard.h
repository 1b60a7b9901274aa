#pragma once
// A study split into N shards for clusters without MPI (Slurm job arrays, Kubernetes indexed jobs,
// GNU parallel): `run STUDY.json --shard K/N --db part-K.db` trains the K-th share of the plan, and
// `merge` joins the shard databases (results_merge.h). K counts from 1 (1..N).
//
// Which runs a shard gets: shardRunsOf (study_runner.h) deals the study's runs, in the order the
// runner starts them (seed by seed, each seed's costliest backend first), each to the shard with
// the least estimated cost so far. It depends on the spec only, so a shard is the same on every
// resume and on every machine, and adding seeds keeps every earlier run in its shard.

#include <string>

#include "core/study/store/results_store.h"

namespace paritylab::study {

struct StudyShard {
  int index = 1;  // K, 1..count
  int count = 1;  // N; 1 = the whole study
  bool whole() const { return count == 1; }
  std::string text() const;  // "K/N"
};

// Parses "K/N" (1 <= K <= N <= 100000). Throws SpecError naming the value and the rule, e.g.
// "--shard '0/3': K counts from 1 (1..3); for a 0-based index (Kubernetes JOB_COMPLETION_INDEX)
// pass INDEX+1".
StudyShard parseShard(const std::string& text);

// The shard a results database holds: its paritylab_meta key "shard" ("K/N"); whole() when the
// database holds a study run without --shard (or a merged one). Throws StoreError naming the file
// when the stored value is damaged.
StudyShard storedShard(const ResultsStore& store);

// Records `shard` in a database whose study was just saved, or checks that a resumed database
// holds this shard: StoreError "part-2.db: holds shard 2/3 of its study, not 1/3 (resume it with
// --shard 2/3)" otherwise.
void recordOrCheckShard(ResultsStore& store, const StudyShard& shard, bool studyJustSaved);

}  // namespace paritylab::study
