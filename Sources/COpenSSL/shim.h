#ifndef SQUALL_COPENSSL_SHIM_H
#define SQUALL_COPENSSL_SHIM_H
/* OpenSSL 3.0 function-like macros and macro constants, wrapped so Swift can call them. */
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>

static inline long shim_SSL_CTX_set_mode(SSL_CTX *c, long m) { return SSL_CTX_set_mode(c, m); }
static inline long shim_SSL_set_mode(SSL *s, long m) { return SSL_set_mode(s, m); }
static inline void shim_SSL_CTX_set_read_ahead(SSL_CTX *c, int yes) { SSL_CTX_set_read_ahead(c, yes); }
static inline int shim_SSL_CTX_set_min_proto_version(SSL_CTX *c, int v) { return (int)SSL_CTX_set_min_proto_version(c, v); }
static inline int shim_SSL_CTX_set_max_proto_version(SSL_CTX *c, int v) { return (int)SSL_CTX_set_max_proto_version(c, v); }
static inline int shim_SSL_set_tlsext_host_name(SSL *s, const char *n) { return (int)SSL_set_tlsext_host_name(s, n); }
static inline int shim_SSL_CTX_set1_groups_list(SSL_CTX *c, const char *l) { return (int)SSL_CTX_set1_groups_list(c, l); }
static inline int shim_SSL_CTX_set_max_send_fragment(SSL_CTX *c, long n) { return (int)SSL_CTX_set_max_send_fragment(c, n); }
static inline long shim_BIO_get_mem_ptr(BIO *b, BUF_MEM **pp) { return BIO_get_mem_ptr(b, pp); }
static inline long shim_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline size_t shim_BIO_pending(BIO *b) { return BIO_pending(b); }
static inline void shim_OPENSSL_free(void *p) { OPENSSL_free(p); }
static inline int shim_SSL_set_app_data(SSL *s, void *d) { return SSL_set_app_data(s, d); }
static inline void *shim_SSL_get_app_data(const SSL *s) { return SSL_get_app_data(s); }
static inline int shim_SSL_CTX_add_extra_chain_cert(SSL_CTX *c, X509 *x) { return (int)SSL_CTX_add_extra_chain_cert(c, x); }
static inline uint64_t shim_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline uint64_t shim_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }
static inline uint64_t shim_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t shim_SSL_OP_IGNORE_UNEXPECTED_EOF(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }
static inline EVP_PKEY *shim_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }
static inline EVP_PKEY *shim_EVP_RSA_gen(unsigned int bits) { return EVP_RSA_gen(bits); }
static inline int shim_OPENSSL_sk_num_X509(STACK_OF(X509) *s) { return sk_X509_num(s); }
typedef int (*shim_servername_cb)(SSL *, int *, void *);
static inline long shim_SSL_CTX_set_tlsext_servername_callback(SSL_CTX *c, shim_servername_cb cb) {
    return SSL_CTX_set_tlsext_servername_callback(c, cb);
}
static inline long shim_SSL_CTX_set_tlsext_servername_arg(SSL_CTX *c, void *arg) {
    return SSL_CTX_set_tlsext_servername_arg(c, arg);
}
static inline int shim_SSL_CTX_set_app_data(SSL_CTX *c, void *d) { return SSL_CTX_set_app_data(c, d); }
static inline void *shim_SSL_CTX_get_app_data(const SSL_CTX *c) { return SSL_CTX_get_app_data(c); }
/* Added for TLSKit. */
static inline unsigned long shim_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }
#endif
