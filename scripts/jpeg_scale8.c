/* The decode limit for `vitrine render` of a JPEG (docs/PERFORMANCE.md, "Render speed"): what
   `djpeg -scale 1/8 -outfile /dev/null FILE` does, for machines without libjpeg-turbo-progs.
   Reads FILE, decodes it with libjpeg-turbo at 1/8 scale to RGB scanlines and drops them.
     cc -O2 -o jpeg_scale8 scripts/jpeg_scale8.c -ljpeg && ./jpeg_scale8 FILE
   Exit status 0 on success, 1 on a decode error (printed by libjpeg), 2 on usage. */
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: jpeg_scale8 FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr jerr;
    cinfo.err = jpeg_std_error(&jerr);  /* error_exit prints and exits */
    jpeg_create_decompress(&cinfo);
    jpeg_stdio_src(&cinfo, f);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = 8;
    jpeg_start_decompress(&cinfo);
    JSAMPROW row = malloc((size_t)cinfo.output_width * cinfo.output_components);
    unsigned long sum = 0;
    while (cinfo.output_scanline < cinfo.output_height) {
        jpeg_read_scanlines(&cinfo, &row, 1);
        sum += row[0];
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    fclose(f);
    free(row);
    return sum == (unsigned long)-1;  /* keeps the loop from being optimised away */
}
