#include "ccpuid.h"

#if defined(__x86_64__)
#include <cpuid.h>

static unsigned long long read_xcr0(void) {
  unsigned int eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return ((unsigned long long)edx << 32) | eax;
}

int ccpuid_has_avx2_fma(void) {
  unsigned int eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  const unsigned int fma = 1u << 12, osxsave = 1u << 27, avx = 1u << 28;
  if ((ecx & (fma | osxsave | avx)) != (fma | osxsave | avx)) return 0;
  if ((read_xcr0() & 0x6) != 0x6) return 0;  // XMM and YMM state saved by the OS
  if (__get_cpuid_max(0, 0) < 7) return 0;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  return (ebx & (1u << 5)) != 0;  // AVX2
}

int ccpuid_has_avx512(void) {
  if (!ccpuid_has_avx2_fma()) return 0;
  if ((read_xcr0() & 0xE6) != 0xE6) return 0;  // XMM, YMM, opmask, ZMM 0-15 and 16-31
  unsigned int eax, ebx, ecx, edx;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  return (ebx & (1u << 16)) != 0 && (ebx & (1u << 31)) != 0;  // AVX512F, AVX512VL
}
#else
int ccpuid_has_avx2_fma(void) { return 0; }
int ccpuid_has_avx512(void) { return 0; }
#endif
