#ifndef SPLASHD_CCHAFA_SHIM_H
#define SPLASHD_CCHAFA_SHIM_H
// libchafa 1.12 (Debian 12): terminal graphics from pixels. No function is variadic, so Swift calls
// them directly; only <chafa.h> is included, as its pkg-config file asks.
#include <chafa.h>
#endif
