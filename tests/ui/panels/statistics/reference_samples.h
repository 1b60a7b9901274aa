#pragma once
// The final top-1 accuracies (epoch 25) of the reference experiment's 28 ResNet-18 runs, from
// resources/reference/torchprime-resnet18-metrics.csv, embedded so tests run without the file.
// SciPy 1.10: ttest_ind(xla, cuda, equal_var=False) -> t = 1.4034822046081936,
// p = 0.17344679058805318; equal_var=True -> p = 0.1723042696475626;
// mannwhitneyu(xla, cuda) -> U = 125.0, p = 0.22324415728809321.

#include <vector>

namespace paritylab::ui::testing {

inline const std::vector<double> kXlaFinal = {0.6855, 0.7034, 0.7034, 0.6999, 0.6994,
                                              0.6836, 0.7108, 0.7108, 0.6905, 0.7096,
                                              0.6967, 0.693,  0.6904, 0.6934};
inline const std::vector<double> kCudaFinal = {0.6878, 0.6834, 0.6917, 0.6912, 0.6939,
                                               0.6915, 0.6916, 0.7017, 0.701,  0.6951,
                                               0.7092, 0.6941, 0.6911, 0.6888};

}  // namespace paritylab::ui::testing
