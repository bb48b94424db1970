// fma_peak: this core's fp32 FMA peak and its clock, measured (docs/centerface.md, "The ceiling").
//
//   gcc -O2 -mavx512f -mfma -o /tmp/fma_peak Tests/Benchmarks/fma_peak.c && /tmp/fma_peak
//
// Three loops on one thread, each timed by CPU time (clock_gettime(CLOCK_THREAD_CPUTIME_ID)),
// best of 5:
//   clock: a chain of dependent 64-bit integer adds (one cycle each on every x86 core since the
//          Pentium 4's), so adds per second = the core's clock while it runs vector code;
//   fma512: 12 independent chains of 16-float vfmadd231ps (enough to cover 2 pipes x 4-5 cycles
//          of latency), FLOP/s = 2 x 16 x FMAs per second;
//   fma256: the same with 8-float ymm vectors (AVX2), to tell 2 x 512-bit pipes from 2 x 256-bit
//          pipes (a core that splits zmm into two halves gives the same FLOP/s for both).
// FMA units x lanes = FLOP/cycle / 2 for each width.
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static double clock_hz(long n) {
  uint64_t x = 1;
  double t0 = now();
  for (long i = 0; i < n; i++) {
    // 8 dependent adds per iteration; the asm keeps the compiler from folding them.
    __asm__ volatile("add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                     "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0"
                     : "+r"(x));
  }
  double t = now() - t0;
  return 8.0 * n / t;
}

#define CHAINS12(OP) OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7) OP(8) OP(9) OP(10) OP(11)

static double fma512(long n, float *sink) {
  __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
#define DECL(i) __m512 c##i = _mm512_set1_ps((float)i);
  CHAINS12(DECL)
  double t0 = now();
  for (long i = 0; i < n; i++) {
#define STEP(i) c##i = _mm512_fmadd_ps(c##i, a, b);
    CHAINS12(STEP)
    __asm__ volatile("" ::: "memory");
  }
  double t = now() - t0;
  __m512 s = c0;
#define SUM(i) s = _mm512_add_ps(s, c##i);
  CHAINS12(SUM)
  *sink += _mm512_reduce_add_ps(s);
  return 12.0 * n * 16 * 2 / t;
}

static double fma256(long n, float *sink) {
  __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
#define DECL8(i) __m256 d##i = _mm256_set1_ps((float)i);
  CHAINS12(DECL8)
  double t0 = now();
  for (long i = 0; i < n; i++) {
#define STEP8(i) d##i = _mm256_fmadd_ps(d##i, a, b);
    CHAINS12(STEP8)
    __asm__ volatile("" ::: "memory");
  }
  double t = now() - t0;
  __m256 s = d0;
#define SUM8(i) s = _mm256_add_ps(s, d##i);
  CHAINS12(SUM8)
  float v[8];
  _mm256_storeu_ps(v, s);
  *sink += v[0];
  return 12.0 * n * 8 * 2 / t;
}

int main(void) {
  float sink = 0;
  double hz = 0, f512 = 0, f256 = 0;
  for (int r = 0; r < 5; r++) {
    double h = clock_hz(200000000L);
    double a = fma512(100000000L, &sink);
    double b = fma256(100000000L, &sink);
    if (h > hz) hz = h;
    if (a > f512) f512 = a;
    if (b > f256) f256 = b;
  }
  printf("clock (dependent adds): %.3f GHz\n", hz / 1e9);
  printf("fp32 FMA, zmm (16 lanes): %.1f GFLOP/s per core = %.1f FLOP/cycle = %.2f FMA/cycle\n", f512 / 1e9,
         f512 / hz, f512 / hz / 32);
  printf("fp32 FMA, ymm (8 lanes):  %.1f GFLOP/s per core = %.1f FLOP/cycle = %.2f FMA/cycle\n", f256 / 1e9,
         f256 / hz, f256 / hz / 16);
  printf("(sink %g)\n", sink);
  return 0;
}
