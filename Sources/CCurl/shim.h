// Typed, non-variadic wrappers around libcurl for Swift.
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, so Swift cannot call them.
// Each wrapper below fixes one C argument type; passing an `int` where curl reads a `long` or a
// `curl_off_t` is undefined behaviour, which is exactly what these wrappers rule out.
#ifndef FERRY_CCURL_SHIM_H
#define FERRY_CCURL_SHIM_H

#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <unistd.h>

// MARK: callback types

typedef size_t (*ferry_data_callback)(char *_Nonnull ptr, size_t size, size_t nmemb, void *_Nullable userdata);
typedef int (*ferry_xferinfo_callback)(void *_Nullable clientp, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);
typedef int (*ferry_seek_callback)(void *_Nullable userp, curl_off_t offset, int origin);
typedef curl_socket_t (*ferry_opensocket_callback)(void *_Nullable clientp, curlsocktype purpose,
                                                   struct curl_sockaddr *_Nonnull address);
typedef int (*ferry_socket_callback)(CURL *_Nonnull easy, curl_socket_t s, int what, void *_Nullable userp,
                                     void *_Nullable socketp);
typedef int (*ferry_timer_callback)(CURLM *_Nonnull multi, long timeout_ms, void *_Nullable userp);

// MARK: easy setopt

static inline CURLcode ferry_easy_setopt_long(CURL *_Nonnull h, CURLoption o, long v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode ferry_easy_setopt_off(CURL *_Nonnull h, CURLoption o, curl_off_t v) {
    return curl_easy_setopt(h, o, v);
}
// curl copies string arguments (all but CURLOPT_POSTFIELDS, which Ferry never uses).
static inline CURLcode ferry_easy_setopt_string(CURL *_Nonnull h, CURLoption o, const char *_Nullable v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode ferry_easy_setopt_pointer(CURL *_Nonnull h, CURLoption o, void *_Nullable v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode ferry_easy_setopt_slist(CURL *_Nonnull h, CURLoption o, struct curl_slist *_Nullable v) {
    return curl_easy_setopt(h, o, v);
}
// A blob option (e.g. CURLOPT_CAINFO_BLOB); curl copies the bytes.
static inline CURLcode ferry_easy_setopt_blob(CURL *_Nonnull h, CURLoption o, void *_Nonnull data, size_t len) {
    struct curl_blob blob;
    blob.data = data;
    blob.len = len;
    blob.flags = CURL_BLOB_COPY;
    return curl_easy_setopt(h, o, &blob);
}
// WRITEFUNCTION, HEADERFUNCTION and READFUNCTION share this signature.
static inline CURLcode ferry_easy_setopt_data_callback(CURL *_Nonnull h, CURLoption o, ferry_data_callback _Nullable cb) {
    return curl_easy_setopt(h, o, cb);
}
static inline CURLcode ferry_easy_setopt_xferinfo_callback(CURL *_Nonnull h, ferry_xferinfo_callback _Nullable cb) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}
static inline CURLcode ferry_easy_setopt_opensocket_callback(CURL *_Nonnull h, ferry_opensocket_callback _Nullable cb) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, cb);
}
static inline CURLcode ferry_easy_setopt_seek_callback(CURL *_Nonnull h, ferry_seek_callback _Nullable cb) {
    return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, cb);
}

// MARK: easy getinfo

static inline CURLcode ferry_easy_getinfo_long(CURL *_Nonnull h, CURLINFO i, long *_Nonnull out) {
    return curl_easy_getinfo(h, i, out);
}
static inline CURLcode ferry_easy_getinfo_off(CURL *_Nonnull h, CURLINFO i, curl_off_t *_Nonnull out) {
    return curl_easy_getinfo(h, i, out);
}
static inline CURLcode ferry_easy_getinfo_string(CURL *_Nonnull h, CURLINFO i, char *_Nullable *_Nonnull out) {
    return curl_easy_getinfo(h, i, out);
}

// MARK: multi

