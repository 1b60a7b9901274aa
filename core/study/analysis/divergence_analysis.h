// Divergence analysis of a study: beyond the mean accuracy, does the precision change
// the model a run produces? Reads the per-example test predictions and the per-epoch weight
// snapshots stored with each finished emulated run, and compares two backends A and B (B is the
// reference whose seed-to-seed variation is the noise floor):
//   churn matrix    every backend x backend; diagonal = seed churn of that backend, off-diagonal
//                   = precision churn (seed-matched pairs), with bootstrap CIs;
//   headline        the plain-words sentence of stats::compareChurn;
//   McNemar         per seed-matched pair, Holm across pairs;
//   paired tests    paired t and Wilcoxon on seed-matched final accuracies, beside Welch;
//   per class       mean accuracy per class, difference A - B with Welch CI and Holm p (for a
//                   language model per token-frequency band);
//   weights         per layer and epoch: ||W_A - W_B|| / ||W_B|| at the same seed, and between two
//                   seeds of B as the floor;
//   samples         a language model: the text each backend's model writes, against B's;
//   chaos floor     the same against B's runs perturbed at the level of rounding noise
//                   (chaos_floor.h), when the study has them.
// Imported runs (and runs trained before predictions were stored) have none of this: every part
// says why it is empty in `notes` instead of failing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/stats/bootstrap.h"
#include "core/stats/churn.h"
#include "core/stats/mcnemar.h"
#include "core/stats/paired_tests.h"
#include "core/stats/per_class.h"
#include "core/stats/t_test.h"
#include "core/stats/tail.h"
#include "core/study/analysis/text_samples.h"
#include "core/study/analysis/train_serve.h"

namespace paritylab::study {

class ResultsStore;

struct DivergenceOptions {
  std::string a;                             // the backend examined
  std::string b;                             // the reference (its seed churn is the floor)
  double alpha = 0.05;                       // McNemar/Holm, per-class Holm, CIs at 1 - alpha
  stats::Tail tail = stats::Tail::TwoSided;  // for the paired and Welch tests
  stats::BootstrapOptions bootstrap;         // seeded: the same report for the same database
};

// One cell of the churn matrix, fractions in [0, 1].
struct ChurnCell {
  std::string row, column;     // backends; row == column: seed churn of that backend
  stats::ChurnEstimate churn;  // pairs == 0: undefined (fewer than 2 seeds, or no shared seed)
};

// What the per-class table's rows are: the dataset's classes, or for a language model the
// token-frequency bands of the validation targets (stats/frequency_bands.h), since a vocabulary
// is too many classes to test one by one.
enum class ClassGrouping { Classes, TokenFrequencyBands };

// One class's (or band's) accuracy under A and B (fractions), and the difference A - B.
struct ClassRow {
  std::size_t classIndex = 0;         // the class, or the band (0 = the most frequent tokens)
  std::string className;              // from the dataset ("T-shirt/top" ...), else the index;
                                      // a band: "frequent tokens", "medium tokens", "rare tokens"
  std::string members;                // a band's symbols and share of the positions, else ""
  std::size_t examples = 0;           // test examples (positions) of the class or band
  double meanA = 0.0, meanB = 0.0;    // mean over runs
  stats::ClassDifference difference;  // Welch CI, Holm p, beyond_seed_noise
};

// One layer's relative weight distance over epochs (epoch numbers 1-based, as stored).
struct LayerDivergence {
  std::string layer;              // e.g. "conv1.weight"
  std::vector<int> epochs;        // epochs with snapshots in every run used
  std::vector<double> precision;  // mean over seed-matched pairs of ||W_A - W_B|| / ||W_B||
  std::vector<double> seedFloor;  // mean over pairs of B's runs with different seeds
  std::size_t precisionPairs = 0, seedPairs = 0;  // pairs averaged at each epoch
};

// The chaos floor of the pair (chaos_floor.h).
// One perturbation of the reference.
struct ChaosFloorPart {
  std::string backend;         // the perturbed runs' backend, e.g. "nudged-cpu-fp32"
  std::string perturbation;    // "weight-ulp" or "summation-order"
  std::string words;           // "a one-ulp nudge of one initial weight"
  stats::ChurnEstimate churn;  // perturbed vs reference, same seed (fractions)
  std::vector<stats::SeedPairMcNemar> mcnemar;      // first = perturbed, second = reference
  std::optional<stats::PairedTTestResult> pairedT;  // final accuracy perturbed - reference
  std::vector<LayerDivergence> layers;  // `precision` holds the perturbed run's distance
  // Per seed with runs of A, B and this perturbation: churn(A, B) - churn(P, B), its mean and CI.
  std::size_t excessSeeds = 0;
  stats::BootstrapCi excess;
};

struct ChaosFloorReport {
  std::string reference;  // the backend whose perturbed runs these are
  // false: the pair's reference has no perturbed runs and the study's chaos floor (of
  // `reference`) stands in for it, said in the headline.
  bool ofPairReference = true;
  std::vector<ChaosFloorPart> parts;  // the study's perturbations, in its order
  // "tpu-bf16 changes 2.1% of test predictions against cpu-fp32 at the same seed; a one-ulp
  // nudge of one initial weight changes 1.6%, another fp32 summation order 1.5%; two seeds 12%:
  // 0.5 of the precision's 2.1 points exceed the chaos floor [-0.2, 1.1], hardly more than a
  // rounding-level perturbation changes." Empty when there is no precision churn to compare.
  std::string headline;
};

struct DivergenceReport {
  std::string a, b;
  std::vector<std::string> classNames;  // dataset's class names (index strings if unnamed)
  ClassGrouping grouping = ClassGrouping::Classes;  // what `classes` holds
  // What the churn counts, in words: "test predictions" of "examples", or for a language model
  // "next-token predictions" at validation "positions".
  std::string predictions = "test predictions", examples = "examples";

