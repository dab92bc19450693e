#ifndef SPLASHD_CCURL_SHIM_H
#define SPLASHD_CCURL_SHIM_H
#include <curl/curl.h>
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic; Swift cannot call C varargs,
// so each argument type gets a typed inline wrapper.
static inline CURLcode splashd_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode splashd_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode splashd_easy_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode splashd_easy_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode splashd_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode splashd_easy_setopt_write_cb(CURL *h, size_t (*cb)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, cb); }
static inline CURLcode splashd_easy_setopt_header_cb(CURL *h, size_t (*cb)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, cb); }
static inline CURLcode splashd_easy_setopt_seek_cb(CURL *h, int (*cb)(void *, curl_off_t, int)) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, cb); }
static inline CURLcode splashd_easy_setopt_read_cb(CURL *h, size_t (*cb)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, cb); }
static inline CURLcode splashd_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode splashd_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode splashd_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode splashd_easy_getinfo_str(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode splashd_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
// CURL_GLOBAL_DEFAULT is a composite macro that Swift does not import.
static inline CURLcode splashd_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
// CURLMsg.data is an anonymous union; reading it here keeps the Swift side free of union layout details.
static inline CURLcode splashd_msg_result(const CURLMsg *m) { return m->data.result; }
static inline int splashd_msg_is_done(const CURLMsg *m) { return m->msg == CURLMSG_DONE; }
#endif
