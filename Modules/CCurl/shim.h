#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call. These typed
// wrappers fix the type of the last argument; each is named after the kind of value it passes. Every symbol here is
// prefixed with CCurl_ so that nothing clashes with other modules that wrap libcurl.

static inline CURLcode CCurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
  return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
static inline CURLcode CCurl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value) {
  return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_READFUNCTION.
static inline CURLcode CCurl_easy_setopt_read_function(CURL *handle, CURLoption option, curl_read_callback value) {
  return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_SEEKFUNCTION.
static inline CURLcode CCurl_easy_setopt_seek_function(CURL *handle, CURLoption option, curl_seek_callback value) {
  return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_SOCKOPTFUNCTION.
static inline CURLcode CCurl_easy_setopt_sockopt_function(CURL *handle, CURLoption option,
                                                         curl_sockopt_callback value) {
  return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_OPENSOCKETFUNCTION (the connection policy's check of every address connected to).
static inline CURLcode CCurl_easy_setopt_opensocket_function(CURL *handle, CURLoption option,
                                                            curl_opensocket_callback value) {
  return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_PREREQFUNCTION.
static inline CURLcode CCurl_easy_setopt_prereq_function(CURL *handle, CURLoption option,
                                                        curl_prereq_callback value) {
  return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_XFERINFOFUNCTION.
static inline CURLcode CCurl_easy_setopt_xferinfo_function(CURL *handle, CURLoption option,
                                                          curl_xferinfo_callback value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode CCurl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
  return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode CCurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
  return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode CCurl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
  return curl_easy_getinfo(handle, info, value);
}

/// For CURLINFO_PRIVATE, which is declared as a string but hands back the pointer given to CURLOPT_PRIVATE.
static inline CURLcode CCurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
  return curl_easy_getinfo(handle, info, (char **)value);
}

static inline CURLMcode CCurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
  return curl_multi_setopt(handle, option, value);
}

static inline CURLMcode CCurl_multi_setopt_pointer(CURLM *handle, CURLMoption option, void *value) {
  return curl_multi_setopt(handle, option, value);
}

/// Macros that Swift does not import.
static const long CCurl_GLOBAL_ALL = CURL_GLOBAL_ALL;
static const long CCurl_PIPE_MULTIPLEX = CURLPIPE_MULTIPLEX;
static const int CCurl_PAUSE_RECV = CURLPAUSE_RECV;
static const int CCurl_PAUSE_SEND = CURLPAUSE_SEND;
static const int CCurl_PAUSE_CONT = CURLPAUSE_CONT;
static const size_t CCurl_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE;
static const size_t CCurl_READFUNC_PAUSE = CURL_READFUNC_PAUSE;
static const size_t CCurl_READFUNC_ABORT = CURL_READFUNC_ABORT;
static const int CCurl_SEEKFUNC_OK = CURL_SEEKFUNC_OK;
static const int CCurl_SEEKFUNC_FAIL = CURL_SEEKFUNC_FAIL;
static const int CCurl_SEEKFUNC_CANTSEEK = CURL_SEEKFUNC_CANTSEEK;
static const int CCurl_PREREQFUNC_OK = CURL_PREREQFUNC_OK;
static const int CCurl_PREREQFUNC_ABORT = CURL_PREREQFUNC_ABORT;
static const size_t CCurl_ERROR_SIZE = CURL_ERROR_SIZE;

/// The fields of a CURLMsg, which holds a union Swift reads awkwardly.
static inline int CCurl_msg_is_done(const CURLMsg *message) {
  return message->msg == CURLMSG_DONE;
}

static inline CURL *CCurl_msg_easy_handle(const CURLMsg *message) {
  return message->easy_handle;
}

static inline CURLcode CCurl_msg_result(const CURLMsg *message) {
  return message->data.result;
}

/// Names the calling thread (the loop thread shows up as `malibu-curl` in debuggers and /proc).
static inline void CCurl_set_thread_name(const char *name) {
#ifdef __linux__
  prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
#else
  (void)name;
#endif
}

#endif
