// Grouped matrix multiplication on NVIDIA GPUs, as XLA typed-FFI handlers.
//
//   hlo_passes_gmm_cuda:  (lhs[m,k], rhs[g,k,n], group_sizes[g]) -> out[m,n]
//       Rows of group i are the consecutive block after groups 0..i-1 and are
//       multiplied by rhs[i]; rows past sum(group_sizes) are 0.
//   hlo_passes_tgmm_cuda: (lhs[m,k], rhs[m,n], group_sizes[g]) -> out[g,k,n]
//       out[i] = lhs[rows_i]^T @ rhs[rows_i]; an empty group gives zeros.
//   hlo_passes_moe_ffn_silu_cuda (and _up_first_cuda, _pair_cuda): the whole
//       expert FFN gmm(silu(gate) * up, w_out) in one kernel (MOE005; the
//       contract of the CPU kernel's "Fused expert FFN", below).
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

// Rows [k0, k0 + 16) and columns [c0, c0 + 64) of a row-major [k, n] rhs into
// the B tile; past its end, 0.
template <typename R>
__device__ __forceinline__ void LoadRhsSlice(Tile& tile, const R* w, int64_t k0, int64_t k, int64_t c0,
                                             int64_t n) {
#pragma unroll
  for (int e = threadIdx.x; e < kTileK * kTileN; e += kThreads) {
    const int kk = e / kTileN, col = e % kTileN;
    const int64_t gk = k0 + kk, gc = c0 + col;
    tile.b[kk][col] = (gk < k && gc < n) ? ToF32(w[gk * n + gc]) : 0.0f;
  }
}

// This thread's outputs of the tile at (r0, c0) that fall in rows [lo, hi).
template <typename O>
__device__ __forceinline__ void StoreRows(O* out, const float acc[kSub][kSub], int64_t r0, int64_t lo,
                                          int64_t hi, int64_t c0, int64_t n) {
  const int tx = threadIdx.x % kLanes;
  const int ty = threadIdx.x / kLanes;
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

// The groups that own rows of one row tile [r0, r1), and which rows: slot s
// holds group id[s]'s rows [lo[s], hi[s]).  Shared by the block.
struct TileGroups {
  int64_t id[kTileM], lo[kTileM], hi[kTileM];
  int count;
};

// Fills ``tg`` (in shared memory) for the block's row tile; returns the rows
// any group reaches (clipped at m): rows from there on belong to no group.
__device__ int64_t FindTileGroups(const void* sizes, bool wide_sizes, int64_t g, int64_t m, int64_t r0,
                                  int64_t r1, int64_t* scan, TileGroups& tg) {
  const int t = threadIdx.x;
  if (t == 0) tg.count = 0;
  __syncthreads();
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
        const int slot = atomicAdd(&tg.count, 1);
        tg.id[slot] = idx;
        tg.lo[slot] = start;
        tg.hi[slot] = end;
      }
    }
    carry += chunk_total;
  }
  __syncthreads();
  return carry < m ? carry : m;
}

