// libheif's reader, decoder and encoder (libde265 and dav1d decode, x265 and aom encode). libheif
// reports every error as a returned struct heif_error (no callbacks, no setjmp/longjmp, nothing
// printed); its C names appear in Codecs/HEIF/HEIFLibrary.swift and, for the decoder plugin
// interface photoedit's size guard implements, Codecs/HEIF/HEIFDecodeGuard.swift only.
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>
