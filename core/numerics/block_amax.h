#pragma once
// The first step of every block scale: the largest magnitude of each scaling group. Internal to
// the block quantizer (block_scaling.cpp), declared here so that the tests can hold the vectorised
// kernels to the plain loops.
//
// Magnitudes are compared as their fp32 patterns without the sign (finite magnitudes order as
// their patterns): an amax is returned as those bits, 0 for a group of zeros.

#include <cstddef>
#include <cstdint>

namespace paritylab::numerics {

// amaxBits[g] = the largest |x| pattern of the g-th group of `width` consecutive values of the n
// at x (the last group cut short at n when width does not divide it). False when some value is an
// infinity or a NaN: the caller then takes the general path, which gives such a group its NaN scale
// (amaxBits is then partly written and meaningless).
bool finiteBlockAmax(const float* x, std::size_t n, std::size_t width, std::uint32_t* amaxBits);

// amaxBits[c] = the largest |x| pattern of column c over rows [0, rows) of the matrix at x (row
// stride ld), c < cols: the amax of blocks that run down the columns. False when some value is an
// infinity or a NaN (as above).
bool finiteColumnAmax(const float* x, std::size_t rows, std::size_t cols, std::size_t ld,
                      std::uint32_t* amaxBits);

// OCP MX v1.0 section 6.3's scale exponents, floor(log2 amax) - emaxElem in E8M0's range (an
// amax below 2^(emaxElem - 127) takes 2^-127; a group of zeros 2^0 clamped into [first, last]),
// of `groups` amax patterns: shifts[g], the exponent of group g's scale. False when some exponent
// lies outside [first, last] (the scaled grids Rounder::applyScaledBlocks rounds on; first <=
// last).
bool mxScaleShifts(const std::uint32_t* amaxBits, std::size_t groups, int emaxElem, int first,
                   int last, int* shifts);

}  // namespace paritylab::numerics
