#ifndef CLIBSPNG_SHIM_H
#define CLIBSPNG_SHIM_H
#include <spng.h>
#endif
