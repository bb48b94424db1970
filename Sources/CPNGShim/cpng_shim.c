#include "cpng_shim.h"
#include <png.h>
int cpng_shim_version(void) { return PNG_LIBPNG_VER; }
