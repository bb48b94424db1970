#include "cjpeg_shim.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include <jerror.h>

#include "cjpeg_errors.h"

/* A JPEG's coefficients, as jpeg_read_coefficients holds them: the decompressor stays open, since
   it owns the coefficient arrays, until the coefficients are closed. */
struct cjpeg_coefficients {
  struct jpeg_decompress_struct info;
  cjpeg_errors errors;
  int created;
  jvirt_barray_ptr *arrays;
};

/* What compressing a patch and reading its coefficients back holds; on the heap, so that a
   longjmp finds everything to free. */
typedef struct {
  struct jpeg_compress_struct compress;
  struct jpeg_decompress_struct decompress;
  cjpeg_errors errors;
  int compressCreated, decompressCreated;
  /* The compressed bytes: our own destination, so that whatever happens, `bytes` is the one
     buffer to free (libjpeg's jpeg_mem_dest frees and replaces its buffer as it grows). */
  struct jpeg_destination_mgr destination;
  unsigned char *bytes;
  size_t size, capacity;
} patch_state;

static void destination_init(j_compress_ptr compress) {
  patch_state *state = (patch_state *)compress->client_data;
  state->destination.next_output_byte = state->bytes;
  state->destination.free_in_buffer = state->capacity;
}

/* The buffer is full: doubled. */
static boolean destination_grow(j_compress_ptr compress) {
  patch_state *state = (patch_state *)compress->client_data;
  size_t capacity = state->capacity * 2;
  unsigned char *grown = realloc(state->bytes, capacity);
  if (grown == NULL) ERREXIT1(compress, JERR_OUT_OF_MEMORY, 0);
  state->destination.next_output_byte = grown + state->capacity;
  state->destination.free_in_buffer = capacity - state->capacity;
  state->bytes = grown;
  state->capacity = capacity;
  return TRUE;
}

static void destination_term(j_compress_ptr compress) {
  patch_state *state = (patch_state *)compress->client_data;
  state->size = state->capacity - state->destination.free_in_buffer;
}

/* Compresses into `state->bytes`, starting with `capacity` bytes (0 when out of memory). */
static int start_destination(patch_state *state, size_t capacity) {
  state->bytes = malloc(capacity);
  if (state->bytes == NULL) return 0;
  state->capacity = capacity;
  state->destination.init_destination = destination_init;
  state->destination.empty_output_buffer = destination_grow;
  state->destination.term_destination = destination_term;
  state->compress.dest = &state->destination;
  state->compress.client_data = state;
  return 1;
}

static void patch_free(patch_state *state) {
  if (state->compressCreated) jpeg_destroy_compress(&state->compress);
  if (state->decompressCreated) jpeg_destroy_decompress(&state->decompress);
  free(state->bytes);
  free(state);
}

/* True for the files cjpeg_coefficients_read accepts, from their header. */
static int is_supported(const struct jpeg_decompress_struct *info) {
  int ycc = info->jpeg_color_space == JCS_YCbCr && info->num_components == 3;
  int grey = info->jpeg_color_space == JCS_GRAYSCALE && info->num_components == 1;
  return info->data_precision == 8 && (ycc || grey);
}

/* The file's header read into a new cjpeg_coefficients, or NULL with a reason. It lives on the
   heap: nothing a longjmp returns to lives in a register. Every caller sets the jump again before
   its own libjpeg calls (this function's frame is gone by then). */
static cjpeg_coefficients *open_header(const unsigned char *data, size_t size, char *message, size_t messageSize) {
  cjpeg_coefficients *c = calloc(1, sizeof(cjpeg_coefficients));
  if (c == NULL) {
    cjpeg_set_message(message, messageSize, "out of memory");
    return NULL;
  }
  c->info.err = cjpeg_init_errors(&c->errors);
  if (setjmp(c->errors.jump)) {
    cjpeg_set_message(message, messageSize, c->errors.message);
    cjpeg_coefficients_close(c);
    return NULL;
  }
  jpeg_create_decompress(&c->info);
  c->created = 1;
  jpeg_mem_src(&c->info, data, (unsigned long)size);
  jpeg_read_header(&c->info, TRUE);
  return c;
}

