// Everything in paritylab::stats, for callers that want the whole floor (CLI stats/report, the
// study runner's summary, the Qt statistics panel). Numbers in, result structs out; no Qt and no
// knowledge of training, so imported results are analysed exactly like emulated ones.
// Errors: caller mistakes (NaN/inf values, too few values, alpha outside (0,1), margin <= 0, ...)
// throw std::invalid_argument naming the argument and value; data that cannot answer the question
// (zero variance in both groups) gives `defined = false` in the result, never an exception.
#pragma once

#include "core/stats/anova.h"
#include "core/stats/bootstrap.h"
#include "core/stats/churn.h"
#include "core/stats/descriptive.h"
#include "core/stats/detectable_difference.h"
#include "core/stats/frequency_bands.h"
#include "core/stats/hodges_lehmann.h"
#include "core/stats/mann_whitney.h"
#include "core/stats/mcnemar.h"
#include "core/stats/multiple_comparisons.h"
#include "core/stats/paired_tests.h"
#include "core/stats/per_class.h"
#include "core/stats/power.h"
#include "core/stats/t_test.h"
#include "core/stats/tail.h"
#include "core/stats/tost.h"
#include "core/stats/verdict.h"
#include "core/stats/weight_divergence.h"
