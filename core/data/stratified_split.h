#pragma once
// Class-preserving selection: filters, stratified subsets and train/test splits. Every selection
// keeps the images' original order (the trainer shuffles), and is deterministic in the seed.

#include <cstdint>
#include <string>
#include <vector>

#include "core/data/dataset.h"

namespace paritylab::data {

// Splits `total` items over classes in proportion to `classCounts` (largest remainder; ties go
// to the smaller class index). Sum of the result == total; each entry <= its class count.
std::vector<std::size_t> allocateStratified(const std::vector<std::size_t>& classCounts,
                                            std::size_t total);

// A dataset with d's shape, classes and normalisation record, but no images.
Dataset sameShapeEmpty(const Dataset& d);

// Images/labels of `d` at `indices` (in that order), other fields copied.
Dataset selectImages(const Dataset& d, const std::vector<std::size_t>& indices);

// `count` images with the class proportions of `d`, chosen at random by `seed`. Throws DataError
// "<what> = <count> exceeds the <n> images available" when count > d.size().
Dataset stratifiedSubset(const Dataset& d, std::size_t count, std::uint64_t seed,
                         const std::string& what = "subset size");

// Moves round(n * testFraction) images, stratified by class, into the test split.
DataSplit stratifiedSplit(const Dataset& all, double testFraction, std::uint64_t seed);

// Keeps only `classes` (source labels), relabelled 0..k-1 in the given order. Throws DataError
// naming `source` when a class is out of range or repeated.
Dataset keepClasses(const Dataset& d, const std::vector<int>& classes, const std::string& source);

// a followed by b (same image shape).
Dataset concatenate(const Dataset& a, const Dataset& b);

// Per-channel mean and (population) standard deviation of d's pixels, in double precision.
void channelStatistics(const Dataset& d, std::vector<double>& mean, std::vector<double>& sd);

// Normalises train and test with the training split's statistics (sd 0 -> 1), storing them in
// both datasets' channelMean/channelStd. apply == false: stores mean 0 / std 1, pixels untouched.
void normalizeWithTrainStatistics(DataSplit& split, bool apply);

}  // namespace paritylab::data
