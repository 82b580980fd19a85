#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <cblas.h>
#include <chrono>
#include <cstdio>
// Times CPU bmm at attention shapes: LibTorch's at::bmm against a parallel_for over the batch
// calling cpublas::gemm per item.
double seconds_of(const std::function<void()>& f, int reps) {
  f();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
}
int main(int argc, char** argv) {
  const int64_t threads = argc > 1 ? atoi(argv[1]) : 2;
  at::set_num_threads(threads);
  for (int64_t T : {8, 12, 20, 40}) {
    const int64_t N = 4000 / T * 4;  // sentences x heads at 4000 target tokens
    at::Tensor q = at::randn({N, T, 64}), k = at::randn({N, T, 64});
    at::Tensor out = at::empty({N, T, T});
    auto torch_bmm = [&] { at::bmm_out(out, q, k.transpose(1, 2)); };
    auto own = [&] {
      const float* qp = q.data_ptr<float>(); const float* kp = k.data_ptr<float>(); float* op = out.data_ptr<float>();
      at::parallel_for(0, N, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
          // out_i (T x T, row-major) = q_i k_i^T: column-major view out^T = k q^T
          cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans,
              T, T, 64, 1.0f, kp + i * T * 64, 64, qp + i * T * 64, 64, 0.0f, op + i * T * T, T);
      });
    };
    auto per_item_mm = [&] {
      at::Tensor kt = k.transpose(1, 2);
      at::parallel_for(0, N, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          at::Tensor o = out.select(0, i);
          at::mm_out(o, q.select(0, i), kt.select(0, i));
        }
      });
    };
    at::Tensor ref = at::bmm(q, k.transpose(1, 2));
    own();
    const double diff = (out - ref).abs().max().item<double>();
    const double a = seconds_of(torch_bmm, 20), b = seconds_of(own, 20);
    per_item_mm();
    const double diff2 = (out - ref).abs().max().item<double>();
    const double c = seconds_of(per_item_mm, 20);
    std::printf("threads %ld T %ld N %ld: at::bmm %.3f ms; parallel_for + cblas_sgemm %.3f ms (%.2fx), max diff %.2g; parallel_for + at::mm_out %.3f ms (%.2fx), max diff %.2g\n",
                threads, T, N, a * 1e3, b * 1e3, a / b, diff, c * 1e3, a / c, diff2);
  }
}
