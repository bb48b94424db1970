#include "cpng_shim.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int cpng_version(void) { return PNG_LIBPNG_VER; }

void cpng_free(void *pointer) { free(pointer); }

unsigned long cpng_crc32(unsigned long crc, const unsigned char *data, size_t size) {
  while (size > 0) {
    uInt n = size > 0x40000000u ? 0x40000000u : (uInt)size;
    crc = crc32(crc, data, n);
    data += n;
    size -= n;
  }
  return crc;
}

/* Error state shared by the callbacks; the jmp_buf itself is libpng's (png_jmpbuf). */
typedef struct {
  char *message;
  size_t messageSize;
  int warnings;
  /* Reading. */
  const unsigned char *data;
  size_t size, offset;
  /* Writing. */
  unsigned char *out;
  size_t outSize, outCapacity;
  int outOfMemory;
} cpng_state;

static void set_message(char *message, size_t messageSize, const char *text) {
  if (message == NULL || messageSize == 0) return;
  strncpy(message, text, messageSize - 1);
  message[messageSize - 1] = '\0';
}

static void on_error(png_structp png, png_const_charp text) {
  cpng_state *state = (cpng_state *)png_get_error_ptr(png);
  set_message(state->message, state->messageSize, text);
  png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) {
  (void)text;
  cpng_state *state = (cpng_state *)png_get_error_ptr(png);
  state->warnings += 1;
}

static void on_read(png_structp png, png_bytep into, size_t length) {
  cpng_state *state = (cpng_state *)png_get_io_ptr(png);
  if (length > state->size - state->offset) png_error(png, "the file ends early");
  memcpy(into, state->data + state->offset, length);
  state->offset += length;
}

int cpng_decode_rgba(const unsigned char *data, size_t size, unsigned int width, unsigned int height,
                     unsigned char *out, int *warnings, char *message, size_t messageSize) {
  cpng_state state;
  memset(&state, 0, sizeof state);
  state.message = message;
  state.messageSize = messageSize;
  state.data = data;
  state.size = size;
  set_message(message, messageSize, "unknown libpng error");

  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
  if (png == NULL) {
    set_message(message, messageSize, "out of memory");
    return -1;
  }
  png_infop info = png_create_info_struct(png);
  if (info == NULL) {
    png_destroy_read_struct(&png, NULL, NULL);
    set_message(message, messageSize, "out of memory");
    return -1;
  }

  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, NULL);
    if (warnings) *warnings = state.warnings;
    return -1;
  }
  png_set_read_fn(png, &state, on_read);
  png_set_benign_errors(png, 1);
  /* The caller already checked the size against its pixel limit. */
  png_set_user_limits(png, width, height);
  /* Every ancillary chunk but tRNS is skipped unread: the pixels need none of them (no gamma
     or colour transform is applied), and Swift reads the metadata itself. Otherwise libpng
     would inflate every zTXt and iTXt chunk (up to 8 MB each) and iCCP on its own. */
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
  png_read_info(png, info);

  png_uint_32 w = 0, h = 0;
  int bitDepth = 0, colorType = 0, interlace = 0;
  png_get_IHDR(png, info, &w, &h, &bitDepth, &colorType, &interlace, NULL, NULL);
  if (w != width || h != height) png_error(png, "IHDR size differs from the one read");

  /* Values as stored: expand, scale 16 to 8 bits with rounding, grey to RGB, opaque alpha. */
  png_set_expand(png);
  if (bitDepth == 16) png_set_scale_16(png);
  if (colorType == PNG_COLOR_TYPE_GRAY || colorType == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
  int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != (size_t)width * 4) png_error(png, "unexpected row layout");

  /* Row by row, as png_read_image does, without its array of a pointer per row (2 GB for a
     PNG of 250 million rows). An interlaced image is read once per pass. */
  for (int pass = 0; pass < passes; pass++) {
    for (unsigned int y = 0; y < height; y++) png_read_row(png, out + (size_t)y * width * 4, NULL);
  }
  png_read_end(png, NULL);

  png_destroy_read_struct(&png, &info, NULL);
  if (warnings) *warnings = state.warnings;
  return 0;
}

