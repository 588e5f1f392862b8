// Grouped matrix multiplication on NVIDIA GPUs, as XLA typed-FFI handlers.
//
//   hlo_passes_gmm_cuda:  (lhs[m,k], rhs[g,k,n], group_sizes[g]) -> out[m,n]
//       Rows of group i are the consecutive block after groups 0..i-1 and are
//       multiplied by rhs[i]; rows past sum(group_sizes) are 0.
//   hlo_passes_tgmm_cuda: (lhs[m,k], rhs[m,n], group_sizes[g]) -> out[g,k,n]
//       out[i] = lhs[rows_i]^T @ rhs[rows_i]; an empty group gives zeros.
//
// Same contract as the CPU handlers (hlo_passes/kernels): lhs and rhs are f32
// or bf16 each, group sizes s32 or s64, out f32 or bf16, accumulation in f32;
// groups are clipped at m and negative sizes count as 0.
//
// Group sizes stay on the device: every thread block derives the group
// boundaries it needs with a block-wide prefix sum, so the handler never
// copies them to the host or synchronizes the stream, only launches one
// kernel on XLA's stream (and so may be captured into a CUDA graph).
//
// The kernels are plain shared-memory tiled GEMMs (64x64 output tile, 16-deep
// k slices, 4x4 outputs per thread, CUDA cores): correct for every shape and
// group layout first, fast enough to be a real grouped GEMM (work is
// proportional to the rows each group has, not to g times m).

#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

constexpr int kTileM = 64;   // output rows per block (k rows for tgmm)
constexpr int kTileN = 64;   // output columns per block
constexpr int kTileK = 16;   // depth of one shared-memory slice
constexpr int kThreads = 256;
constexpr int kSub = 4;      // each thread owns kSub x kSub outputs
constexpr int kLanes = kTileM / kSub;  // 16 threads across each output dim
// Padding keeps the transposed stores into the lhs tile off one bank.
constexpr int kPad = 4;

static_assert(kLanes * kLanes == kThreads, "thread layout must cover the tile");
static_assert(kTileM == kTileN, "one thread layout serves both tile dims");

// bf16 as its bit pattern: the top half of an IEEE f32.
struct Bf16 {
  uint16_t bits;
};

__device__ __forceinline__ float ToF32(float v) { return v; }
__device__ __forceinline__ float ToF32(Bf16 v) {
  return __uint_as_float(static_cast<uint32_t>(v.bits) << 16);
}

__device__ __forceinline__ void Store(float* p, float v) { *p = v; }
__device__ __forceinline__ void Store(Bf16* p, float v) {
  uint32_t u = __float_as_uint(v);
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    p->bits = 0x7fc0;  // NaN stays NaN (rounding could carry it into inf)
    return;
  }
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even
  p->bits = static_cast<uint16_t>(u >> 16);
}

// A group's size as the kernels use it: negative counts as 0, and no group
// is longer than m (so running sums cannot overflow before clipping at m).
__device__ __forceinline__ int64_t GroupSize(const void* sizes, bool wide, int64_t i, int64_t m) {
  int64_t s = wide ? static_cast<const int64_t*>(sizes)[i]
                   : static_cast<int64_t>(static_cast<const int32_t*>(sizes)[i]);
  return s < 0 ? 0 : (s > m ? m : s);
}

// Inclusive prefix sum of one value per thread over the block (Hillis-Steele).
// Every thread gets its own inclusive sum; ``total`` receives the block's sum.
__device__ int64_t BlockInclusiveScan(int64_t value, int64_t* scratch, int64_t* total) {
  const int t = threadIdx.x;
  scratch[t] = value;
  __syncthreads();
  for (int offset = 1; offset < kThreads; offset <<= 1) {
    int64_t add = t >= offset ? scratch[t - offset] : 0;
    __syncthreads();
    scratch[t] += add;
    __syncthreads();
  }
  int64_t mine = scratch[t];
  *total = scratch[kThreads - 1];
  __syncthreads();  // scratch is reused by the caller's next round
  return mine;
}