  // Backends with stored predictions, in the study's order; matrix row-major, size n x n.
  std::vector<std::string> backends;
  // Completed runs of every backend (imported too, with predictions or not): none while a study has
  // only started, which is not the same as runs that carry no predictions.
  std::size_t completedRuns = 0;
  std::vector<ChurnCell> churnMatrix;

  std::optional<stats::ChurnComparison> churn;  // A vs B, with the headline sentence
  std::vector<stats::SeedPairMcNemar> mcnemar;  // one per seed-matched pair of A and B
  std::vector<std::uint64_t> pairedSeeds;       // seeds with a finished run of both A and B

  // Final accuracies (fractions) of the seed-matched runs: both designs, so both p values show.
  std::optional<stats::PairedTTestResult> pairedT;  // needs >= 2 pairs, not all differences equal
  std::optional<stats::WilcoxonResult> wilcoxon;    // needs a non-zero difference
  std::optional<stats::TTestResult> welch;          // unpaired, every finished run of A and of B

  std::vector<ClassRow> classes;        // empty when predictions are missing
  std::vector<LayerDivergence> layers;  // empty when no weights were kept

  // A language model's samples (text_samples.h) against B: what each backend's model writes.
  std::optional<SamplesReport> samples;

  // The chaos floor (chaos_floor.h): filled in when the study has perturbed runs.
  std::optional<ChaosFloorReport> chaos;

  // Train under one backend, serve under another (train_serve.h): filled in when any run was
  // served by another backend.
  std::optional<TrainServeMatrix> serving;
  // The study's lockstep comparisons (the spec's "lockstep"), "resync" before "free"; empty when
  // the study ran none. Their backend and reference are their own, not the pair's.
  std::vector<LockstepRecord> lockstep;

  std::string weightsKept;  // the study's keep_weights: "epochs", "final" or "none"
  // Why a part is empty or partial, in words ("imported runs carry no per-example predictions",
  // "keep_weights is none: no weight divergence", "seed 3 has no finished tpu-bf16 run", ...).
  std::vector<std::string> notes;
};

// Reads everything from the store (read-only is enough). Throws std::invalid_argument naming the
// backend when options.a or options.b is not in the study; never throws because data is missing
// (that is what notes are for).
DivergenceReport analyseDivergence(const ResultsStore& store, const DivergenceOptions& options);

}  // namespace paritylab::study
