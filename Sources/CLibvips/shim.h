#ifndef CLIBVIPS_SHIM_H
#define CLIBVIPS_SHIM_H
/* libvips's headers, for its types and macros only: libvips, GLib and GObject are opened with
   dlopen by the CVips shim, never linked. */
#include <vips/vips.h>
#endif
