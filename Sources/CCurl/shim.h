#ifndef TICKERBOARD_CCURL_SHIM_H
#define TICKERBOARD_CCURL_SHIM_H
// libcurl for the fetcher. curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call; these typed wrappers are the only way the Swift side sets options or reads results.
#include <curl/curl.h>

typedef size_t (*tb_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode tb_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode tb_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode tb_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode tb_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode tb_curl_set_data_callback(CURL *handle, CURLoption option, tb_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode tb_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
#endif
