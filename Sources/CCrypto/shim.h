#ifndef SPLASHD_CCRYPTO_SHIM_H
#define SPLASHD_CCRYPTO_SHIM_H
// OpenSSL's libcrypto, for SHA-256 only: its assembly implementation hashes a downloaded photo many
// times faster than portable code (the benchmark found hashing at 43 % of a pull's CPU before).
#include <openssl/evp.h>
#endif
