#ifndef CLIBCURL_SHIM_H
#define CLIBCURL_SHIM_H
/* libcurl's headers, for its types and constants only: libcurl itself is opened with dlopen
   by the CCurl shim, never linked. */
#include <curl/curl.h>
#endif
