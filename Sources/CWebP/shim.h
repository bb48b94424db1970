// libwebp's decoder and encoder. libwebp reports every error by return value (no callbacks,
// no setjmp/longjmp, nothing printed); its C names appear in Codecs/WebP/WebPLibrary.swift only.
#include <webp/decode.h>
#include <webp/encode.h>
