#ifndef TICKERBOARD_CLINUX_SHIM_H
#define TICKERBOARD_CLINUX_SHIM_H
// Linux headers that the toolchain's Glibc module leaves out.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/inotify.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <linux/fb.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <linux/input.h>
#include <unistd.h>
#include <malloc.h>
#endif
