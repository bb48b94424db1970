#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H

#include <stddef.h>

// A small C wrapper around libjpeg's scanline API (libjpeg-turbo's libjpeg.so.62), for decoding
// a JPEG a band of rows at a time while other threads work on the rows already decoded.
// libjpeg reports errors by longjmp; every setjmp and longjmp stays inside this C file, so no C
// frame ever jumps over a Swift frame. Functions that can fail return -1 (or NULL) with a
// one-line reason copied into `message`.

typedef struct cjpeg_reader cjpeg_reader;

/// Reads the header of a baseline (sequential, Huffman) 8-bit JPEG with one or three components
/// held in memory and starts decoding it to RGBA at full size, with libjpeg's defaults (the
/// accurate integer IDCT and fancy upsampling: TurboJPEG's tjDecompress2 gives the same pixels).
/// Any other JPEG is refused with NULL. `data` must stay alive until cjpeg_reader_close.
cjpeg_reader *cjpeg_reader_open(const unsigned char *data, size_t size, char *message, size_t messageSize);

/// What cjpeg_reader_open_any accepts beyond cjpeg_reader_open.
enum {
  /// Progressive, arithmetic-coded and multi-scan files (libjpeg then holds every coefficient of
  /// the image while it decodes), and four-component files (CMYK, YCCK), decoded to CMYK.
  CJPEG_ANY_FILE = 1
};

/// As cjpeg_reader_open, for any 8-bit JPEG libjpeg decodes when `flags` has CJPEG_ANY_FILE:
/// one-component and three-component files decode to RGBA, four-component files (CMYK, YCCK) to
/// CMYK (4 bytes a pixel, as TurboJPEG's TJPF_CMYK gives them).
cjpeg_reader *cjpeg_reader_open_any(const unsigned char *data, size_t size, int flags, char *message,
                                    size_t messageSize);

/// The bytes per output pixel (4) and whether they are CMYK (1) or RGBA (0).
int cjpeg_reader_is_cmyk(const cjpeg_reader *reader);

/// Decodes only columns `*xoffset ..< *xoffset + *width` from now on (jpeg_crop_scanline): libjpeg
/// moves `*xoffset` down to an iMCU boundary and widens `*width` to keep the right edge. Call
/// before reading any row. 0, or -1 on an error.
int cjpeg_reader_crop(cjpeg_reader *reader, unsigned int *xoffset, unsigned int *width, char *message,
                      size_t messageSize);

/// Skips `rows` rows without converting them (jpeg_skip_scanlines: the entropy-coded data is still
/// read, so damage there is still found). Returns the rows skipped, or -1 on an error.
int cjpeg_reader_skip(cjpeg_reader *reader, unsigned int rows, char *message, size_t messageSize);

/// The rows decoded or skipped so far.
unsigned int cjpeg_reader_row(const cjpeg_reader *reader);

/// The output size in pixels.
unsigned int cjpeg_reader_width(const cjpeg_reader *reader);
unsigned int cjpeg_reader_height(const cjpeg_reader *reader);

/// Decodes up to `maxRows` more rows into consecutive rows at `out`, `width * 4` bytes apart.
/// Returns the number of rows decoded (0 once every row is), or -1 on an error.
int cjpeg_reader_read(cjpeg_reader *reader, unsigned char *out, unsigned int maxRows, char *message,
                      size_t messageSize);

/// As cjpeg_reader_read, with rows `stride` bytes apart.
int cjpeg_reader_read_rows(cjpeg_reader *reader, unsigned char *out, size_t stride, unsigned int maxRows,
                           char *message, size_t messageSize);

/// Reads on to the end of the image (jpeg_finish_decompress). 0, or -1 on an error.
int cjpeg_reader_finish(cjpeg_reader *reader, char *message, size_t messageSize);

/// How many harmless warnings libjpeg emitted (extraneous bytes before a marker, a bad ICC
/// marker, an unknown JFIF revision or Adobe transform), up to 16.
int cjpeg_reader_warning_count(const cjpeg_reader *reader);

/// The text of harmless warning `index`, or NULL.
const char *cjpeg_reader_warning(const cjpeg_reader *reader, int index);

/// The text of the first warning that means damaged data (corrupt entropy data, a premature
/// end: libjpeg only warns, and fills in grey), or NULL when there was none.
const char *cjpeg_reader_harmful_warning(const cjpeg_reader *reader);

/// Reads a whole JPEG's entropy-coded data (jpeg_read_coefficients, no IDCT) and looks for a
/// warning that means damage, for decoders that report only the first warning. Returns 1 with
/// that warning's text in `message`, 0 when there is none, or -1 with libjpeg's error.
int cjpeg_find_damage(const unsigned char *data, size_t size, char *message, size_t messageSize);

/// Frees the reader. NULL is allowed.
void cjpeg_reader_close(cjpeg_reader *reader);

// --- The DCT coefficients of a whole JPEG, for renders that keep every block they do not change.

typedef struct cjpeg_coefficients cjpeg_coefficients;

