#ifndef TICKERBOARD_CPNG_SHIM_H
#define TICKERBOARD_CPNG_SHIM_H
// Only libpng's simplified API (png_image_*) is used: no setjmp/longjmp reaches Swift.
#include <png.h>
#endif
