#ifndef CSIXEL_SHIM_H
#define CSIXEL_SHIM_H
/* libsixel (Debian libsixel-dev): the sixel encoder. Its API is plain C without variadics, so
   Swift calls it directly; this header only pulls it in (libsixel.pc's -I points into
   /usr/include/sixel). */
#include <sixel.h>
#endif
