#ifndef CLIBJPEG_SHIM_H
#define CLIBJPEG_SHIM_H
/* jpeglib.h needs FILE and size_t declared first. */
#include <stdio.h>
#include <jpeglib.h>
#endif
