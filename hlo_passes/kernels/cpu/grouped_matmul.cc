// Grouped matrix multiplication (GMM) for XLA:CPU as typed-FFI handlers.
//
//   hlo_passes_gmm : lhs[m,k], rhs[g,k,n], group_sizes[g] -> out[m,n]
//       rows of group i are the block after groups 0..i-1; out[rows_i] =
//       lhs[rows_i] @ rhs[i]; rows past sum(group_sizes) are zero.
//   hlo_passes_tgmm: lhs[m,k], rhs[m,n], group_sizes[g] -> out[g,k,n]
//       out[i] = lhs[rows_i]^T @ rhs[rows_i]; an empty group gives zeros.
//   hlo_passes_moe_ffn_silu{,_up_first,_pair}: the whole expert FFN
//       gmm(silu(gate) * up, w_out) in one pass over tiles of rows (below,
//       "Fused expert FFN").
//
// Groups are clipped at m, as jax's ragged_dot masks rows by
// start <= row < end with row < m. A negative size counts as 0 (XLA leaves it
// undefined; clamping keeps groups disjoint). lhs and rhs are f32 or bf16
// independently, group_sizes s32 or s64, out f32 or bf16; products are
// accumulated in f32 and rounded once (round-to-nearest-even for bf16).
//
// Work is Σ m_i·k·n: each group multiplies only its own rows. The GEMM is
// BLIS-shaped: operands are converted to f32 while being packed into
// cache-sized panels (the packing is where bf16 widening and the transposed
// lhs of tgmm are absorbed, so one register-blocked micro-kernel serves all
// dtype and layout combinations), and tiles of the output are spread over
// std::threads.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

// ---------------------------------------------------------------------------
// Register blocking. On x86 the micro-kernel uses 256-bit FMA even where
// AVX-512 exists: many Xeons have one 512-bit FMA port but two 256-bit ones,
// and lower their clock under zmm load, so ymm measured ~1.3x faster here.
// AVX-512VL still helps by doubling the register file (ymm16-31), which pays
// for a taller micro-tile. Elsewhere GCC/Clang vector extensions map onto
// whatever 128-bit unit the target has (SSE, NEON).
#if defined(__AVX2__) && defined(__FMA__)
using vfloat = __m256;
constexpr int kVL = 8;  // floats per vector
#if defined(__AVX512VL__)
constexpr int kMR = 12;  // 12 x 2 accumulators + 2 B + 1 A of 32 registers
#else
constexpr int kMR = 6;  // 6 x 2 accumulators + 2 B + 1 A of 16 registers
#endif
inline vfloat load_v(const float* p) { return _mm256_loadu_ps(p); }
inline void store_v(float* p, vfloat v) { _mm256_storeu_ps(p, v); }
inline vfloat splat(const float* p) { return _mm256_broadcast_ss(p); }
inline vfloat zero_v() { return _mm256_setzero_ps(); }
inline vfloat fma_v(vfloat a, vfloat b, vfloat c) { return _mm256_fmadd_ps(a, b, c); }
inline vfloat add_v(vfloat a, vfloat b) { return _mm256_add_ps(a, b); }
#else
typedef float vfloat __attribute__((vector_size(4 * sizeof(float))));
constexpr int kVL = 4;
constexpr int kMR = 6;
inline vfloat load_v(const float* p) {
  vfloat v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store_v(float* p, vfloat v) { std::memcpy(p, &v, sizeof v); }
inline vfloat splat(const float* p) { return vfloat{*p, *p, *p, *p}; }
inline vfloat zero_v() { return vfloat{}; }
// Contracted to an FMA under -ffp-contract=fast (which the build passes).
inline vfloat fma_v(vfloat a, vfloat b, vfloat c) { return a * b + c; }
inline vfloat add_v(vfloat a, vfloat b) { return a + b; }
#endif
constexpr int kNV = 2;            // vectors per micro-tile row
constexpr int kNR = kNV * kVL;    // micro-tile columns
// Cache blocking: a KC x NR slice of B stays in L1 across the MR panels of A,
// the packed A block (MC x KC) and B block (KC x NC) in L2.
constexpr int64_t kKC = 256;
constexpr int64_t kMC = kMR * 10;
constexpr int64_t kNC = kNR * 32;
// A task covers up to this many output rows, so that its packed B block
// (read from the group's weights, the largest operand) serves several MC
// blocks of A before it is packed again.
constexpr int64_t kTaskRows = kMC * 4;
// Row stride of the f32 tile a task accumulates into; the padding keeps the
// MR rows a micro-kernel updates from mapping to the same L1 sets.
constexpr int64_t kLdc = kNC + 16;
// Below this many multiply-adds per thread (~0.1 ms) starting a thread and
// faulting in its packing buffers costs more than it saves.
constexpr int64_t kMinWorkPerThread = int64_t{1} << 23;

// ---------------------------------------------------------------------------
// Element conversion.

inline float to_f32(float x) { return x; }
inline float to_f32(uint16_t bf16_bits) {
  uint32_t u = static_cast<uint32_t>(bf16_bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline void from_f32(float x, float* dst) { *dst = x; }
inline void from_f32(float x, uint16_t* dst) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    // NaN: the canonical quiet NaN with the input's sign, as Eigen (XLA:CPU's
    // convert) produces; rounding could carry a NaN's payload into inf.
    *dst = (u & 0x80000000u) ? 0xffc0u : 0x7fc0u;
    return;
  }
  // Round to nearest, ties to even (what XLA's f32->bf16 convert does).
  u += 0x7fffu + ((u >> 16) & 1u);
  *dst = static_cast<uint16_t>(u >> 16);
}

// ---------------------------------------------------------------------------
// Scratch memory, 64-byte aligned so packed panels load as whole vectors.

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};