int cjpeg_coefficients_supported(const unsigned char *data, size_t size, unsigned int *imcuWidth,
                                 unsigned int *imcuHeight) {
  cjpeg_coefficients *c = open_header(data, size, NULL, 0);
  if (c == NULL) return -1;
  int supported = is_supported(&c->info);
  *imcuWidth = cjpeg_coefficients_imcu_width(c);
  *imcuHeight = cjpeg_coefficients_imcu_height(c);
  cjpeg_coefficients_close(c);
  return supported;
}

cjpeg_coefficients *cjpeg_coefficients_read(const unsigned char *data, size_t size, int *unsupported,
                                            char *message, size_t messageSize) {
  *unsupported = 0;
  cjpeg_coefficients *c = open_header(data, size, message, messageSize);
  if (c == NULL) return NULL;
  if (setjmp(c->errors.jump)) {
    cjpeg_set_message(message, messageSize, c->errors.message);
    cjpeg_coefficients_close(c);
    return NULL;
  }
  if (!is_supported(&c->info)) {
    *unsupported = 1;
    cjpeg_set_message(message, messageSize, "not an 8-bit YCbCr or greyscale JPEG");
    cjpeg_coefficients_close(c);
    return NULL;
  }
  c->arrays = jpeg_read_coefficients(&c->info);
  if (c->errors.harmful) {
    cjpeg_set_message(message, messageSize, c->errors.harmfulMessage);
    cjpeg_coefficients_close(c);
    return NULL;
  }
  return c;
}

unsigned int cjpeg_coefficients_imcu_width(const cjpeg_coefficients *c) {
  return (unsigned int)(DCTSIZE * c->info.max_h_samp_factor);
}

unsigned int cjpeg_coefficients_imcu_height(const cjpeg_coefficients *c) {
  return (unsigned int)(DCTSIZE * c->info.max_v_samp_factor);
}

int cjpeg_coefficients_component_count(const cjpeg_coefficients *c) { return c->info.num_components; }

unsigned int cjpeg_coefficients_blocks_across(const cjpeg_coefficients *c, int component) {
  if (component < 0 || component >= c->info.num_components) return 0;
  return c->info.comp_info[component].width_in_blocks;
}

unsigned int cjpeg_coefficients_blocks_down(const cjpeg_coefficients *c, int component) {
  if (component < 0 || component >= c->info.num_components) return 0;
  return c->info.comp_info[component].height_in_blocks;
}

int cjpeg_coefficients_block(cjpeg_coefficients *c, int component, unsigned int row, unsigned int column,
                             short *out) {
  if (column >= cjpeg_coefficients_blocks_across(c, component) ||
      row >= cjpeg_coefficients_blocks_down(c, component))
    return -1;
  if (setjmp(c->errors.jump)) return -1;
  JBLOCKARRAY rows = (*c->info.mem->access_virt_barray)((j_common_ptr)&c->info, c->arrays[component], row, 1, FALSE);
  for (int k = 0; k < DCTSIZE2; k++) out[k] = rows[0][column][k];
  return 0;
}

int cjpeg_coefficients_is_progressive(const cjpeg_coefficients *c) { return c->info.progressive_mode ? 1 : 0; }

/* Copies the patch's blocks into the file's, component by component. The patch was made with the
   file's parameters, so its components, sampling and tables are the file's: checked, not assumed. */
