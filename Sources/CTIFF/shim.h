// libtiff 4.5's reader and writer, opened over memory (TIFFClientOpenExt) with error and warning
// handlers that record and return (TIFFOpenOptions): libtiff never longjmps. Its C names appear
// in Codecs/TIFF/TIFFLibrary.swift only.
#include <tiffio.h>