static void on_write(png_structp png, png_bytep bytes, size_t length) {
  cpng_state *state = (cpng_state *)png_get_io_ptr(png);
  if (length > state->outCapacity - state->outSize) {
    size_t capacity = state->outCapacity ? state->outCapacity : 65536;
    while (length > capacity - state->outSize) capacity *= 2;
    unsigned char *grown = (unsigned char *)realloc(state->out, capacity);
    if (grown == NULL) {
      state->outOfMemory = 1;
      png_error(png, "out of memory");
    }
    state->out = grown;
    state->outCapacity = capacity;
  }
  memcpy(state->out + state->outSize, bytes, length);
  state->outSize += length;
}

static void on_flush(png_structp png) { (void)png; }

int cpng_encode_rgba(const unsigned char *rgba, unsigned int width, unsigned int height, int withAlpha,
                     int compressionLevel, unsigned char **outData, size_t *outSize, char *message,
                     size_t messageSize) {
  cpng_state state;
  memset(&state, 0, sizeof state);
  state.message = message;
  state.messageSize = messageSize;
  *outData = NULL;
  *outSize = 0;
  set_message(message, messageSize, "unknown libpng error");

  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
  if (png == NULL) {
    set_message(message, messageSize, "out of memory");
    return -1;
  }
  png_infop info = png_create_info_struct(png);
  png_bytep *rows = (png_bytep *)malloc(sizeof(png_bytep) * (height ? height : 1));
  if (info == NULL || rows == NULL) {
    free(rows);
    png_destroy_write_struct(&png, info ? &info : NULL);
    set_message(message, messageSize, "out of memory");
    return -1;
  }
  for (unsigned int y = 0; y < height; y++) rows[y] = (png_bytep)(rgba + (size_t)y * width * 4);

  if (setjmp(png_jmpbuf(png))) {
    free(rows);
    free(state.out);
    png_destroy_write_struct(&png, &info);
    return -1;
  }
  png_set_write_fn(png, &state, on_write, on_flush);
  png_set_compression_level(png, compressionLevel);
  png_set_IHDR(png, info, width, height, 8, withAlpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  /* For RGB output the input still has 4 bytes a pixel: libpng drops the filler byte. */
  if (!withAlpha) png_set_filler(png, 0, PNG_FILLER_AFTER);
  png_write_image(png, rows);
  png_write_end(png, NULL);

  free(rows);
  png_destroy_write_struct(&png, &info);
  *outData = state.out;
  *outSize = state.outSize;
  return 0;
}

int cpng_inflate(const unsigned char *data, size_t size, size_t maxSize, unsigned char **outData,
                 size_t *outSize) {
  *outData = NULL;
  *outSize = 0;
  z_stream stream;
  memset(&stream, 0, sizeof stream);
  if (inflateInit(&stream) != Z_OK) return -1;
  size_t capacity = size * 4 + 1024;
  if (capacity > maxSize) capacity = maxSize;
  unsigned char *out = (unsigned char *)malloc(capacity ? capacity : 1);
  if (out == NULL) {
    inflateEnd(&stream);
    return -1;
  }
  stream.next_in = (Bytef *)data;
  stream.avail_in = (uInt)size;
  size_t produced = 0;
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    if (produced == capacity) {
      if (capacity >= maxSize) break;
      size_t grown = capacity * 2 > maxSize ? maxSize : capacity * 2;
      unsigned char *bigger = (unsigned char *)realloc(out, grown);
      if (bigger == NULL) break;
      out = bigger;
      capacity = grown;
    }
    stream.next_out = out + produced;
    stream.avail_out = (uInt)(capacity - produced);
    status = inflate(&stream, Z_NO_FLUSH);
    produced = capacity - stream.avail_out;
    if (status != Z_OK && status != Z_STREAM_END) break;
    if (status == Z_OK && stream.avail_in == 0 && produced < capacity) break;
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) {
    free(out);
    return -1;
  }
  *outData = out;
  *outSize = produced;
  return 0;
}

