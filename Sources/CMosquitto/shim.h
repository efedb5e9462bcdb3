#ifndef TICKERBOARD_CMOSQUITTO_SHIM_H
#define TICKERBOARD_CMOSQUITTO_SHIM_H
// Debian's libmosquitto (MQTT 3.1.1/5 client, TLS through OpenSSL): for tickerboard-mqtt only.
#include <mosquitto.h>
// An anonymous in-memory file for a screenshot the daemon writes (declared under _GNU_SOURCE only).
extern int memfd_create(const char *name, unsigned int flags);
static inline int tb_memfd(const char *name) { return memfd_create(name, 1u /* MFD_CLOEXEC */); }
#endif
