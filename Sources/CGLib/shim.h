#ifndef SPLASHD_CGLIB_SHIM_H
#define SPLASHD_CGLIB_SHIM_H
// GLib's headers, for CVips: <vips/vips.h> needs them (its pkg-config flags), and this module brings them
// without libvips' own link flags, which would load libvips and its 65 libraries at every start. GLib
// itself is loaded anyway: libchafa needs it.
#include <glib.h>
#endif