class Scratch {
 public:
  float* get(size_t n) {
    if (n > size_) {
      size_t bytes = ((n * sizeof(float) + 63) / 64) * 64;
      float* p = static_cast<float*>(std::aligned_alloc(64, bytes));
      if (p == nullptr) throw std::bad_alloc();
      buf_.reset(p);
      size_ = n;
    }
    return buf_.get();
  }

 private:
  std::unique_ptr<float, AlignedFree> buf_;
  size_t size_ = 0;
};

struct Workspace {
  Scratch a, b, c;
  // The fused expert FFN's tiles (empty for the plain GMMs).
  Scratch gate, up, act, y;
};

// ---------------------------------------------------------------------------
// Packing. A(i, p) is the (row, contraction) element of the left operand,
// B(p, j) the (contraction, column) element of the right one.
//
// A is packed into panels of MR rows: panel[p * MR + i]. Rows past `rows` are
// zero so the micro-kernel never needs a row guard.

template <typename T, bool kTransA>
void pack_a(const T* a, int64_t lda, int64_t rows, int64_t depth, float* dst) {
  for (int64_t i0 = 0; i0 < rows; i0 += kMR) {
    const int64_t mr = std::min<int64_t>(kMR, rows - i0);
    float* panel = dst + i0 * depth;
    if constexpr (kTransA) {
      // A(i, p) = a[p * lda + i]: MR consecutive elements per p.
      for (int64_t p = 0; p < depth; ++p) {
        const T* src = a + p * lda + i0;
        float* out = panel + p * kMR;
        for (int64_t i = 0; i < mr; ++i) out[i] = to_f32(src[i]);
        for (int64_t i = mr; i < kMR; ++i) out[i] = 0.0f;
      }
    } else {
      // A(i, p) = a[i * lda + p]: read each row contiguously.
      for (int64_t i = 0; i < mr; ++i) {
        const T* src = a + (i0 + i) * lda;
        for (int64_t p = 0; p < depth; ++p) panel[p * kMR + i] = to_f32(src[p]);
      }
      for (int64_t i = mr; i < kMR; ++i)
        for (int64_t p = 0; p < depth; ++p) panel[p * kMR + i] = 0.0f;
    }
  }
}

// B is packed into panels of NR columns: panel[p * NR + j]; columns past
// `cols` are zero. Rows of B are read front to back (one source row feeds
// every panel) so that the hardware prefetcher streams the weights.
template <typename T>
void pack_b(const T* b, int64_t ldb, int64_t depth, int64_t cols, float* dst) {
  const int64_t full = cols / kNR * kNR;
  for (int64_t p = 0; p < depth; ++p) {
    const T* src = b + p * ldb;
    for (int64_t j0 = 0; j0 < full; j0 += kNR) {
      float* out = dst + j0 * depth + p * kNR;
#pragma GCC unroll 4
      for (int j = 0; j < kNR; ++j) out[j] = to_f32(src[j0 + j]);
    }
    if (full < cols) {
      float* out = dst + full * depth + p * kNR;
      for (int64_t j = 0; j < cols - full; ++j) out[j] = to_f32(src[full + j]);
      for (int64_t j = cols - full; j < kNR; ++j) out[j] = 0.0f;
    }
  }
}

// ---------------------------------------------------------------------------
// Micro-kernel: C[MR x NR] (+)= A_panel · B_panel over `depth`.

void micro_kernel(int64_t depth, const float* __restrict a,
                  const float* __restrict b, float* __restrict c, int64_t ldc,
                  bool accumulate) {
  vfloat acc[kMR][kNV];
#pragma GCC unroll 16
  for (int i = 0; i < kMR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) acc[i][v] = zero_v();
  for (int64_t p = 0; p < depth; ++p) {
    vfloat bv[kNV];
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) bv[v] = load_v(b + p * kNR + v * kVL);
#pragma GCC unroll 16
    for (int i = 0; i < kMR; ++i) {
      const vfloat av = splat(a + p * kMR + i);
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) acc[i][v] = fma_v(av, bv[v], acc[i][v]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < kMR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) {
      float* dst = c + i * ldc + v * kVL;
      store_v(dst, accumulate ? add_v(load_v(dst), acc[i][v]) : acc[i][v]);
    }
}