static int copy_blocks(cjpeg_coefficients *c, patch_state *state, jvirt_barray_ptr *patch, unsigned int x,
                       unsigned int y, char *message, size_t messageSize) {
  struct jpeg_decompress_struct *into = &c->info, *from = &state->decompress;
  if (from->num_components != into->num_components) {
    cjpeg_set_message(message, messageSize, "the patch has other components than the file");
    return -1;
  }
  unsigned int imcuX = x / cjpeg_coefficients_imcu_width(c), imcuY = y / cjpeg_coefficients_imcu_height(c);
  for (int ci = 0; ci < into->num_components; ci++) {
    jpeg_component_info *target = &into->comp_info[ci], *source = &from->comp_info[ci];
    if (target->h_samp_factor != source->h_samp_factor || target->v_samp_factor != source->v_samp_factor ||
        target->quant_table == NULL || source->quant_table == NULL ||
        memcmp(target->quant_table->quantval, source->quant_table->quantval, sizeof(UINT16) * DCTSIZE2) != 0) {
      cjpeg_set_message(message, messageSize, "the patch has other sampling or tables than the file");
      return -1;
    }
    /* A single-component file's blocks are its iMCUs (max sampling is then that component's). */
    JDIMENSION bx = imcuX * (JDIMENSION)target->h_samp_factor, by = imcuY * (JDIMENSION)target->v_samp_factor;
    for (JDIMENSION row = 0; row < source->height_in_blocks && by + row < target->height_in_blocks; row++) {
      JBLOCKARRAY out = (*into->mem->access_virt_barray)((j_common_ptr)into, c->arrays[ci], by + row, 1, TRUE);
      JBLOCKARRAY in = (*from->mem->access_virt_barray)((j_common_ptr)from, patch[ci], row, 1, FALSE);
      JDIMENSION count = source->width_in_blocks;
      if (bx + count > target->width_in_blocks) count = target->width_in_blocks - bx;
      memcpy(out[0] + bx, in[0], sizeof(JBLOCK) * count);
    }
  }
  return 0;
}

/* Compresses `pixels` (RGBA, alpha ignored) as a JPEG of its own with the parameters of `file`
   (its quantisation tables, sampling factors and colour space) into `state`'s destination, and
   reads that JPEG's coefficients back with `state->decompress`. The caller has set the jump. */
static jvirt_barray_ptr *compress_patch(patch_state *state, struct jpeg_decompress_struct *file,
                                        const unsigned char *pixels, size_t stride, unsigned int width,
                                        unsigned int height) {
  jpeg_create_compress(&state->compress);
  state->compressCreated = 1;
  if (!start_destination(state, (size_t)width * height / 2 + 4096)) ERREXIT1(&state->compress, JERR_OUT_OF_MEMORY, 1);
  jpeg_copy_critical_parameters(file, &state->compress);
  state->compress.image_width = width;
  state->compress.image_height = height;
  state->compress.in_color_space = JCS_EXT_RGBX;
  state->compress.input_components = 4;
  state->compress.dct_method = JDCT_ISLOW;
  state->compress.write_JFIF_header = FALSE;
  jpeg_start_compress(&state->compress, TRUE);
  while (state->compress.next_scanline < height) {
    JSAMPROW row = (JSAMPROW)(pixels + (size_t)state->compress.next_scanline * stride);
    jpeg_write_scanlines(&state->compress, &row, 1);
  }
  jpeg_finish_compress(&state->compress);
  jpeg_create_decompress(&state->decompress);
  state->decompressCreated = 1;
  jpeg_mem_src(&state->decompress, state->bytes, (unsigned long)state->size);
  jpeg_read_header(&state->decompress, TRUE);
  return jpeg_read_coefficients(&state->decompress);
}

int cjpeg_coefficients_encode_patch(cjpeg_coefficients *c, const unsigned char *pixels, size_t stride,
                                    unsigned int x, unsigned int y, unsigned int width, unsigned int height,
                                    char *message, size_t messageSize) {
  unsigned int iw = cjpeg_coefficients_imcu_width(c), ih = cjpeg_coefficients_imcu_height(c);
  if (width == 0 || height == 0 || x % iw != 0 || y % ih != 0 || x + width > c->info.image_width ||
      y + height > c->info.image_height || (width % iw != 0 && x + width != c->info.image_width) ||
      (height % ih != 0 && y + height != c->info.image_height)) {
    cjpeg_set_message(message, messageSize, "a patch that is not whole iMCUs of the image");
    return -1;
  }
  patch_state *state = calloc(1, sizeof(patch_state));
  if (state == NULL) {
    cjpeg_set_message(message, messageSize, "out of memory");
    return -1;
  }
  state->compress.err = cjpeg_init_errors(&state->errors);
  state->decompress.err = &state->errors.manager;
  if (setjmp(state->errors.jump)) {
    cjpeg_set_message(message, messageSize, state->errors.message);
    patch_free(state);
    return -1;
  }
  jvirt_barray_ptr *patch = compress_patch(state, &c->info, pixels, stride, width, height);
  int result = copy_blocks(c, state, patch, x, y, message, messageSize);
  patch_free(state);
  return result;
}