struct Tile {
  float a[kTileK][kTileM + kPad];  // a[kk][row]: row-major in the output rows
  float b[kTileK][kTileN];         // b[kk][col]
};

// acc[i][j] += sum_kk a[kk][row_i] * b[kk][col_j] for this thread's outputs,
// rows ty + kLanes*i and columns tx + kLanes*j of the tile.
__device__ __forceinline__ void MultiplyTile(const Tile& tile, float acc[kSub][kSub]) {
  const int tx = threadIdx.x % kLanes;
  const int ty = threadIdx.x / kLanes;
#pragma unroll
  for (int kk = 0; kk < kTileK; ++kk) {
    float a[kSub], b[kSub];
#pragma unroll
    for (int i = 0; i < kSub; ++i) a[i] = tile.a[kk][ty + kLanes * i];
#pragma unroll
    for (int j = 0; j < kSub; ++j) b[j] = tile.b[kk][tx + kLanes * j];
#pragma unroll
    for (int i = 0; i < kSub; ++i)
#pragma unroll
      for (int j = 0; j < kSub; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
}

// ---------------------------------------------------------------------------
// gmm: block (x, y) computes out rows [x*64, x*64+64) and columns [y*64, ...).
// The rows of a tile may belong to several groups: the block lists the groups
// that own rows in it, then for each computes the tile against that group's
// weights and writes only that group's rows (so a non-finite weight of one
// group never leaks into another group's rows).
template <typename L, typename R, typename O>
__global__ void __launch_bounds__(kThreads)
GmmKernel(const L* __restrict__ lhs, const R* __restrict__ rhs, const void* __restrict__ sizes,
          bool wide_sizes, O* __restrict__ out, int64_t m, int64_t k, int64_t n, int64_t g) {
  __shared__ Tile tile;
  __shared__ int64_t scan[kThreads];
  __shared__ int64_t group_id[kTileM], group_lo[kTileM], group_hi[kTileM];
  __shared__ int num_groups;

  const int t = threadIdx.x;
  const int tx = t % kLanes;
  const int ty = t / kLanes;
  const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kTileM;
  const int64_t r1 = r0 + kTileM < m ? r0 + kTileM : m;
  const int64_t c0 = static_cast<int64_t>(blockIdx.y) * kTileN;

  if (t == 0) num_groups = 0;
  __syncthreads();

  // Which groups own rows of [r0, r1), and which rows.
  int64_t carry = 0;
  for (int64_t base = 0; base < g && carry < r1; base += kThreads) {
    const int64_t idx = base + t;
    const int64_t size = idx < g ? GroupSize(sizes, wide_sizes, idx, m) : 0;
    int64_t chunk_total;
    const int64_t incl = BlockInclusiveScan(size, scan, &chunk_total);
    if (size > 0) {
      int64_t start = carry + incl - size, end = carry + incl;
      if (start < r0) start = r0;
      if (end > r1) end = r1;
      if (start < end) {
        const int slot = atomicAdd(&num_groups, 1);
        group_id[slot] = idx;
        group_lo[slot] = start;
        group_hi[slot] = end;
      }
    }
    carry += chunk_total;
  }
  __syncthreads();
  // Rows no group reaches are zeros.
  const int64_t covered = carry < m ? carry : m;

  for (int s = 0; s < num_groups; ++s) {
    const int64_t grp = group_id[s], lo = group_lo[s], hi = group_hi[s];
    const R* w = rhs + grp * k * n;
    float acc[kSub][kSub] = {};
    for (int64_t k0 = 0; k0 < k; k0 += kTileK) {
#pragma unroll
      for (int e = t; e < kTileM * kTileK; e += kThreads) {
        const int row = e / kTileK, kk = e % kTileK;
        const int64_t gr = r0 + row, gk = k0 + kk;
        tile.a[kk][row] = (gr >= lo && gr < hi && gk < k) ? ToF32(lhs[gr * k + gk]) : 0.0f;
      }
#pragma unroll
      for (int e = t; e < kTileK * kTileN; e += kThreads) {
        const int kk = e / kTileN, col = e % kTileN;
        const int64_t gk = k0 + kk, gc = c0 + col;
        tile.b[kk][col] = (gk < k && gc < n) ? ToF32(w[gk * n + gc]) : 0.0f;
      }
      __syncthreads();
      MultiplyTile(tile, acc);
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < kSub; ++i) {
      const int64_t gr = r0 + ty + kLanes * i;
      if (gr < lo || gr >= hi) continue;
#pragma unroll
      for (int j = 0; j < kSub; ++j) {
        const int64_t gc = c0 + tx + kLanes * j;
        if (gc < n) Store(out + gr * n + gc, acc[i][j]);
      }
    }
  }

  for (int64_t gr = (covered > r0 ? covered : r0) + ty; gr < r1; gr += kLanes) {
#pragma unroll
    for (int j = 0; j < kSub; ++j) {
      const int64_t gc = c0 + tx + kLanes * j;
      if (gc < n) Store(out + gr * n + gc, 0.0f);
    }
  }
}

// ---------------------------------------------------------------------------
// tgmm: block (x, y, z) computes out[z] rows [x*64, ...) (lhs columns) and
// columns [y*64, ...) (rhs columns), contracting over the rows of group z.
template <typename L, typename R, typename O>
__global__ void __launch_bounds__(kThreads)
TgmmKernel(const L* __restrict__ lhs, const R* __restrict__ rhs, const void* __restrict__ sizes,
           bool wide_sizes, O* __restrict__ out, int64_t m, int64_t k, int64_t n) {
  __shared__ Tile tile;
  __shared__ int64_t scan[kThreads];

  const int t = threadIdx.x;
  const int tx = t % kLanes;
  const int ty = t / kLanes;
  const int64_t grp = blockIdx.z;
  const int64_t k0 = static_cast<int64_t>(blockIdx.x) * kTileM;
  const int64_t c0 = static_cast<int64_t>(blockIdx.y) * kTileN;

  // start = sum of the sizes before this group, clipped at m.
  int64_t start = 0;
  for (int64_t base = 0; base < grp; base += kThreads) {
    const int64_t idx = base + t;
    int64_t chunk_total;
    BlockInclusiveScan(idx < grp ? GroupSize(sizes, wide_sizes, idx, m) : 0, scan, &chunk_total);
    start += chunk_total;
  }
  int64_t end = start + GroupSize(sizes, wide_sizes, grp, m);
  if (start > m) start = m;
  if (end > m) end = m;

  float acc[kSub][kSub] = {};
  for (int64_t r = start; r < end; r += kTileK) {
#pragma unroll
    for (int e = t; e < kTileK * kTileM; e += kThreads) {
      const int rr = e / kTileM, kc = e % kTileM;
      const int64_t gr = r + rr, gk = k0 + kc;
      tile.a[rr][kc] = (gr < end && gk < k) ? ToF32(lhs[gr * k + gk]) : 0.0f;
    }
#pragma unroll
    for (int e = t; e < kTileK * kTileN; e += kThreads) {
      const int rr = e / kTileN, col = e % kTileN;
      const int64_t gr = r + rr, gc = c0 + col;
      tile.b[rr][col] = (gr < end && gc < n) ? ToF32(rhs[gr * n + gc]) : 0.0f;
    }
    __syncthreads();
    MultiplyTile(tile, acc);
    __syncthreads();
  }

  O* dst = out + grp * k * n;
#pragma unroll
  for (int i = 0; i < kSub; ++i) {
    const int64_t gk = k0 + ty + kLanes * i;
    if (gk >= k) continue;
#pragma unroll
    for (int j = 0; j < kSub; ++j) {
      const int64_t gc = c0 + tx + kLanes * j;
      if (gc < n) Store(dst + gk * n + gc, acc[i][j]);
    }
  }
}

// ---------------------------------------------------------------------------
// Host side: check shapes and types, pick the instantiation, launch.

struct Problem {
  const void* lhs;
  const void* rhs;
  const void* sizes;
  bool wide_sizes;
  void* out;
  int64_t m, k, n, g;
};

using Launcher = void (*)(cudaStream_t, const Problem&);

template <typename L, typename R, typename O>
void LaunchGmm(cudaStream_t stream, const Problem& p) {
  const dim3 grid(static_cast<unsigned>((p.m + kTileM - 1) / kTileM),
                  static_cast<unsigned>((p.n + kTileN - 1) / kTileN));
  GmmKernel<L, R, O><<<grid, kThreads, 0, stream>>>(
      static_cast<const L*>(p.lhs), static_cast<const R*>(p.rhs), p.sizes, p.wide_sizes,
      static_cast<O*>(p.out), p.m, p.k, p.n, p.g);
}

template <typename L, typename R, typename O>
void LaunchTgmm(cudaStream_t stream, const Problem& p) {
  const dim3 grid(static_cast<unsigned>((p.k + kTileM - 1) / kTileM),
                  static_cast<unsigned>((p.n + kTileN - 1) / kTileN),
                  static_cast<unsigned>(p.g));
  TgmmKernel<L, R, O><<<grid, kThreads, 0, stream>>>(
      static_cast<const L*>(p.lhs), static_cast<const R*>(p.rhs), p.sizes, p.wide_sizes,
      static_cast<O*>(p.out), p.m, p.k, p.n);
}

// One table for both kernels: each (lhs, rhs, out) type triple -> its launcher.
template <bool kTransposed>
Launcher PickLauncher(ffi::DataType lhs, ffi::DataType rhs, ffi::DataType out) {
  const bool lf = lhs == ffi::DataType::F32, rf = rhs == ffi::DataType::F32,
             of = out == ffi::DataType::F32;
#define HLO_PASSES_PICK(LT, RT, OT)                                  \
  return kTransposed ? &LaunchTgmm<LT, RT, OT> : &LaunchGmm<LT, RT, OT>
  if (lf && rf && of) HLO_PASSES_PICK(float, float, float);
  if (lf && rf) HLO_PASSES_PICK(float, float, Bf16);
  if (lf && of) HLO_PASSES_PICK(float, Bf16, float);
  if (lf) HLO_PASSES_PICK(float, Bf16, Bf16);
  if (rf && of) HLO_PASSES_PICK(Bf16, float, float);
  if (rf) HLO_PASSES_PICK(Bf16, float, Bf16);
  if (of) HLO_PASSES_PICK(Bf16, Bf16, float);
  HLO_PASSES_PICK(Bf16, Bf16, Bf16);
#undef HLO_PASSES_PICK
}

std::string Dims(ffi::AnyBuffer::Dimensions d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

bool IsFloat(ffi::DataType t) { return t == ffi::DataType::F32 || t == ffi::DataType::BF16; }

// Shape and type checks shared by both handlers; empty string when all hold.
std::string CheckTypes(const char* name, ffi::DataType lhs, ffi::DataType rhs, ffi::DataType sizes,
                       ffi::DataType out) {
  std::string where = std::string(name) + ": ";
  if (!IsFloat(lhs)) return where + "lhs must be f32 or bf16";
  if (!IsFloat(rhs)) return where + "rhs must be f32 or bf16";
  if (!IsFloat(out)) return where + "the result must be f32 or bf16";
  if (sizes != ffi::DataType::S32 && sizes != ffi::DataType::S64)
    return where + "group_sizes must be s32 or s64";
  return "";
}

ffi::Error Launch(const char* name, bool transposed, cudaStream_t stream, const Problem& p,
                  ffi::DataType lhs_t, ffi::DataType rhs_t, ffi::DataType out_t) {
  const int64_t row_tiles = ((transposed ? p.k : p.m) + kTileM - 1) / kTileM;
  const int64_t col_tiles = (p.n + kTileN - 1) / kTileN;
  if (row_tiles > 0x7fffffff || col_tiles > 65535 || (transposed && p.g > 65535))
    return ffi::Error::InvalidArgument(std::string(name) + ": problem too large for one launch (m=" +
                                       std::to_string(p.m) + ", k=" + std::to_string(p.k) +
                                       ", n=" + std::to_string(p.n) + ", g=" + std::to_string(p.g) + ")");
  if (row_tiles == 0 || col_tiles == 0 || (transposed && p.g == 0)) return ffi::Error::Success();
  Launcher launch = transposed ? PickLauncher<true>(lhs_t, rhs_t, out_t)
                               : PickLauncher<false>(lhs_t, rhs_t, out_t);
  launch(stream, p);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return ffi::Error::Internal(std::string(name) + ": kernel launch failed: " + cudaGetErrorString(err));
  return ffi::Error::Success();
}

ffi::Error GmmImpl(cudaStream_t stream, ffi::AnyBuffer lhs, ffi::AnyBuffer rhs, ffi::AnyBuffer sizes,
                   ffi::Result<ffi::AnyBuffer> out) {
  const char* name = "hlo_passes_gmm_cuda";
  std::string bad = CheckTypes(name, lhs.element_type(), rhs.element_type(), sizes.element_type(),
                               out->element_type());
  if (!bad.empty()) return ffi::Error::InvalidArgument(bad);
  auto ld = lhs.dimensions(), rd = rhs.dimensions(), sd = sizes.dimensions(), od = out->dimensions();
  if (ld.size() != 2 || rd.size() != 3 || sd.size() != 1 || od.size() != 2 || rd[1] != ld[1] ||
      rd[0] != sd[0] || od[0] != ld[0] || od[1] != rd[2])
    return ffi::Error::InvalidArgument(
        std::string(name) + ": expected lhs[m,k], rhs[g,k,n], group_sizes[g] -> out[m,n], got lhs" +
        Dims(ld) + ", rhs" + Dims(rd) + ", group_sizes" + Dims(sd) + " -> out" + Dims(od));
  Problem p{lhs.untyped_data(), rhs.untyped_data(), sizes.untyped_data(),
            sizes.element_type() == ffi::DataType::S64, out->untyped_data(), ld[0], ld[1], rd[2], rd[0]};
  return Launch(name, false, stream, p, lhs.element_type(), rhs.element_type(), out->element_type());
}

ffi::Error TgmmImpl(cudaStream_t stream, ffi::AnyBuffer lhs, ffi::AnyBuffer rhs, ffi::AnyBuffer sizes,
                    ffi::Result<ffi::AnyBuffer> out) {
  const char* name = "hlo_passes_tgmm_cuda";
  std::string bad = CheckTypes(name, lhs.element_type(), rhs.element_type(), sizes.element_type(),
                               out->element_type());
  if (!bad.empty()) return ffi::Error::InvalidArgument(bad);
  auto ld = lhs.dimensions(), rd = rhs.dimensions(), sd = sizes.dimensions(), od = out->dimensions();
  if (ld.size() != 2 || rd.size() != 2 || sd.size() != 1 || od.size() != 3 || rd[0] != ld[0] ||
      od[0] != sd[0] || od[1] != ld[1] || od[2] != rd[1])
    return ffi::Error::InvalidArgument(
        std::string(name) + ": expected lhs[m,k], rhs[m,n], group_sizes[g] -> out[g,k,n], got lhs" +
        Dims(ld) + ", rhs" + Dims(rd) + ", group_sizes" + Dims(sd) + " -> out" + Dims(od));
  Problem p{lhs.untyped_data(), rhs.untyped_data(), sizes.untyped_data(),
            sizes.element_type() == ffi::DataType::S64, out->untyped_data(), ld[0], ld[1], rd[1], sd[0]};
  return Launch(name, true, stream, p, lhs.element_type(), rhs.element_type(), out->element_type());
}

}  // namespace

// The handlers launch kernels on XLA's stream and allocate nothing, which is
// what XLA needs to record them into a CUDA graph (command buffer).
XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_passes_gmm_cuda, GmmImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>(),
                              {ffi::Traits::kCmdBufferCompatible});

XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_passes_tgmm_cuda, TgmmImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>(),
                              {ffi::Traits::kCmdBufferCompatible});