// Rows [covered, r1) of the block's tile, columns [c0, c0 + 64): no group
// reaches them, they are +0.
template <typename O>
__device__ void ZeroUncoveredRows(O* out, int64_t covered, int64_t r0, int64_t r1, int64_t c0, int64_t n) {
  const int tx = threadIdx.x % kLanes;
  const int ty = threadIdx.x / kLanes;
  for (int64_t gr = (covered > r0 ? covered : r0) + ty; gr < r1; gr += kLanes) {
#pragma unroll
    for (int j = 0; j < kSub; ++j) {
      const int64_t gc = c0 + tx + kLanes * j;
      if (gc < n) Store(out + gr * n + gc, 0.0f);
    }
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
  __shared__ TileGroups groups;

  const int t = threadIdx.x;
  const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kTileM;
  const int64_t r1 = r0 + kTileM < m ? r0 + kTileM : m;
  const int64_t c0 = static_cast<int64_t>(blockIdx.y) * kTileN;

  const int64_t covered = FindTileGroups(sizes, wide_sizes, g, m, r0, r1, scan, groups);

  for (int s = 0; s < groups.count; ++s) {
    const int64_t grp = groups.id[s], lo = groups.lo[s], hi = groups.hi[s];
    const R* w = rhs + grp * k * n;
    float acc[kSub][kSub] = {};
    for (int64_t k0 = 0; k0 < k; k0 += kTileK) {
#pragma unroll
      for (int e = t; e < kTileM * kTileK; e += kThreads) {
        const int row = e / kTileK, kk = e % kTileK;
        const int64_t gr = r0 + row, gk = k0 + kk;
        tile.a[kk][row] = (gr >= lo && gr < hi && gk < k) ? ToF32(lhs[gr * k + gk]) : 0.0f;
      }
      LoadRhsSlice(tile, w, k0, k, c0, n);
      __syncthreads();
      MultiplyTile(tile, acc);
      __syncthreads();
    }
    StoreRows(out, acc, r0, lo, hi, c0, n);
  }

  ZeroUncoveredRows(out, covered, r0, r1, c0, n);
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
// Fused expert FFN (MOE005), the contract of the CPU kernel's "Fused expert
// FFN" (kernels/cpu/grouped_matmul.cc):
//
//   hlo_passes_moe_ffn_silu_cuda          : x[m,d], w_in[g,d,2f], w_out[g,f,n], gs[g] -> y[m,n]
//       h = gmm(x, w_in); y = gmm(silu(h[:, :f]) * h[:, f:], w_out)
//   hlo_passes_moe_ffn_silu_up_first_cuda : the halves swapped (silu of h[:, f:])
//   hlo_passes_moe_ffn_silu_pair_cuda     : x, w_gate[g,d,f], w_up[g,d,f], w_out, gs
//
// The output's element type is the program's compute type, and the kernel
// rounds as XLA computes the unfused program: each of the two first GMMs
// accumulates in f32 and is rounded to the compute type, then exp(-g), 1 + e,
// 1 / d, g * s and a * u are each rounded (jax writes silu as
// g * (1 / (1 + exp(-g)))); the second GMM accumulates in f32 and is rounded
// once. exp is CUDA's expf (libdevice's __nv_expf, what XLA:GPU emits for an
// f32 exp), 1 / d an IEEE division (nvcc's default -prec-div=true).
//
// Block (x, y) computes y rows [x*64, +64) and columns [y*64, +64), group by
// group as the GMM kernel does. For each 16-column chunk of f it computes the
// gate and up tiles (64 x 16, f32, contracting d in 16-deep slices), the
// activation into the shared A tile, and adds its product with the chunk's 16
// rows of w_out to the block's f32 accumulators: the [m,2f] and [m,f]
// intermediates never reach global memory. Correctness first: every column
// block recomputes its row tile's gate and up tiles (n / 64 times the first
// GMMs' work); not tuned, never timed here (no GPU).

constexpr int kFfnChunk = kTileK;  // f columns per activation chunk
constexpr int kFfnRowStep = kThreads / kFfnChunk;  // rows between one thread's gate/up outputs
static_assert(kTileK * kFfnChunk == kThreads, "one thread per element of a weight slice");
static_assert(kFfnRowStep * kSub == kTileM, "each thread computes kSub rows of the gate/up tile");

// ``v`` rounded to O's precision and widened back to f32 (bf16: ties to even,
// NaN a quiet NaN, as Store writes it).
template <typename O>
__device__ __forceinline__ float Rounded(float v) {
  O r;
  Store(&r, v);
  return ToF32(r);
}

template <typename O>
__device__ __forceinline__ float SiluTimes(float gate, float up) {
  const float e = Rounded<O>(expf(-gate));
  const float den = Rounded<O>(__fadd_rn(1.0f, e));
  const float s = Rounded<O>(__fdiv_rn(1.0f, den));
  const float a = Rounded<O>(__fmul_rn(gate, s));
  return Rounded<O>(__fmul_rn(a, up));
}

// Where a group's gate and up columns are: gate(p, j) = gate[grp*stride + p*ld + j].
template <typename W>
struct FfnWeights {
  const W* gate;
  const W* up;
  int64_t ld;      // row stride of a group's [d, *] input weight
  int64_t stride;  // elements per group of the input weight(s)
  const W* out;    // w_out[g, f, n]
};

template <typename X, typename W, typename O>
__global__ void __launch_bounds__(kThreads)
FfnKernel(const X* __restrict__ x, FfnWeights<W> w, const void* __restrict__ sizes, bool wide_sizes,
          O* __restrict__ out, int64_t m, int64_t d, int64_t f, int64_t n, int64_t g) {
  __shared__ Tile tile;  // a: the activation chunk act[j][row]; b: w_out's chunk rows
  __shared__ float xs[kTileK][kTileM + kPad];  // x[row, d slice] as xs[kk][row]
  __shared__ float wg[kTileK][kFfnChunk], wu[kTileK][kFfnChunk];  // [kk][j]
  __shared__ int64_t scan[kThreads];
  __shared__ TileGroups groups;

  const int t = threadIdx.x;
  // The first GMMs' 64 x 16 tile: thread t owns column fj, rows fr + kFfnRowStep * i.
  const int fj = t % kFfnChunk;
  const int fr = t / kFfnChunk;
  const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kTileM;
  const int64_t r1 = r0 + kTileM < m ? r0 + kTileM : m;
  const int64_t c0 = static_cast<int64_t>(blockIdx.y) * kTileN;

  const int64_t covered = FindTileGroups(sizes, wide_sizes, g, m, r0, r1, scan, groups);

  for (int s = 0; s < groups.count; ++s) {
    const int64_t grp = groups.id[s], lo = groups.lo[s], hi = groups.hi[s];
    const W* w_gate = w.gate + grp * w.stride;
    const W* w_up = w.up + grp * w.stride;
    const W* w_out = w.out + grp * f * n;
    float acc[kSub][kSub] = {};
    for (int64_t f0 = 0; f0 < f; f0 += kFfnChunk) {
      float gacc[kSub] = {}, uacc[kSub] = {};
      for (int64_t k0 = 0; k0 < d; k0 += kTileK) {
#pragma unroll
        for (int e = t; e < kTileM * kTileK; e += kThreads) {
          const int row = e / kTileK, kk = e % kTileK;
          const int64_t gr = r0 + row, gk = k0 + kk;
          xs[kk][row] = (gr >= lo && gr < hi && gk < d) ? ToF32(x[gr * d + gk]) : 0.0f;
        }
        {
          const int kk = t / kFfnChunk, j = t % kFfnChunk;  // kTileK * kFfnChunk == kThreads
          const int64_t gk = k0 + kk, gj = f0 + j;
          const bool in = gk < d && gj < f;
          wg[kk][j] = in ? ToF32(w_gate[gk * w.ld + gj]) : 0.0f;
          wu[kk][j] = in ? ToF32(w_up[gk * w.ld + gj]) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTileK; ++kk) {
          const float bg = wg[kk][fj], bu = wu[kk][fj];
#pragma unroll
          for (int i = 0; i < kSub; ++i) {
            const float a = xs[kk][fr + kFfnRowStep * i];
            gacc[i] = fmaf(a, bg, gacc[i]);
            uacc[i] = fmaf(a, bu, uacc[i]);
          }
        }
        __syncthreads();
      }
      // The activation chunk (rows of other groups and columns past f: 0).
#pragma unroll
      for (int i = 0; i < kSub; ++i) {
        const int row = fr + kFfnRowStep * i;
        const int64_t gr = r0 + row;
        tile.a[fj][row] = (gr >= lo && gr < hi && f0 + fj < f)
                              ? SiluTimes<O>(Rounded<O>(gacc[i]), Rounded<O>(uacc[i]))
                              : 0.0f;
      }
      LoadRhsSlice(tile, w_out, f0, f, c0, n);
      __syncthreads();
      MultiplyTile(tile, acc);
      __syncthreads();
    }
    StoreRows(out, acc, r0, lo, hi, c0, n);
  }
  ZeroUncoveredRows(out, covered, r0, r1, c0, n);
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

template <typename T>
struct TypeTag {
  using type = T;
};

// ``visit(TypeTag<A>, TypeTag<B>, TypeTag<C>)`` for the f32/bf16 types a, b, c
// name: one table of the eight instantiations for every kernel.
template <typename Visit>
auto ByTypes(ffi::DataType a, ffi::DataType b, ffi::DataType c, Visit visit) {
  const bool af = a == ffi::DataType::F32, bf = b == ffi::DataType::F32, cf = c == ffi::DataType::F32;
  using F = TypeTag<float>;
  using H = TypeTag<Bf16>;
  if (af && bf && cf) return visit(F{}, F{}, F{});
  if (af && bf) return visit(F{}, F{}, H{});
  if (af && cf) return visit(F{}, H{}, F{});
  if (af) return visit(F{}, H{}, H{});
  if (bf && cf) return visit(H{}, F{}, F{});
  if (bf) return visit(H{}, F{}, H{});
  if (cf) return visit(H{}, H{}, F{});
  return visit(H{}, H{}, H{});
}

// Each (lhs, rhs, out) type triple -> its launcher, for both GMM kernels.
template <bool kTransposed>
Launcher PickLauncher(ffi::DataType lhs, ffi::DataType rhs, ffi::DataType out) {
  return ByTypes(lhs, rhs, out, [](auto l, auto r, auto o) -> Launcher {
    using L = typename decltype(l)::type;
    using R = typename decltype(r)::type;
    using O = typename decltype(o)::type;
    return kTransposed ? &LaunchTgmm<L, R, O> : &LaunchGmm<L, R, O>;
  });
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

// ---- the fused expert FFN ---------------------------------------------------

enum class FfnForm { kGateFirst, kUpFirst, kPair };

struct FfnProblem {
  const void* x;
  const void* gate;
  const void* up;
  const void* w_out;
  int64_t ld, stride;
  const void* sizes;
  bool wide_sizes;
  void* out;
  int64_t m, d, f, n, g;
};

using FfnLauncher = void (*)(cudaStream_t, const FfnProblem&);

template <typename X, typename W, typename O>
void LaunchFfn(cudaStream_t stream, const FfnProblem& p) {
  const dim3 grid(static_cast<unsigned>((p.m + kTileM - 1) / kTileM),
                  static_cast<unsigned>((p.n + kTileN - 1) / kTileN));
  const FfnWeights<W> w{static_cast<const W*>(p.gate), static_cast<const W*>(p.up), p.ld, p.stride,
                        static_cast<const W*>(p.w_out)};
  FfnKernel<X, W, O><<<grid, kThreads, 0, stream>>>(static_cast<const X*>(p.x), w, p.sizes, p.wide_sizes,
                                                    static_cast<O*>(p.out), p.m, p.d, p.f, p.n, p.g);
}

const char* FfnTarget(FfnForm form) {
  switch (form) {
    case FfnForm::kGateFirst: return "hlo_passes_moe_ffn_silu_cuda";
    case FfnForm::kUpFirst: return "hlo_passes_moe_ffn_silu_up_first_cuda";
    default: return "hlo_passes_moe_ffn_silu_pair_cuda";
  }
}

const char* TypeName(ffi::DataType t) {
  return t == ffi::DataType::F32 ? "f32" : t == ffi::DataType::BF16 ? "bf16" : "another type";
}

// x, the input weights (w_gate == w_up for the prefused forms), w_out, group sizes.
ffi::Error FfnImpl(FfnForm form, cudaStream_t stream, const ffi::AnyBuffer& x, const ffi::AnyBuffer& w_gate,
                   const ffi::AnyBuffer& w_up, const ffi::AnyBuffer& w_out, const ffi::AnyBuffer& sizes,
                   ffi::AnyBuffer& out) {
  const std::string name = FfnTarget(form);
  std::string bad = CheckTypes(name.c_str(), x.element_type(), w_gate.element_type(), sizes.element_type(),
                               out.element_type());
  if (bad.empty() && (w_up.element_type() != w_gate.element_type() ||
                      w_out.element_type() != w_gate.element_type()))
    bad = name + ": the weights must have one element type, got " + TypeName(w_gate.element_type()) + ", " +
          TypeName(w_up.element_type()) + ", " + TypeName(w_out.element_type());
  if (!bad.empty()) return ffi::Error::InvalidArgument(bad);
  const bool pair = form == FfnForm::kPair;
  auto xd = x.dimensions(), wd = w_gate.dimensions(), ud = w_up.dimensions(), od = w_out.dimensions(),
       sd = sizes.dimensions(), yd = out.dimensions();
  bool ok = xd.size() == 2 && wd.size() == 3 && od.size() == 3 && sd.size() == 1 && yd.size() == 2 &&
            wd[0] == sd[0] && wd[1] == xd[1] && od[0] == sd[0];
  int64_t f = 0;
  if (ok) {
    f = pair ? wd[2] : wd[2] / 2;
    ok = (pair || wd[2] % 2 == 0) && od[1] == f && yd[0] == xd[0] && yd[1] == od[2];
    if (pair) ok = ok && ud.size() == 3 && ud[0] == wd[0] && ud[1] == wd[1] && ud[2] == f;
  }
  if (!ok)
    return ffi::Error::InvalidArgument(
        name + ": expected x[m,d], " + (pair ? "w_gate[g,d,f], w_up[g,d,f]" : "w_in[g,d,2f]") +
        ", w_out[g,f,n], group_sizes[g] -> out[m,n], got x" + Dims(xd) + ", w_in" + Dims(wd) +
        (pair ? ", w_up" + Dims(ud) : std::string()) + ", w_out" + Dims(od) + ", group_sizes" + Dims(sd) +
        " -> out" + Dims(yd));
  const int64_t ld = pair ? f : 2 * f;
  const size_t width = w_gate.element_type() == ffi::DataType::F32 ? 4 : 2;
  // The prefused weight's halves: the gate's columns start at 0 (up at f), or the other way round.
  const char* base = static_cast<const char*>(w_gate.untyped_data());
  const void* gate = form == FfnForm::kUpFirst ? base + f * width : base;
  const void* up = pair ? w_up.untyped_data() : form == FfnForm::kUpFirst ? base : base + f * width;
  FfnProblem p{x.untyped_data(), gate, up, w_out.untyped_data(), ld, xd[1] * ld, sizes.untyped_data(),
               sizes.element_type() == ffi::DataType::S64, out.untyped_data(), xd[0], xd[1], f, od[2], sd[0]};
  const int64_t row_tiles = (p.m + kTileM - 1) / kTileM, col_tiles = (p.n + kTileN - 1) / kTileN;
  if (row_tiles > 0x7fffffff || col_tiles > 65535)
    return ffi::Error::InvalidArgument(name + ": problem too large for one launch (m=" + std::to_string(p.m) +
                                       ", n=" + std::to_string(p.n) + ")");
  if (row_tiles == 0 || col_tiles == 0) return ffi::Error::Success();
  FfnLauncher launch = ByTypes(x.element_type(), w_gate.element_type(), out.element_type(),
                               [](auto xt, auto wt, auto ot) -> FfnLauncher {
                                 return &LaunchFfn<typename decltype(xt)::type, typename decltype(wt)::type,
                                                   typename decltype(ot)::type>;
                               });
  launch(stream, p);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return ffi::Error::Internal(name + ": kernel launch failed: " + cudaGetErrorString(err));
  return ffi::Error::Success();
}

ffi::Error FfnGateFirst(cudaStream_t stream, ffi::AnyBuffer x, ffi::AnyBuffer w_in, ffi::AnyBuffer w_out,
                        ffi::AnyBuffer sizes, ffi::Result<ffi::AnyBuffer> out) {
  return FfnImpl(FfnForm::kGateFirst, stream, x, w_in, w_in, w_out, sizes, *out);
}

ffi::Error FfnUpFirst(cudaStream_t stream, ffi::AnyBuffer x, ffi::AnyBuffer w_in, ffi::AnyBuffer w_out,
                      ffi::AnyBuffer sizes, ffi::Result<ffi::AnyBuffer> out) {
  return FfnImpl(FfnForm::kUpFirst, stream, x, w_in, w_in, w_out, sizes, *out);
}

ffi::Error FfnPair(cudaStream_t stream, ffi::AnyBuffer x, ffi::AnyBuffer w_gate, ffi::AnyBuffer w_up,
                   ffi::AnyBuffer w_out, ffi::AnyBuffer sizes, ffi::Result<ffi::AnyBuffer> out) {
  return FfnImpl(FfnForm::kPair, stream, x, w_gate, w_up, w_out, sizes, *out);
}

// A handler's binding: XLA's stream, ``kArgs`` buffers, one result.
template <int kArgs>
auto StreamAndBuffers() {
  if constexpr (kArgs == 0) {
    return ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>();
  } else {
    return StreamAndBuffers<kArgs - 1>().template Arg<ffi::AnyBuffer>();
  }
}

}  // namespace

// The handlers launch kernels on XLA's stream and allocate nothing, which is
// what XLA needs to record them into a CUDA graph (command buffer).
XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_passes_gmm_cuda, GmmImpl, StreamAndBuffers<3>().Ret<ffi::AnyBuffer>(),
                              {ffi::Traits::kCmdBufferCompatible});
XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_passes_tgmm_cuda, TgmmImpl, StreamAndBuffers<3>().Ret<ffi::AnyBuffer>(),
                              {ffi::Traits::kCmdBufferCompatible});
XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_passes_moe_ffn_silu_cuda, FfnGateFirst,
                              StreamAndBuffers<4>().Ret<ffi::AnyBuffer>(), {ffi::Traits::kCmdBufferCompatible});
XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_passes_moe_ffn_silu_up_first_cuda, FfnUpFirst,
                              StreamAndBuffers<4>().Ret<ffi::AnyBuffer>(), {ffi::Traits::kCmdBufferCompatible});
XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_passes_moe_ffn_silu_pair_cuda, FfnPair,
                              StreamAndBuffers<5>().Ret<ffi::AnyBuffer>(), {ffi::Traits::kCmdBufferCompatible});