/// Reads every DCT coefficient of an 8-bit JPEG held in memory (jpeg_read_coefficients: entropy
/// decoding only) whose colour space is YCbCr with three components or greyscale with one. NULL
/// with `*unsupported` set to 1 for any other JPEG (CMYK, RGB, 12-bit), or NULL with `*unsupported`
/// 0 and libjpeg's reason (or its first warning that means damaged data) in `message`. `data` must
/// stay alive until cjpeg_coefficients_close.
cjpeg_coefficients *cjpeg_coefficients_read(const unsigned char *data, size_t size, int *unsupported,
                                            char *message, size_t messageSize);

/// From the header alone: 1 when cjpeg_coefficients_read accepts the file, 0 when not, -1 for a
/// header libjpeg refuses; with its iMCU size in pixels.
int cjpeg_coefficients_supported(const unsigned char *data, size_t size, unsigned int *imcuWidth,
                                 unsigned int *imcuHeight);

/// An iMCU's size in pixels: every component's blocks start on these boundaries.
unsigned int cjpeg_coefficients_imcu_width(const cjpeg_coefficients *coefficients);
unsigned int cjpeg_coefficients_imcu_height(const cjpeg_coefficients *coefficients);

/// The file's components (1 or 3), and component `component`'s size in blocks (0 for none).
int cjpeg_coefficients_component_count(const cjpeg_coefficients *coefficients);
unsigned int cjpeg_coefficients_blocks_across(const cjpeg_coefficients *coefficients, int component);
unsigned int cjpeg_coefficients_blocks_down(const cjpeg_coefficients *coefficients, int component);

/// Copies the 64 coefficients (natural order, quantised) of block (`row`, `column`) of
/// `component` into `out`. 0, or -1 for a block the file does not have.
int cjpeg_coefficients_block(cjpeg_coefficients *coefficients, int component, unsigned int row,
                             unsigned int column, short *out);

/// 1 when the file is progressive.
int cjpeg_coefficients_is_progressive(const cjpeg_coefficients *coefficients);

/// Replaces the blocks of the rectangle `x, y, width, height` (in pixels; x and y on iMCU
/// boundaries, width and height whole iMCUs or reaching the image's right and bottom edges) by
/// those of `pixels` (RGBA, rows `stride` bytes apart, alpha ignored), compressed with the file's
/// own quantisation tables, sampling factors and colour space by libjpeg (the accurate integer
/// DCT). Every other block keeps its coefficients. 0, or -1 with a reason.
int cjpeg_coefficients_encode_patch(cjpeg_coefficients *coefficients, const unsigned char *pixels, size_t stride,
                                    unsigned int x, unsigned int y, unsigned int width, unsigned int height,
                                    char *message, size_t messageSize);

/// Writes the coefficients as a JPEG (jpeg_write_coefficients with the file's critical parameters:
/// quantisation tables, sampling factors, JFIF density), progressive when `progressive` is 1, and
/// no other marker. Its Huffman tables are the standard ones when the file's code every symbol
/// (as the standard tables do: a camera's, libjpeg's defaults), else optimised (a second pass,
/// so that a file written with optimised tables does not grow). The bytes are freed with cjpeg_free; NULL with a
/// reason on an error.
unsigned char *cjpeg_coefficients_write(cjpeg_coefficients *coefficients, int progressive, size_t *size,
                                        char *message, size_t messageSize);

/// Compresses a patch of pixels (RGBA, rows `stride` bytes apart, alpha ignored; `width` and
/// `height` whole MCUs of the file, or reaching its right and bottom edges) with the parameters of
/// the JPEG `jpeg` (its header alone is read: quantisation tables, sampling factors, colour
/// space; 8-bit YCbCr or greyscale) by libjpeg (the accurate integer DCT), and copies out the
/// patch's quantised blocks: its MCUs in raster order, each MCU's blocks component by component,
/// each component's h x v blocks in raster order (one block for a one-component file), each block
/// 64 coefficients in natural order (JBLOCK). `*blockCount` is the number of blocks the patch has,
/// also when `blockCapacity` is too small. 0, or -1 with a reason.
int cjpeg_patch_blocks(const unsigned char *jpeg, size_t size, const unsigned char *pixels, size_t stride,
                       unsigned int width, unsigned int height, short *blocks, size_t blockCapacity,
                       size_t *blockCount, char *message, size_t messageSize);

/// Writes the coefficients as a baseline JPEG with a restart marker every `restartInterval` MCUs
/// (0: none), optimised Huffman tables when `optimize` is 1 (else libjpeg's standard ones), and
/// no other marker than JFIF's. For tests and benchmarks of splicing. As cjpeg_coefficients_write.
unsigned char *cjpeg_coefficients_write_baseline(cjpeg_coefficients *coefficients, unsigned int restartInterval,
                                                 int optimize, size_t *size, char *message, size_t messageSize);

/// Frees what cjpeg_coefficients_write returned. NULL is allowed.
void cjpeg_free(unsigned char *bytes);

/// Frees the coefficients. NULL is allowed.
void cjpeg_coefficients_close(cjpeg_coefficients *coefficients);

#endif
