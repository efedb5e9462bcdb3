#ifndef TICKERBOARD_CMOSQUITTO_SHIM_H
#define TICKERBOARD_CMOSQUITTO_SHIM_H
// Debian's libmosquitto (MQTT 3.1.1/5 client, TLS through OpenSSL): for tickerboard-mqtt only.
#include <mosquitto.h>
#endif
