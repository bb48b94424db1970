#ifndef CJPEG_ERRORS_H
#define CJPEG_ERRORS_H

/* libjpeg's error manager for the shim's files: errors longjmp back into the C function that
   called libjpeg (never through a Swift frame); warnings are sorted into harmless ones and the
   first that means damaged data. */

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>

#include <jpeglib.h>

#define MAX_WARNINGS 16

/* libjpeg's error manager first, so that a j_common_ptr's err is one of these. */
typedef struct {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  /* Harmless warnings (the first MAX_WARNINGS kept), and the first harmful one. */
  int warningCount;
  char warnings[MAX_WARNINGS][JMSG_LENGTH_MAX];
  int harmful;
  char harmfulMessage[JMSG_LENGTH_MAX];
} cjpeg_errors;

/* Copies `text` into `message`, cut to `messageSize` bytes with its terminator. */
void cjpeg_set_message(char *message, size_t messageSize, const char *text);

/* Points `err` (a decompress or compress struct's) at `errors`, with the shim's handlers. */
struct jpeg_error_mgr *cjpeg_init_errors(cjpeg_errors *errors);

#endif
