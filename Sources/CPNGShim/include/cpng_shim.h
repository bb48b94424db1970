#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H

#include <stddef.h>

// A small C wrapper around libpng's classic API and zlib. libpng reports errors by longjmp; every
// setjmp and longjmp stays inside this C file, so no C frame ever jumps over a Swift frame. Each
// function returns 0 on success, or -1 with a one-line reason copied into `message`.

/// The libpng version the shim was built against, e.g. 10639.
int cpng_version(void);

/// Decodes a whole PNG file to 8-bit straight RGBA into `out`, which holds exactly
/// `width * height * 4` bytes for the size the caller read from IHDR. Palette, grey, low bit
/// depths and tRNS are expanded; 16-bit samples are rounded to 8 bits (png_set_scale_16);
/// interlaced files are de-interlaced; no gamma or colour transform is applied.
/// Warnings are ignored (counted into *warnings when it is not NULL).
int cpng_decode_rgba(const unsigned char *data, size_t size, unsigned int width, unsigned int height,
                     unsigned char *out, int *warnings, char *message, size_t messageSize);

/// Encodes 8-bit straight RGBA (`width * height * 4` bytes, no row padding) as an 8-bit PNG:
/// RGBA when `withAlpha` is non-zero, else RGB (the alpha bytes are skipped). On success
/// `*outData` holds `*outSize` bytes allocated with malloc; release them with cpng_free.
int cpng_encode_rgba(const unsigned char *rgba, unsigned int width, unsigned int height, int withAlpha,
                     int compressionLevel, unsigned char **outData, size_t *outSize, char *message,
                     size_t messageSize);

/// Inflates a zlib stream (RFC 1950) into a malloc'd buffer of at most `maxSize` bytes.
int cpng_inflate(const unsigned char *data, size_t size, size_t maxSize, unsigned char **outData,
                 size_t *outSize);

/// Deflates bytes into a zlib stream (RFC 1950) in a malloc'd buffer.
int cpng_deflate(const unsigned char *data, size_t size, unsigned char **outData, size_t *outSize);

/// The CRC-32 of PNG chunks (zlib's crc32), continuing from `crc` (start with 0).
unsigned long cpng_crc32(unsigned long crc, const unsigned char *data, size_t size);

/// Frees a buffer returned by this shim.
void cpng_free(void *pointer);

/// A PNG read a row at a time: the rows cpng_decode_rgba gives, in order. Non-interlaced files
/// only. `data` must stay alive until cpng_reader_close.
typedef struct cpng_reader cpng_reader;

/// Starts reading; NULL with a message on an error (an interlaced file is refused).
cpng_reader *cpng_reader_open(const unsigned char *data, size_t size, unsigned int width, unsigned int height,
                              char *message, size_t messageSize);
/// Reads the next `rows` rows into `out`, rows `stride` bytes apart.
int cpng_reader_read(cpng_reader *reader, unsigned char *out, size_t stride, unsigned int rows, char *message,
                     size_t messageSize);
/// Reads and drops the next `rows` rows (through `scratch`, one row of width * 4 bytes).
int cpng_reader_skip(cpng_reader *reader, unsigned int rows, unsigned char *scratch, char *message,
                     size_t messageSize);
/// Reads the rest of the rows (through `scratch`) and the end of the file.
int cpng_reader_finish(cpng_reader *reader, unsigned char *scratch, char *message, size_t messageSize);
/// Frees the reader. NULL is allowed.
void cpng_reader_close(cpng_reader *reader);

/// A PNG written a row at a time: the bytes cpng_encode_rgba makes of the same rows.
typedef struct cpng_writer cpng_writer;

/// Starts a PNG of 8-bit RGBA (`withAlpha`) or RGB.
cpng_writer *cpng_writer_open(unsigned int width, unsigned int height, int withAlpha, int compressionLevel,
                              char *message, size_t messageSize);
/// Writes the next `rows` rows of RGBA pixels, rows `stride` bytes apart.
int cpng_writer_write(cpng_writer *writer, const unsigned char *rgba, size_t stride, unsigned int rows,
                      char *message, size_t messageSize);
/// Ends the file once every row is written: `*outData` holds `*outSize` bytes (free with cpng_free).
int cpng_writer_finish(cpng_writer *writer, unsigned char **outData, size_t *outSize, char *message,
                       size_t messageSize);
/// Frees the writer. NULL is allowed.
void cpng_writer_close(cpng_writer *writer);

#endif