int cpng_deflate(const unsigned char *data, size_t size, unsigned char **outData, size_t *outSize) {
  *outData = NULL;
  *outSize = 0;
  uLongf capacity = compressBound((uLong)size);
  unsigned char *out = (unsigned char *)malloc(capacity ? capacity : 1);
  if (out == NULL) return -1;
  if (compress2(out, &capacity, data, (uLong)size, Z_BEST_COMPRESSION) != Z_OK) {
    free(out);
    return -1;
  }
  *outData = out;
  *outSize = capacity;
  return 0;
}

/* ---- Row by row: a reader and a writer that keep libpng's state between calls (the
   planner's PNG source and sink). Each call sets libpng's jump again: no longjmp ever leaves C. */

struct cpng_reader {
  png_structp png;
  png_infop info;
  cpng_state state;
  unsigned int width, height, row;
};

static void reader_message(cpng_reader *r, char *message, size_t messageSize) {
  r->state.message = message;
  r->state.messageSize = messageSize;
  set_message(message, messageSize, "unknown libpng error");
}

cpng_reader *cpng_reader_open(const unsigned char *data, size_t size, unsigned int width, unsigned int height,
                              char *message, size_t messageSize) {
  cpng_reader *r = (cpng_reader *)calloc(1, sizeof(cpng_reader));
  if (r == NULL) {
    set_message(message, messageSize, "out of memory");
    return NULL;
  }
  reader_message(r, message, messageSize);
  r->state.data = data;
  r->state.size = size;
  r->width = width;
  r->height = height;
  r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r->state, on_error, on_warning);
  if (r->png == NULL) {
    set_message(message, messageSize, "out of memory");
    free(r);
    return NULL;
  }
  r->info = png_create_info_struct(r->png);
  if (r->info == NULL) {
    set_message(message, messageSize, "out of memory");
    cpng_reader_close(r);
    return NULL;
  }
  if (setjmp(png_jmpbuf(r->png))) {
    cpng_reader_close(r);
    return NULL;
  }
  png_set_read_fn(r->png, &r->state, on_read);
  png_set_benign_errors(r->png, 1);
  png_set_user_limits(r->png, width, height);
  /* As cpng_decode_rgba: every ancillary chunk but tRNS skipped, values as stored. */
  png_set_keep_unknown_chunks(r->png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
  png_read_info(r->png, r->info);
  png_uint_32 w = 0, h = 0;
  int bitDepth = 0, colorType = 0, interlace = 0;
  png_get_IHDR(r->png, r->info, &w, &h, &bitDepth, &colorType, &interlace, NULL, NULL);
  if (w != width || h != height) png_error(r->png, "IHDR size differs from the one read");
  if (interlace != PNG_INTERLACE_NONE) png_error(r->png, "an interlaced PNG is not read row by row");
  png_set_expand(r->png);
  if (bitDepth == 16) png_set_scale_16(r->png);
  if (colorType == PNG_COLOR_TYPE_GRAY || colorType == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(r->png);
  png_set_add_alpha(r->png, 0xff, PNG_FILLER_AFTER);
  png_set_interlace_handling(r->png);
  png_read_update_info(r->png, r->info);
  if (png_get_rowbytes(r->png, r->info) != (size_t)width * 4) png_error(r->png, "unexpected row layout");
  return r;
}

int cpng_reader_read(cpng_reader *r, unsigned char *out, size_t stride, unsigned int rows, char *message,
                     size_t messageSize) {
  reader_message(r, message, messageSize);
  if (setjmp(png_jmpbuf(r->png))) return -1;
  for (unsigned int k = 0; k < rows; k++) {
    if (r->row >= r->height) png_error(r->png, "read past the last row");
    png_read_row(r->png, out == NULL ? NULL : out + (size_t)k * stride, NULL);
    r->row += 1;
  }
  return 0;
}

int cpng_reader_skip(cpng_reader *r, unsigned int rows, unsigned char *scratch, char *message,
                     size_t messageSize) {
  reader_message(r, message, messageSize);
  if (setjmp(png_jmpbuf(r->png))) return -1;
  for (unsigned int k = 0; k < rows; k++) {
    if (r->row >= r->height) png_error(r->png, "read past the last row");
    png_read_row(r->png, scratch, NULL);
    r->row += 1;
  }
  return 0;
}

int cpng_reader_finish(cpng_reader *r, unsigned char *scratch, char *message, size_t messageSize) {
  reader_message(r, message, messageSize);
  if (setjmp(png_jmpbuf(r->png))) return -1;
  while (r->row < r->height) {
    png_read_row(r->png, scratch, NULL);
    r->row += 1;
  }
  png_read_end(r->png, NULL);
  return 0;
}

void cpng_reader_close(cpng_reader *r) {
  if (r == NULL) return;
  if (r->png != NULL) png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
  free(r);
}

struct cpng_writer {
  png_structp png;
  png_infop info;
  cpng_state state;
  unsigned int width, height, row;
};

static void writer_message(cpng_writer *w, char *message, size_t messageSize) {
  w->state.message = message;
  w->state.messageSize = messageSize;
  set_message(message, messageSize, "unknown libpng error");
}

cpng_writer *cpng_writer_open(unsigned int width, unsigned int height, int withAlpha, int compressionLevel,
                              char *message, size_t messageSize) {
  cpng_writer *w = (cpng_writer *)calloc(1, sizeof(cpng_writer));
  if (w == NULL) {
    set_message(message, messageSize, "out of memory");
    return NULL;
  }
  writer_message(w, message, messageSize);
  w->width = width;
  w->height = height;
  w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w->state, on_error, on_warning);
  if (w->png == NULL) {
    set_message(message, messageSize, "out of memory");
    free(w);
    return NULL;
  }
  w->info = png_create_info_struct(w->png);
  if (w->info == NULL) {
    set_message(message, messageSize, "out of memory");
    cpng_writer_close(w);
    return NULL;
  }
  if (setjmp(png_jmpbuf(w->png))) {
    cpng_writer_close(w);
    return NULL;
  }
  /* As cpng_encode_rgba, so that the bytes are the same. */
  png_set_write_fn(w->png, &w->state, on_write, on_flush);
  png_set_compression_level(w->png, compressionLevel);
  png_set_IHDR(w->png, w->info, width, height, 8, withAlpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(w->png, w->info);
  if (!withAlpha) png_set_filler(w->png, 0, PNG_FILLER_AFTER);
  return w;
}

int cpng_writer_write(cpng_writer *w, const unsigned char *rgba, size_t stride, unsigned int rows, char *message,
                      size_t messageSize) {
  writer_message(w, message, messageSize);
  if (setjmp(png_jmpbuf(w->png))) return -1;
  for (unsigned int k = 0; k < rows; k++) {
    if (w->row >= w->height) png_error(w->png, "wrote past the last row");
    png_write_row(w->png, (png_const_bytep)(rgba + (size_t)k * stride));
    w->row += 1;
  }
  return 0;
}

int cpng_writer_finish(cpng_writer *w, unsigned char **outData, size_t *outSize, char *message,
                       size_t messageSize) {
  *outData = NULL;
  *outSize = 0;
  writer_message(w, message, messageSize);
  if (setjmp(png_jmpbuf(w->png))) return -1;
  if (w->row != w->height) png_error(w->png, "not every row was written");
  png_write_end(w->png, NULL);
  *outData = w->state.out;
  *outSize = w->state.outSize;
  w->state.out = NULL;
  return 0;
}

void cpng_writer_close(cpng_writer *w) {
  if (w == NULL) return;
  free(w->state.out);
  if (w->png != NULL) png_destroy_write_struct(&w->png, w->info ? &w->info : NULL);
  free(w);
}
