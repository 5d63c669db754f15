#ifndef CLIBVIPS_SHIM_H
#define CLIBVIPS_SHIM_H
/* libvips's headers, for its types and macros only: libvips itself is opened with dlopen by
   the CVips shim, never linked. GLib and GObject are linked (pkg-config gobject-2.0). */
#include <vips/vips.h>
#endif
