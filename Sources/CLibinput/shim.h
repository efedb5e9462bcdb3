#ifndef TICKERBOARD_CLIBINPUT_SHIM_H
#define TICKERBOARD_CLIBINPUT_SHIM_H
#include <libinput.h>
#include <libudev.h>
#endif