static inline CURLMcode ferry_multi_setopt_long(CURLM *_Nonnull m, CURLMoption o, long v) {
    return curl_multi_setopt(m, o, v);
}
static inline CURLMcode ferry_multi_setopt_pointer(CURLM *_Nonnull m, CURLMoption o, void *_Nullable v) {
    return curl_multi_setopt(m, o, v);
}
static inline CURLMcode ferry_multi_setopt_socket_callback(CURLM *_Nonnull m, ferry_socket_callback _Nullable cb) {
    return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, cb);
}
static inline CURLMcode ferry_multi_setopt_timer_callback(CURLM *_Nonnull m, ferry_timer_callback _Nullable cb) {
    return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, cb);
}
// The next finished transfer, or NULL. `result` is only meaningful when a handle is returned.
static inline CURL *_Nullable ferry_multi_next_done(CURLM *_Nonnull m, CURLcode *_Nonnull result) {
    int queued = 0;
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(m, &queued)) != NULL) {
        if (msg->msg == CURLMSG_DONE) {
            *result = msg->data.result;
            return msg->easy_handle;
        }
    }
    return NULL;
}

// Runs every transfer and re-registers every socket it waits on (curl's singlesocket for all handles).
// Deprecated for event loops, but it is the one call that repairs a socket registration curl failed to
// report through CURLMOPT_SOCKETFUNCTION; the loop calls it as a slow safety sweep, never per event.
static inline CURLMcode ferry_multi_sweep_all(CURLM *_Nonnull m, int *_Nonnull running) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    return curl_multi_socket_all(m, running);
#pragma clang diagnostic pop
}

// MARK: sockets for CURLOPT_OPENSOCKETFUNCTION

// The address curl is about to connect to: fills `bytes` (4 or 16) and `port`; returns 4, 6 or 0 for
// other families. `addr` is declared as a plain sockaddr but curl allocates room for IPv6.
static inline int ferry_sockaddr_inspect(const struct curl_sockaddr *_Nonnull address, uint8_t *_Nonnull bytes,
                                         int *_Nonnull port) {
    if (address->family == AF_INET) {
        const struct sockaddr_in *in4 = (const struct sockaddr_in *)&address->addr;
        memcpy(bytes, &in4->sin_addr, 4);
        *port = ntohs(in4->sin_port);
        return 4;
    }
    if (address->family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&address->addr;
        memcpy(bytes, &in6->sin6_addr, 16);
        *port = ntohs(in6->sin6_port);
        return 6;
    }
    return 0;
}

// Opens the socket curl asked for, close-on-exec so child processes never inherit it.
static inline curl_socket_t ferry_open_socket(const struct curl_sockaddr *_Nonnull address) {
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

static const curl_socket_t FERRY_SOCKET_BAD = CURL_SOCKET_BAD;

// MARK: constants that are macros in curl.h (Swift does not import function-like or composite macros)

static const long FERRY_CURLPAUSE_RECV = CURLPAUSE_RECV;
static const long FERRY_CURLPAUSE_SEND = CURLPAUSE_SEND;
static const long FERRY_CURLPAUSE_ALL = CURLPAUSE_ALL;
static const long FERRY_CURLPAUSE_CONT = CURLPAUSE_CONT;
static const size_t FERRY_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE;
static const size_t FERRY_READFUNC_PAUSE = CURL_READFUNC_PAUSE;
static const size_t FERRY_READFUNC_ABORT = CURL_READFUNC_ABORT;
static const curl_socket_t FERRY_SOCKET_TIMEOUT = CURL_SOCKET_TIMEOUT;
static const int FERRY_CSELECT_IN = CURL_CSELECT_IN;
static const int FERRY_CSELECT_OUT = CURL_CSELECT_OUT;
static const int FERRY_CSELECT_ERR = CURL_CSELECT_ERR;
static const long FERRY_GLOBAL_DEFAULT = CURL_GLOBAL_DEFAULT;

// MARK: epoll (epoll_event is packed on x86_64, which Swift imports poorly; keep it on the C side)

static inline int ferry_epoll_update(int epfd, int op, int fd, uint32_t events) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.fd = fd;
    return epoll_ctl(epfd, op, fd, &ev);
}

// Waits for readiness; fills parallel arrays of descriptors and event masks. Returns the count or -1.
static inline int ferry_epoll_wait(int epfd, int *_Nonnull fds, uint32_t *_Nonnull masks, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int n = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < n; i++) {
        fds[i] = events[i].data.fd;
        masks[i] = events[i].events;
    }
    return n;
}

static inline int ferry_errno(void) { return errno; }

#endif
