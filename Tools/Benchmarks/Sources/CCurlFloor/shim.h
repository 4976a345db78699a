#ifndef CCURLFLOOR_SHIM_H
#define CCURLFLOOR_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: typed wrappers for the few options
// the floor client sets. Prefixed so that nothing clashes with the library's own CCurl module.

static inline CURLcode Floor_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode Floor_setopt_string(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode Floor_setopt_pointer(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode Floor_setopt_write_function(CURL *handle, curl_write_callback value) {
  return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, value);
}

static inline long Floor_response_code(CURL *handle) {
  long code = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
  return code;
}

static inline void *Floor_private(CURL *handle) {
  char *value = NULL;
  curl_easy_getinfo(handle, CURLINFO_PRIVATE, &value);
  return value;
}

#endif