// ---------------------------------------------------------------------------
// One task's output: C[rows x cols] = A · B over `depth`, in f32, into a
// workspace tile with row stride kLdc (converted to the output by the caller).
// rows <= kTaskRows, cols <= kNC. With add_to_c the product is added to what
// c holds (the fused FFN's second GEMM accumulates over chunks of F).

template <typename TA, bool kTransA, typename TB>
void gemm_tile(const TA* a, int64_t lda, const TB* b, int64_t ldb,
               int64_t rows, int64_t cols, int64_t depth, Workspace& ws,
               float* c, bool add_to_c = false) {
  if (depth == 0) {
    if (add_to_c) return;
    for (int64_t i = 0; i < rows; ++i)
      std::memset(c + i * kLdc, 0, cols * sizeof(float));
    return;
  }
  const int64_t cols_padded = (cols + kNR - 1) / kNR * kNR;
  float* a_pack = ws.a.get(static_cast<size_t>(kMC) * kKC);
  float* b_pack = ws.b.get(static_cast<size_t>(kKC) * kNC);
  alignas(64) float edge[kMR * kNR];
  for (int64_t p0 = 0; p0 < depth; p0 += kKC) {
    const int64_t kc = std::min(kKC, depth - p0);
    const bool accumulate = add_to_c || p0 > 0;
    pack_b<TB>(b + p0 * ldb, ldb, kc, cols, b_pack);
    for (int64_t r0 = 0; r0 < rows; r0 += kMC) {
      const int64_t mc = std::min(kMC, rows - r0);
      const int64_t mc_padded = (mc + kMR - 1) / kMR * kMR;
      pack_a<TA, kTransA>(kTransA ? a + p0 * lda + r0 : a + r0 * lda + p0, lda,
                          mc, kc, a_pack);
      for (int64_t j0 = 0; j0 < cols_padded; j0 += kNR) {
        const float* b_panel = b_pack + j0 * kc;
        const int64_t nr = std::min<int64_t>(kNR, cols - j0);
        for (int64_t i0 = 0; i0 < mc_padded; i0 += kMR) {
          const float* a_panel = a_pack + i0 * kc;
          const int64_t mr = std::min<int64_t>(kMR, mc - i0);
          float* c_tile = c + (r0 + i0) * kLdc + j0;
          if (mr == kMR && nr == kNR) {
            micro_kernel(kc, a_panel, b_panel, c_tile, kLdc, accumulate);
          } else {
            micro_kernel(kc, a_panel, b_panel, edge, kNR, false);
            for (int64_t i = 0; i < mr; ++i)
              for (int64_t j = 0; j < nr; ++j)
                c_tile[i * kLdc + j] = accumulate
                                           ? c_tile[i * kLdc + j] + edge[i * kNR + j]
                                           : edge[i * kNR + j];
          }
        }
      }
    }
  }
}

template <typename TO>
void store_tile(const float* c, int64_t rows, int64_t cols, TO* out,
                int64_t ldo) {
  for (int64_t i = 0; i < rows; ++i) {
    const float* src = c + i * kLdc;
    TO* dst = out + i * ldo;
    for (int64_t j = 0; j < cols; ++j) from_f32(src[j], dst + j);
  }
}

// ---------------------------------------------------------------------------
// Groups and threads.

struct Group {
  int64_t start;  // first row, already clipped at m
  int64_t rows;   // row count after clipping
};

template <typename TG>
std::vector<Group> clip_groups(const TG* sizes, int64_t num_groups, int64_t m) {
  std::vector<Group> groups(num_groups);
  int64_t start = 0;
  for (int64_t i = 0; i < num_groups; ++i) {
    const int64_t size = std::max<int64_t>(0, static_cast<int64_t>(sizes[i]));
    const int64_t begin = std::min(start, m);
    const int64_t end = std::min(start + std::min(size, m), m);
    groups[i] = {begin, end - begin};
    start = end;  // once at m, the remaining groups are empty
  }
  return groups;
}

// Rows per task for `rows` output rows: at most kTaskRows, split evenly (in
// multiples of MR) so that no task is a thin remainder.
int64_t task_rows(int64_t rows) {
  const int64_t tasks = std::max<int64_t>(1, (rows + kTaskRows - 1) / kTaskRows);
  const int64_t per = (rows + tasks - 1) / tasks;
  return std::max<int64_t>(kMR, (per + kMR - 1) / kMR * kMR);
}

