// Placeholder: the codecs work replaces this with a small wrapper around libpng's classic API
// (setjmp/longjmp stay inside C).
#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
int cpng_shim_version(void);
#endif