/* The symbols a table codes. */
static int symbol_count(const JHUFF_TBL *table) {
  int count = 0;
  for (int length = 1; length <= 16; length++) count += table->bits[length];
  return count;
}

/* True when every Huffman table the file has codes every symbol of its class (12 DC, 162 AC), as
   the standard tables of the JPEG specification and cameras' do: libjpeg's standard tables then
   make a file of about the same size, and optimised tables would only cost a second pass. A file
   written with optimised tables codes only the symbols it uses. */
static int has_complete_tables(const struct jpeg_decompress_struct *info) {
  for (int i = 0; i < NUM_HUFF_TBLS; i++) {
    if (info->dc_huff_tbl_ptrs[i] != NULL && symbol_count(info->dc_huff_tbl_ptrs[i]) < 12) return 0;
    if (info->ac_huff_tbl_ptrs[i] != NULL && symbol_count(info->ac_huff_tbl_ptrs[i]) < 162) return 0;
  }
  return 1;
}

/* Writes the coefficients with the file's critical parameters: progressive, or baseline with a
   restart interval and optimised or standard Huffman tables. */
static unsigned char *write_coefficients(cjpeg_coefficients *c, int progressive, unsigned int restartInterval,
                                         int optimize, size_t *size, char *message, size_t messageSize) {
  patch_state *state = calloc(1, sizeof(patch_state));
  if (state == NULL) {
    cjpeg_set_message(message, messageSize, "out of memory");
    return NULL;
  }
  state->compress.err = cjpeg_init_errors(&state->errors);
  if (setjmp(state->errors.jump)) {
    cjpeg_set_message(message, messageSize, state->errors.message);
    patch_free(state);
    return NULL;
  }
  jpeg_create_compress(&state->compress);
  state->compressCreated = 1;
  if (!start_destination(state, (size_t)c->info.image_width * c->info.image_height / 4 + 65536))
    ERREXIT1(&state->compress, JERR_OUT_OF_MEMORY, 2);
  jpeg_copy_critical_parameters(&c->info, &state->compress);
  state->compress.optimize_coding = optimize ? TRUE : FALSE;
  state->compress.restart_interval = restartInterval;
  if (progressive) jpeg_simple_progression(&state->compress);
  jpeg_write_coefficients(&state->compress, c->arrays);
  jpeg_finish_compress(&state->compress);
  unsigned char *bytes = state->bytes;
  *size = state->size;
  state->bytes = NULL;
  patch_free(state);
  return bytes;
}

unsigned char *cjpeg_coefficients_write(cjpeg_coefficients *c, int progressive, size_t *size, char *message,
                                        size_t messageSize) {
  int optimize = progressive || !has_complete_tables(&c->info) || c->info.arith_code;
  return write_coefficients(c, progressive, 0, optimize, size, message, messageSize);
}

unsigned char *cjpeg_coefficients_write_baseline(cjpeg_coefficients *c, unsigned int restartInterval, int optimize,
                                                 size_t *size, char *message, size_t messageSize) {
  if (restartInterval > 65535) {
    cjpeg_set_message(message, messageSize, "a restart interval over 65535 MCUs");
    return NULL;
  }
  return write_coefficients(c, 0, restartInterval, optimize, size, message, messageSize);
}

/* What compressing a patch with a file's parameters holds: the file's header is read by a
   decompressor of its own. `patch` first, so that the destination's client data (the patch) and
   the allocation are one pointer. */
