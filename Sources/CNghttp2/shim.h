#ifndef SQUALL_CNGHTTP2_SHIM_H
#define SQUALL_CNGHTTP2_SHIM_H
/* libnghttp2: HTTP/2 framing, HPACK and flow control (RFC 9113, RFC 7541). It does no I/O and reads no clock:
   bytes go in through nghttp2_session_mem_recv and come out through nghttp2_session_mem_send. */
#include <nghttp2/nghttp2.h>
#endif
