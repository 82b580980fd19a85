#include "nmt/viz/matrix.h"

#include <string>

#include "nmt/error.h"

namespace nmt::viz {
namespace {

std::string shape_of(const Matrix& matrix) {
  return std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols);
}

void check_size(const Matrix& matrix, std::size_t index) {
  if (matrix.rows < 0 || matrix.cols < 0 ||
      matrix.values.size() != static_cast<std::size_t>(matrix.rows * matrix.cols)) {
    throw Error("average: matrix " + std::to_string(index) + " is " + shape_of(matrix) +
                " and should hold " + std::to_string(matrix.rows * matrix.cols) + " values, got " +
                std::to_string(matrix.values.size()));
  }
}

}  // namespace

float Matrix::at(int64_t row, int64_t col) const {
  if (row < 0 || row >= rows || col < 0 || col >= cols) {
    throw Error("Matrix::at: index (" + std::to_string(row) + ", " + std::to_string(col) +
                ") is outside a " + shape_of(*this) + " matrix");
  }
  return values.at(static_cast<std::size_t>(row * cols + col));
}

Matrix average(const std::vector<Matrix>& matrices) {
  if (matrices.empty()) throw Error("average: expected at least one matrix, got none");
  const Matrix& first = matrices.front();
  check_size(first, 0);
  std::vector<double> sum(first.values.size(), 0.0);
  for (std::size_t m = 0; m < matrices.size(); ++m) {
    const Matrix& matrix = matrices[m];
    if (matrix.rows != first.rows || matrix.cols != first.cols) {
      throw Error("average: expected every matrix to be " + shape_of(first) + ", but matrix " +
                  std::to_string(m) + " is " + shape_of(matrix));
    }
    check_size(matrix, m);
    for (std::size_t i = 0; i < matrix.values.size(); ++i) sum[i] += matrix.values[i];
  }
  Matrix mean{first.rows, first.cols, std::vector<float>(sum.size())};
  const auto count = static_cast<double>(matrices.size());
  for (std::size_t i = 0; i < sum.size(); ++i) mean.values[i] = static_cast<float>(sum[i] / count);
  return mean;
}

}  // namespace nmt::viz
