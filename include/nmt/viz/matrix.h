// A plain row-major float matrix for the pictures in nmt::viz, so that the module needs no
// LibTorch: the caller copies an attention tensor [rows, cols] into `values` (rows * cols floats,
// row after row). Torch-free; average() throws nmt::Error naming the offending shapes; never logs.
#pragma once

#include <cstdint>
#include <vector>

namespace nmt::viz {

// Row-major float matrix: element (row, col) is values[row * cols + col].
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> values;  // rows * cols

  // Element (row, col); throws nmt::Error when the index is outside the matrix.
  float at(int64_t row, int64_t col) const;
};

// Element-wise mean of matrices of one shape (e.g. the heads of a layer). Throws nmt::Error when
// the input is empty, when a matrix's values do not hold rows * cols floats or when the shapes
// differ.
Matrix average(const std::vector<Matrix>& matrices);

}  // namespace nmt::viz