// One output tile of either operation.
struct Task {
  int64_t group, row0, rows, col0, cols;
};

int requested_threads() {
  if (const char* env = std::getenv("HLO_PASSES_GMM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0) return static_cast<int>(std::min(n, 1024L));
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// The calling (XLA) thread keeps its buffers between calls; one set serves
// every dtype combination and both operations.
Workspace& caller_workspace() {
  thread_local Workspace ws;
  return ws;
}

// Runs run_task over all tasks on up to requested_threads() threads; tasks
// are taken in order (group-major), so threads tend to share a group's rhs in
// cache. Each output element belongs to one task, so results do not depend on
// the thread count.
template <typename Fn>
void parallel_tasks(const std::vector<Task>& tasks, int64_t work, Fn run_task) {
  int64_t threads = requested_threads();
  threads = std::min<int64_t>(threads, static_cast<int64_t>(tasks.size()));
  threads = std::min<int64_t>(threads, std::max<int64_t>(1, work / kMinWorkPerThread));
  if (threads <= 1) {
    Workspace& ws = caller_workspace();
    for (const Task& t : tasks) run_task(t, ws);
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  // New threads inherit the caller's floating-point environment (POSIX), so
  // they flush denormals like the XLA thread that calls the handler.
  auto worker = [&](Workspace& ws) {
    try {
      for (size_t i = next.fetch_add(1); i < tasks.size(); i = next.fetch_add(1))
        run_task(tasks[i], ws);
    } catch (...) {
      failed = true;
      next = tasks.size();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  std::vector<Workspace> spaces(threads - 1);
  for (int64_t t = 0; t + 1 < threads; ++t) {
    try {
      pool.emplace_back(worker, std::ref(spaces[t]));
    } catch (const std::system_error&) {
      break;  // out of threads: the ones running (and the caller) do the rest
    }
  }
  worker(caller_workspace());
  for (std::thread& t : pool) t.join();
  if (failed) throw std::bad_alloc();
}

// ---------------------------------------------------------------------------
// gmm

template <typename TL, typename TR, typename TO>
void gmm_impl(const TL* lhs, const TR* rhs, const std::vector<Group>& groups,
              int64_t m, int64_t k, int64_t n, TO* out) {
  int64_t used = 0;
  std::vector<Task> tasks;
  int64_t work = 0;
  for (int64_t g = 0; g < static_cast<int64_t>(groups.size()); ++g) {
    const Group& grp = groups[g];
    used = std::max(used, grp.start + grp.rows);
    work += grp.rows * k * n;
    const int64_t chunk = task_rows(grp.rows);
    for (int64_t r = 0; r < grp.rows; r += chunk)
      for (int64_t c = 0; c < n; c += kNC)
        tasks.push_back({g, grp.start + r, std::min(chunk, grp.rows - r), c,
                         std::min(kNC, n - c)});
  }
  // Rows no group covers.
  std::memset(out + used * n, 0, static_cast<size_t>((m - used) * n) * sizeof(TO));
  parallel_tasks(tasks, work, [&](const Task& t, Workspace& ws) {
    float* c = ws.c.get(static_cast<size_t>(kTaskRows) * kLdc);
    gemm_tile<TL, false, TR>(lhs + t.row0 * k, k,
                             rhs + t.group * k * n + t.col0, n, t.rows, t.cols,
                             k, ws, c);
    store_tile(c, t.rows, t.cols, out + t.row0 * n + t.col0, n);
  });
}

// tgmm: out[g] (k x n) = lhs[rows]^T (k x rows) · rhs[rows] (rows x n).
template <typename TL, typename TR, typename TO>
void tgmm_impl(const TL* lhs, const TR* rhs, const std::vector<Group>& groups,
               int64_t k, int64_t n, TO* out) {
  std::vector<Task> tasks;
  int64_t work = 0;
  for (int64_t g = 0; g < static_cast<int64_t>(groups.size()); ++g) {
    // row0/rows index the output's k dimension here.
    work += groups[g].rows * k * n + k * n;  // empty groups still write zeros
    const int64_t chunk = task_rows(k);
    for (int64_t r = 0; r < k; r += chunk)
      for (int64_t c = 0; c < n; c += kNC)
        tasks.push_back({g, r, std::min(chunk, k - r), c, std::min(kNC, n - c)});
  }
  parallel_tasks(tasks, work, [&](const Task& t, Workspace& ws) {
    const Group& grp = groups[t.group];
    float* c = ws.c.get(static_cast<size_t>(kTaskRows) * kLdc);
    gemm_tile<TL, true, TR>(lhs + grp.start * k + t.row0, k,
                            rhs + grp.start * n + t.col0, n, t.rows, t.cols,
                            grp.rows, ws, c);
    store_tile(c, t.rows, t.cols, out + t.group * k * n + t.row0 * n + t.col0, n);
  });
}

// ---------------------------------------------------------------------------
// dtype dispatch

bool is_float(ffi::DataType t) {
  return t == ffi::DataType::F32 || t == ffi::DataType::BF16;
}

std::string dtype_name(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::F32: return "f32";
    case ffi::DataType::BF16: return "bf16";
    case ffi::DataType::S32: return "s32";
    case ffi::DataType::S64: return "s64";
    default: return "dtype #" + std::to_string(static_cast<int>(t));
  }
}

std::string dims_str(ffi::AnyBuffer::Dimensions d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

std::vector<Group> read_groups(const ffi::AnyBuffer& gs, int64_t m) {
  const int64_t g = gs.dimensions()[0];
  if (gs.element_type() == ffi::DataType::S32)
    return clip_groups(static_cast<const int32_t*>(gs.untyped_data()), g, m);
  return clip_groups(static_cast<const int64_t*>(gs.untyped_data()), g, m);
}

// Calls fn(TL*, TR*, TO*) with the buffers' element types.
template <typename Fn>
void dispatch(const ffi::AnyBuffer& lhs, const ffi::AnyBuffer& rhs,
              ffi::AnyBuffer& out, Fn fn) {
  auto with_out = [&](auto* l, auto* r) {
    if (out.element_type() == ffi::DataType::F32)
      fn(l, r, static_cast<float*>(out.untyped_data()));
    else
      fn(l, r, static_cast<uint16_t*>(out.untyped_data()));
  };
  auto with_rhs = [&](auto* l) {
    if (rhs.element_type() == ffi::DataType::F32)
      with_out(l, static_cast<const float*>(rhs.untyped_data()));
    else
      with_out(l, static_cast<const uint16_t*>(rhs.untyped_data()));
  };
  if (lhs.element_type() == ffi::DataType::F32)
    with_rhs(static_cast<const float*>(lhs.untyped_data()));
  else
    with_rhs(static_cast<const uint16_t*>(lhs.untyped_data()));
}

// Shared operand checks; returns an empty string when the operands are valid.
std::string check_dtypes(const char* op, const ffi::AnyBuffer& lhs,
                         const ffi::AnyBuffer& rhs, const ffi::AnyBuffer& gs,
                         const ffi::AnyBuffer& out) {
  const std::string where = std::string(op) + ": ";
  if (!is_float(lhs.element_type()))
    return where + "lhs must be f32 or bf16, got " + dtype_name(lhs.element_type());
  if (!is_float(rhs.element_type()))
    return where + "rhs must be f32 or bf16, got " + dtype_name(rhs.element_type());
  if (!is_float(out.element_type()))
    return where + "output must be f32 or bf16, got " + dtype_name(out.element_type());
  if (gs.element_type() != ffi::DataType::S32 && gs.element_type() != ffi::DataType::S64)
    return where + "group_sizes must be s32 or s64, got " + dtype_name(gs.element_type());
  if (gs.dimensions().size() != 1)
    return where + "group_sizes must be rank 1, got " + dims_str(gs.dimensions());
  if (lhs.dimensions().size() != 2)
    return where + "lhs must be rank 2 [m,k], got " + dims_str(lhs.dimensions());
  return "";
}

ffi::Error GmmHandler(ffi::AnyBuffer lhs, ffi::AnyBuffer rhs,
                      ffi::AnyBuffer group_sizes, ffi::Result<ffi::AnyBuffer> out) {
  std::string bad = check_dtypes("hlo_passes_gmm", lhs, rhs, group_sizes, *out);
  if (bad.empty()) {
    auto ld = lhs.dimensions(), rd = rhs.dimensions(), od = out->dimensions();
    if (rd.size() != 3 || od.size() != 2 || rd[0] != group_sizes.dimensions()[0] ||
        rd[1] != ld[1] || od[0] != ld[0] || od[1] != rd[2])
      bad = "hlo_passes_gmm: expected lhs[m,k], rhs[g,k,n], group_sizes[g] -> out[m,n], got lhs" +
            dims_str(ld) + ", rhs" + dims_str(rd) + ", group_sizes" +
            dims_str(group_sizes.dimensions()) + " -> out" + dims_str(od);
  }
  if (!bad.empty()) return ffi::Error::InvalidArgument(bad);
  const int64_t m = lhs.dimensions()[0], k = lhs.dimensions()[1],
                n = rhs.dimensions()[2];
  try {
    const std::vector<Group> groups = read_groups(group_sizes, m);
    dispatch(lhs, rhs, *out, [&](auto* l, auto* r, auto* o) {
      gmm_impl(l, r, groups, m, k, n, o);
    });
  } catch (const std::bad_alloc&) {
    return ffi::Error::Internal("hlo_passes_gmm: out of memory for packing buffers");
  } catch (const std::exception& e) {
    return ffi::Error::Internal(std::string("hlo_passes_gmm: ") + e.what());
  }
  return ffi::Error::Success();
}

ffi::Error TgmmHandler(ffi::AnyBuffer lhs, ffi::AnyBuffer rhs,
                       ffi::AnyBuffer group_sizes, ffi::Result<ffi::AnyBuffer> out) {
  std::string bad = check_dtypes("hlo_passes_tgmm", lhs, rhs, group_sizes, *out);
  if (bad.empty()) {
    auto ld = lhs.dimensions(), rd = rhs.dimensions(), od = out->dimensions();
    if (rd.size() != 2 || od.size() != 3 || rd[0] != ld[0] ||
        od[0] != group_sizes.dimensions()[0] || od[1] != ld[1] || od[2] != rd[1])
      bad = "hlo_passes_tgmm: expected lhs[m,k], rhs[m,n], group_sizes[g] -> out[g,k,n], got lhs" +
            dims_str(ld) + ", rhs" + dims_str(rd) + ", group_sizes" +
            dims_str(group_sizes.dimensions()) + " -> out" + dims_str(od);
  }
  if (!bad.empty()) return ffi::Error::InvalidArgument(bad);
  const int64_t m = lhs.dimensions()[0], k = lhs.dimensions()[1],
                n = rhs.dimensions()[1];
  try {
    const std::vector<Group> groups = read_groups(group_sizes, m);
    dispatch(lhs, rhs, *out, [&](auto* l, auto* r, auto* o) {
      tgmm_impl(l, r, groups, k, n, o);
    });
  } catch (const std::bad_alloc&) {
    return ffi::Error::Internal("hlo_passes_tgmm: out of memory for packing buffers");
  } catch (const std::exception& e) {
    return ffi::Error::Internal(std::string("hlo_passes_tgmm: ") + e.what());
  }
  return ffi::Error::Success();
}

// ---------------------------------------------------------------------------
// Fused expert FFN (MOE005):
//
//   hlo_passes_moe_ffn_silu          : x[m,d], w_in[g,d,2f], w_out[g,f,n], gs[g] -> y[m,n]
//       h = gmm(x, w_in); y = gmm(silu(h[:, :f]) * h[:, f:], w_out)
//   hlo_passes_moe_ffn_silu_up_first : the same with the halves swapped
//       (y = gmm(silu(h[:, f:]) * h[:, :f], w_out))
//   hlo_passes_moe_ffn_silu_pair     : x[m,d], w_gate[g,d,f], w_up[g,d,f], w_out[g,f,n], gs[g]
//       y = gmm(silu(gmm(x, w_gate)) * gmm(x, w_up), w_out)
//
// The output's element type is the program's compute type: the two GMMs'
// results, the activation and the product are rounded to it after every op
// as XLA computes the unfused program (for bf16: h rounded, then exp(-g),
// 1 + e, 1 / d, g * s and a * u each rounded; jax writes silu as
// g * (1 / (1 + exp(-g)))). A task is one tile of a group's rows: for each
// chunk of kFfnChunk columns of f it computes the gate and up tiles, the
// activation, and adds their product with the chunk's rows of w_out into an
// f32 accumulator of the tile's output; the [m,2f] and [m,f] intermediates
// are never written whole (the chunk tiles stay in L2).

constexpr int64_t kFfnChunk = 256;

// x rounded to TO and widened back: for bf16 the rounding of from_f32 (ties to even, NaN to
// the canonical quiet NaN with x's sign) without its branch, so that the activation loop
// vectorizes.
template <typename TO>
inline float rounded(float x) {
  if constexpr (std::is_same_v<TO, float>) {
    return x;
  } else {
    uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    const uint32_t even = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    const uint32_t nan = (u & 0x80000000u) | 0x7fc00000u;
    const uint32_t r = (u & 0x7fffffffu) > 0x7f800000u ? nan : even;
    float f;
    std::memcpy(&f, &r, sizeof f);
    return f;
  }
}

// exp(x) to about 1 ulp (Cephes' expf: x = n ln2 + r, a degree-6 polynomial in r, 2^n put
// into the exponent), written without branches so that the activation loop vectorizes (std::exp
// is a libm call per element, which cost the fused kernel more than its saved memory traffic).
// XLA:CPU's own exp is a polynomial of the same accuracy.
inline float exp_approx(float x) {
  constexpr float kHi = 88.3762626647949f, kLo = -87.3365447505531f;
  const float xc = std::min(std::max(x, kLo), kHi);
  const float n = std::floor(xc * 1.44269504088896341f + 0.5f);
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float y = 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  y *= scale;
  y = x > kHi ? std::numeric_limits<float>::infinity() : y;
  return x < kLo ? 0.0f : y;
}

template <typename TO>
inline float silu_times(float g, float u) {
  const float e = rounded<TO>(exp_approx(-g));
  const float d = rounded<TO>(1.0f + e);
  const float s = rounded<TO>(1.0f / d);
  const float a = rounded<TO>(g * s);
  return rounded<TO>(a * u);
}

// Where a group's gate and up columns are: gate(p, j) = gate[g*stride + p*ld + j].
template <typename TW>
struct InWeights {
  const TW* gate;
  const TW* up;
  int64_t ld;      // row stride of a group's [d, *] matrix
  int64_t stride;  // elements per group
};

template <typename TX, typename TW, typename TO>
void ffn_tile(const TX* x, const InWeights<TW>& w_in, const TW* w_out,
              int64_t group, int64_t row0, int64_t rows, int64_t d, int64_t f,
              int64_t n, Workspace& ws, TO* out) {
  const int64_t col_blocks = (n + kNC - 1) / kNC;
  float* gate = ws.gate.get(static_cast<size_t>(kTaskRows) * kLdc);
  float* up = ws.up.get(static_cast<size_t>(kTaskRows) * kLdc);
  float* act = ws.act.get(static_cast<size_t>(kTaskRows) * kFfnChunk);
  // One kLdc-strided tile per block of kNC output columns.
  float* y = ws.y.get(static_cast<size_t>(col_blocks) * kTaskRows * kLdc);
  for (int64_t b = 0; b < col_blocks; ++b)
    for (int64_t i = 0; i < rows; ++i)
      std::memset(y + (b * kTaskRows + i) * kLdc, 0, std::min(kNC, n - b * kNC) * sizeof(float));
  const TX* xr = x + row0 * d;
  const TW* wg = w_in.gate + group * w_in.stride;
  const TW* wu = w_in.up + group * w_in.stride;
  const TW* wo = w_out + group * f * n;
  for (int64_t f0 = 0; f0 < f; f0 += kFfnChunk) {
    const int64_t fc = std::min(kFfnChunk, f - f0);
    gemm_tile<TX, false, TW>(xr, d, wg + f0, w_in.ld, rows, fc, d, ws, gate);
    gemm_tile<TX, false, TW>(xr, d, wu + f0, w_in.ld, rows, fc, d, ws, up);
    for (int64_t i = 0; i < rows; ++i) {
      const float* gi = gate + i * kLdc;
      const float* ui = up + i * kLdc;
      float* ai = act + i * kFfnChunk;
      for (int64_t j = 0; j < fc; ++j)
        ai[j] = silu_times<TO>(rounded<TO>(gi[j]), rounded<TO>(ui[j]));
    }
    for (int64_t b = 0; b < col_blocks; ++b) {
      const int64_t c0 = b * kNC;
      gemm_tile<float, false, TW>(act, kFfnChunk, wo + f0 * n + c0, n, rows,
                                  std::min(kNC, n - c0), fc, ws,
                                  y + b * kTaskRows * kLdc, /*add_to_c=*/true);
    }
  }
  for (int64_t b = 0; b < col_blocks; ++b) {
    const int64_t c0 = b * kNC;
    store_tile(y + b * kTaskRows * kLdc, rows, std::min(kNC, n - c0),
               out + row0 * n + c0, n);
  }
}

template <typename TX, typename TW, typename TO>
void ffn_impl(const TX* x, const InWeights<TW>& w_in, const TW* w_out,
              const std::vector<Group>& groups, int64_t m, int64_t d, int64_t f,
              int64_t n, TO* out) {
  int64_t used = 0;
  std::vector<Task> tasks;
  int64_t work = 0;
  for (int64_t g = 0; g < static_cast<int64_t>(groups.size()); ++g) {
    const Group& grp = groups[g];
    used = std::max(used, grp.start + grp.rows);
    work += grp.rows * f * (2 * d + n);
    const int64_t chunk = task_rows(grp.rows);
    for (int64_t r = 0; r < grp.rows; r += chunk)
      tasks.push_back({g, grp.start + r, std::min(chunk, grp.rows - r), 0, n});
  }
  std::memset(out + used * n, 0, static_cast<size_t>((m - used) * n) * sizeof(TO));
  parallel_tasks(tasks, work, [&](const Task& t, Workspace& ws) {
    ffn_tile(x, w_in, w_out, t.group, t.row0, t.rows, d, f, n, ws, out);
  });
}

enum class FfnForm { kGateFirst, kUpFirst, kPair };

const char* ffn_target(FfnForm form) {
  switch (form) {
    case FfnForm::kGateFirst: return "hlo_passes_moe_ffn_silu";
    case FfnForm::kUpFirst: return "hlo_passes_moe_ffn_silu_up_first";
    default: return "hlo_passes_moe_ffn_silu_pair";
  }
}

// x, the weights (w_gate == w_up for the prefused forms), w_out, group sizes.
ffi::Error FfnHandler(FfnForm form, const ffi::AnyBuffer& x, const ffi::AnyBuffer& w_gate,
                      const ffi::AnyBuffer& w_up, const ffi::AnyBuffer& w_out,
                      const ffi::AnyBuffer& gs, ffi::AnyBuffer& out) {
  const std::string op = ffn_target(form);
  std::string bad = check_dtypes(op.c_str(), x, w_gate, gs, out);
  const bool pair = form == FfnForm::kPair;
  if (bad.empty() && (w_up.element_type() != w_gate.element_type() ||
                      w_out.element_type() != w_gate.element_type()))
    bad = op + ": the weights must have one element type, got " +
          dtype_name(w_gate.element_type()) + ", " + dtype_name(w_up.element_type()) +
          ", " + dtype_name(w_out.element_type());
  int64_t m = 0, d = 0, f = 0, n = 0;
  if (bad.empty()) {
    auto xd = x.dimensions(), wd = w_gate.dimensions(), ud = w_up.dimensions(),
         od = w_out.dimensions(), yd = out.dimensions();
    const int64_t g = gs.dimensions()[0];
    bool ok = wd.size() == 3 && od.size() == 3 && yd.size() == 2 && wd[0] == g &&
              wd[1] == xd[1] && od[0] == g;
    if (ok) {
      m = xd[0], d = xd[1], f = pair ? wd[2] : wd[2] / 2, n = od[2];
      ok = (pair || wd[2] % 2 == 0) && od[1] == f && yd[0] == m && yd[1] == n;
      if (pair)
        ok = ok && ud.size() == 3 && ud[0] == g && ud[1] == d && ud[2] == f;
    }
    if (!ok)
      bad = op + ": expected x[m,d], " +
            (pair ? std::string("w_gate[g,d,f], w_up[g,d,f]") : std::string("w_in[g,d,2f]")) +
            ", w_out[g,f,n], group_sizes[g] -> out[m,n], got x" + dims_str(xd) +
            ", w_in" + dims_str(wd) + (pair ? ", w_up" + dims_str(ud) : std::string()) +
            ", w_out" + dims_str(od) + ", group_sizes" + dims_str(gs.dimensions()) +
            " -> out" + dims_str(yd);
  }
  if (!bad.empty()) return ffi::Error::InvalidArgument(bad);
  try {
    const std::vector<Group> groups = read_groups(gs, m);
    auto run = [&](auto* xp, auto* wg, auto* wu, auto* wo, auto* o) {
      using TW = std::remove_const_t<std::remove_pointer_t<decltype(wg)>>;
      InWeights<TW> in{wg, wu, pair ? f : 2 * f, d * (pair ? f : 2 * f)};
      if (form == FfnForm::kGateFirst) in.up = wg + f;
      if (form == FfnForm::kUpFirst) in.gate = wg + f;
      ffn_impl(xp, in, wo, groups, m, d, f, n, o);
    };
    dispatch(x, w_gate, out, [&](auto* xp, auto* wg, auto* o) {
      using TW = std::remove_pointer_t<decltype(wg)>;
      run(xp, wg, static_cast<TW*>(w_up.untyped_data()),
          static_cast<TW*>(w_out.untyped_data()), o);
    });
  } catch (const std::bad_alloc&) {
    return ffi::Error::Internal(op + ": out of memory for packing buffers");
  } catch (const std::exception& e) {
    return ffi::Error::Internal(op + ": " + e.what());
  }
  return ffi::Error::Success();
}

ffi::Error FfnGateFirst(ffi::AnyBuffer x, ffi::AnyBuffer w_in, ffi::AnyBuffer w_out,
                        ffi::AnyBuffer gs, ffi::Result<ffi::AnyBuffer> out) {
  return FfnHandler(FfnForm::kGateFirst, x, w_in, w_in, w_out, gs, *out);
}

ffi::Error FfnUpFirst(ffi::AnyBuffer x, ffi::AnyBuffer w_in, ffi::AnyBuffer w_out,
                      ffi::AnyBuffer gs, ffi::Result<ffi::AnyBuffer> out) {
  return FfnHandler(FfnForm::kUpFirst, x, w_in, w_in, w_out, gs, *out);
}

ffi::Error FfnPair(ffi::AnyBuffer x, ffi::AnyBuffer w_gate, ffi::AnyBuffer w_up,
                   ffi::AnyBuffer w_out, ffi::AnyBuffer gs, ffi::Result<ffi::AnyBuffer> out) {
  return FfnHandler(FfnForm::kPair, x, w_gate, w_up, w_out, gs, *out);
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(HloPassesGmm, GmmHandler,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(HloPassesTgmm, TgmmHandler,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(HloPassesMoeFfnSilu, FfnGateFirst,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(HloPassesMoeFfnSiluUpFirst, FfnUpFirst,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(HloPassesMoeFfnSiluPair, FfnPair,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>());
