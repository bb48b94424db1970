#ifndef CCPUID_H
#define CCPUID_H

// Which vector instructions this processor and operating system can run, for choosing a kernel at
// run time. The answer never changes while a process runs.

/// 1 when the processor has AVX2 and FMA3 and the operating system saves the YMM registers
/// (CPUID leaf 1 ECX bits 12, 27 and 28; leaf 7 EBX bit 5; XCR0 bits 1 and 2); 0 otherwise,
/// including on processors that are not x86-64.
int ccpuid_has_avx2_fma(void);

/// 1 when, besides AVX2 and FMA, the processor has AVX-512 F and VL (leaf 7 EBX bits 16 and 31)
/// and the operating system saves the opmask and ZMM registers (XCR0 bits 5, 6 and 7).
int ccpuid_has_avx512(void);

#endif
