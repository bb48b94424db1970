#include "cjpeg_errors.h"

#include <string.h>

#include <jerror.h>

void cjpeg_set_message(char *message, size_t messageSize, const char *text) {
  if (message == NULL || messageSize == 0) return;
  strncpy(message, text, messageSize - 1);
  message[messageSize - 1] = '\0';
}

static void on_error(j_common_ptr info) {
  cjpeg_errors *errors = (cjpeg_errors *)info->err;
  (*info->err->format_message)(info, errors->message);
  longjmp(errors->jump, 1);
}

/* The warnings that leave the pixels intact; every other warning means damaged data, which
   libjpeg decodes into grey or garbled rows. Swift's JPEGCodec.harmlessWarnings lists the same
   four by their text, for TurboJPEG, which reports only the first warning's text. */
static int is_harmless(int code) {
  return code == JWRN_EXTRANEOUS_DATA || code == JWRN_ADOBE_XFORM || code == JWRN_JFIF_MAJOR ||
         code == JWRN_BOGUS_ICC;
}

/* Level -1 is a warning (corrupt data, a premature end); higher levels are trace messages. */
static void on_message(j_common_ptr info, int level) {
  cjpeg_errors *errors = (cjpeg_errors *)info->err;
  if (level >= 0) return;
  info->err->num_warnings += 1;
  if (!is_harmless(info->err->msg_code)) {
    if (!errors->harmful) (*info->err->format_message)(info, errors->harmfulMessage);
    errors->harmful = 1;
    return;
  }
  if (errors->warningCount < MAX_WARNINGS) {
    (*info->err->format_message)(info, errors->warnings[errors->warningCount]);
    errors->warningCount += 1;
  }
}

struct jpeg_error_mgr *cjpeg_init_errors(cjpeg_errors *errors) {
  struct jpeg_error_mgr *manager = jpeg_std_error(&errors->manager);
  errors->manager.error_exit = on_error;
  errors->manager.emit_message = on_message;
  return manager;
}
