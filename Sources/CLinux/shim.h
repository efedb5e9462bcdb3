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
#include <linux/cec.h>
#include <unistd.h>
#include <malloc.h>

// The CEC ioctls are function-like _IOWR macros, which Swift does not import.
static const unsigned long tb_cec_adap_g_caps = CEC_ADAP_G_CAPS;
static const unsigned long tb_cec_adap_g_phys_addr = CEC_ADAP_G_PHYS_ADDR;
static const unsigned long tb_cec_adap_g_log_addrs = CEC_ADAP_G_LOG_ADDRS;
static const unsigned long tb_cec_adap_s_log_addrs = CEC_ADAP_S_LOG_ADDRS;
static const unsigned long tb_cec_transmit = CEC_TRANSMIT;
static const unsigned long tb_cec_receive = CEC_RECEIVE;
static const unsigned long tb_cec_dqevent = CEC_DQEVENT;
static const unsigned long tb_cec_s_mode = CEC_S_MODE;
#endif