typedef struct {
  patch_state patch;
  struct jpeg_decompress_struct source;
  int sourceCreated;
} blocks_state;

static void blocks_free(blocks_state *state) {
  if (state->sourceCreated) jpeg_destroy_decompress(&state->source);
  patch_free(&state->patch);
}

int cjpeg_patch_blocks(const unsigned char *jpeg, size_t size, const unsigned char *pixels, size_t stride,
                       unsigned int width, unsigned int height, short *blocks, size_t blockCapacity,
                       size_t *blockCount, char *message, size_t messageSize) {
  *blockCount = 0;
  if (width == 0 || height == 0) {
    cjpeg_set_message(message, messageSize, "an empty patch");
    return -1;
  }
  blocks_state *state = calloc(1, sizeof(blocks_state));
  if (state == NULL) {
    cjpeg_set_message(message, messageSize, "out of memory");
    return -1;
  }
  patch_state *patch = &state->patch;
  state->source.err = cjpeg_init_errors(&patch->errors);
  patch->compress.err = &patch->errors.manager;
  patch->decompress.err = &patch->errors.manager;
  if (setjmp(patch->errors.jump)) {
    cjpeg_set_message(message, messageSize, patch->errors.message);
    blocks_free(state);
    return -1;
  }
  /* The file's parameters, from its header alone. */
  jpeg_create_decompress(&state->source);
  state->sourceCreated = 1;
  jpeg_mem_src(&state->source, jpeg, (unsigned long)size);
  jpeg_read_header(&state->source, TRUE);
  if (!is_supported(&state->source)) {
    cjpeg_set_message(message, messageSize, "not an 8-bit YCbCr or greyscale JPEG");
    blocks_free(state);
    return -1;
  }
  jvirt_barray_ptr *arrays = compress_patch(patch, &state->source, pixels, stride, width, height);
  struct jpeg_decompress_struct *from = &patch->decompress;
  int single = from->num_components == 1;
  /* A single-component scan's MCU is one block; an interleaved one's is every component's
     h x v blocks. */
  size_t perMCU = 0;
  for (int ci = 0; ci < from->num_components; ci++)
    perMCU += single ? 1 : (size_t)from->comp_info[ci].h_samp_factor * from->comp_info[ci].v_samp_factor;
  JDIMENSION across, down;
  if (single) {
    across = from->comp_info[0].width_in_blocks;
    down = from->comp_info[0].height_in_blocks;
  } else {
    across = from->MCUs_per_row;
    down = from->total_iMCU_rows;
  }
  size_t needed = (size_t)across * down * perMCU;
  *blockCount = needed;
  if (needed > blockCapacity) {
    cjpeg_set_message(message, messageSize, "the block buffer is too small for the patch");
    blocks_free(state);
    return -1;
  }
  short *out = blocks;
  for (JDIMENSION my = 0; my < down; my++) {
    for (JDIMENSION mx = 0; mx < across; mx++) {
      for (int ci = 0; ci < from->num_components; ci++) {
        jpeg_component_info *comp = &from->comp_info[ci];
        int h = single ? 1 : comp->h_samp_factor, v = single ? 1 : comp->v_samp_factor;
        for (int by = 0; by < v; by++) {
          /* Rows of the coefficient arrays are padded to whole MCUs. */
          JBLOCKARRAY row = (*from->mem->access_virt_barray)((j_common_ptr)from, arrays[ci],
                                                              my * (JDIMENSION)v + (JDIMENSION)by, 1, FALSE);
          for (int bx = 0; bx < h; bx++) {
            const JCOEF *block = row[0][mx * (JDIMENSION)h + (JDIMENSION)bx];
            for (int k = 0; k < DCTSIZE2; k++) out[k] = block[k];
            out += DCTSIZE2;
          }
        }
      }
    }
  }
  blocks_free(state);
  return 0;
}

void cjpeg_free(unsigned char *bytes) { free(bytes); }

void cjpeg_coefficients_close(cjpeg_coefficients *c) {
  if (c == NULL) return;
  if (c->created) jpeg_destroy_decompress(&c->info);
  free(c);
}
