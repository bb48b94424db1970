#include "cjpeg_shim.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "cjpeg_errors.h"

struct cjpeg_reader {
  struct jpeg_decompress_struct info;
  cjpeg_errors errors;
  int created;
};

/* A reader for the JPEG in memory with its header read, or NULL with a message. The reader lives
   on the heap: nothing a longjmp returns to lives in a register. Every caller sets the jump
   again before its own libjpeg calls (this function's frame is gone by then). */
static cjpeg_reader *open_header(const unsigned char *data, size_t size, char *message, size_t messageSize) {
  cjpeg_reader *reader = calloc(1, sizeof(cjpeg_reader));
  if (reader == NULL) {
    cjpeg_set_message(message, messageSize, "out of memory");
    return NULL;
  }
  reader->info.err = cjpeg_init_errors(&reader->errors);
  if (setjmp(reader->errors.jump)) {
    cjpeg_set_message(message, messageSize, reader->errors.message);
    cjpeg_reader_close(reader);
    return NULL;
  }
  jpeg_create_decompress(&reader->info);
  reader->created = 1;
  jpeg_mem_src(&reader->info, data, (unsigned long)size);
  jpeg_read_header(&reader->info, TRUE);
  return reader;
}

cjpeg_reader *cjpeg_reader_open(const unsigned char *data, size_t size, char *message, size_t messageSize) {
  return cjpeg_reader_open_any(data, size, 0, message, messageSize);
}

cjpeg_reader *cjpeg_reader_open_any(const unsigned char *data, size_t size, int flags, char *message,
                                    size_t messageSize) {
  cjpeg_reader *reader = open_header(data, size, message, messageSize);
  if (reader == NULL) return NULL;
  struct jpeg_decompress_struct *info = &reader->info;
  int any = (flags & CJPEG_ANY_FILE) != 0;
  int rgba = info->jpeg_color_space == JCS_YCbCr || info->jpeg_color_space == JCS_GRAYSCALE ||
             info->jpeg_color_space == JCS_RGB;
  int cmyk = info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK;
  int supported = info->data_precision == 8 &&
                  (any ? (rgba || cmyk) : (rgba && !info->progressive_mode && !info->arith_code));
  if (!supported) {
    cjpeg_set_message(message, messageSize,
                any ? "not an 8-bit JPEG libjpeg decodes"
                    : "not a baseline 8-bit JPEG with one or three components");
    cjpeg_reader_close(reader);
    return NULL;
  }
  if (setjmp(reader->errors.jump)) {
    cjpeg_set_message(message, messageSize, reader->errors.message);
    cjpeg_reader_close(reader);
    return NULL;
  }
  info->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
  jpeg_start_decompress(info);
  return reader;
}

int cjpeg_reader_is_cmyk(const cjpeg_reader *reader) { return reader->info.out_color_space == JCS_CMYK; }

int cjpeg_reader_crop(cjpeg_reader *reader, unsigned int *xoffset, unsigned int *width, char *message,
                      size_t messageSize) {
  if (setjmp(reader->errors.jump)) {
    cjpeg_set_message(message, messageSize, reader->errors.message);
    return -1;
  }
  JDIMENSION x = *xoffset, w = *width;
  jpeg_crop_scanline(&reader->info, &x, &w);
  *xoffset = x;
  *width = w;
  return 0;
}

int cjpeg_reader_skip(cjpeg_reader *reader, unsigned int rows, char *message, size_t messageSize) {
  if (setjmp(reader->errors.jump)) {
    cjpeg_set_message(message, messageSize, reader->errors.message);
    return -1;
  }
  return (int)jpeg_skip_scanlines(&reader->info, rows);
}

unsigned int cjpeg_reader_row(const cjpeg_reader *reader) { return reader->info.output_scanline; }

unsigned int cjpeg_reader_width(const cjpeg_reader *reader) { return reader->info.output_width; }

unsigned int cjpeg_reader_height(const cjpeg_reader *reader) { return reader->info.output_height; }

int cjpeg_reader_read(cjpeg_reader *reader, unsigned char *out, unsigned int maxRows, char *message,
                      size_t messageSize) {
  return cjpeg_reader_read_rows(reader, out, (size_t)reader->info.output_width * 4, maxRows, message,
                                messageSize);
}

int cjpeg_reader_read_rows(cjpeg_reader *reader, unsigned char *out, size_t stride, unsigned int maxRows,
                           char *message, size_t messageSize) {
  struct jpeg_decompress_struct *info = &reader->info;
  if (setjmp(reader->errors.jump)) {
    cjpeg_set_message(message, messageSize, reader->errors.message);
    return -1;
  }
  unsigned int done = 0;
  while (done < maxRows && info->output_scanline < info->output_height) {
    JSAMPROW rows[16];
    unsigned int want = maxRows - done < 16 ? maxRows - done : 16;
    for (unsigned int k = 0; k < want; k++) rows[k] = out + (size_t)(done + k) * stride;
    done += jpeg_read_scanlines(info, rows, want);
  }
  return (int)done;
}

int cjpeg_reader_finish(cjpeg_reader *reader, char *message, size_t messageSize) {
  if (setjmp(reader->errors.jump)) {
    cjpeg_set_message(message, messageSize, reader->errors.message);
    return -1;
  }
  jpeg_finish_decompress(&reader->info);
  return 0;
}

int cjpeg_reader_warning_count(const cjpeg_reader *reader) { return reader->errors.warningCount; }

const char *cjpeg_reader_warning(const cjpeg_reader *reader, int index) {
  if (index < 0 || index >= reader->errors.warningCount) return NULL;
  return reader->errors.warnings[index];
}

const char *cjpeg_reader_harmful_warning(const cjpeg_reader *reader) {
  return reader->errors.harmful ? reader->errors.harmfulMessage : NULL;
}

int cjpeg_find_damage(const unsigned char *data, size_t size, char *message, size_t messageSize) {
  cjpeg_reader *reader = open_header(data, size, message, messageSize);
  if (reader == NULL) return -1;
  if (setjmp(reader->errors.jump)) {
    cjpeg_set_message(message, messageSize, reader->errors.message);
    cjpeg_reader_close(reader);
    return -1;
  }
  jpeg_read_coefficients(&reader->info);
  jpeg_finish_decompress(&reader->info);
  int found = reader->errors.harmful;
  if (found) cjpeg_set_message(message, messageSize, reader->errors.harmfulMessage);
  cjpeg_reader_close(reader);
  return found;
}

void cjpeg_reader_close(cjpeg_reader *reader) {
  if (reader == NULL) return;
  if (reader->created) jpeg_destroy_decompress(&reader->info);
  free(reader);
}
