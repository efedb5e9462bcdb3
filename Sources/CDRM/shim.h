#ifndef TICKERBOARD_CDRM_SHIM_H
#define TICKERBOARD_CDRM_SHIM_H
// libdrm's headers include <drm.h> unqualified; pkg-config's libdrm cflags add its directory.
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>

// Swift does not import function-like macros; re-export the values we need.
static const uint32_t tb_drm_format_xrgb8888 = DRM_FORMAT_XRGB8888;
#endif
