// Writes a progressive JPEG whose first scan (the DC of every component, interleaved) is repeated
// SCANS times: the costliest work per byte a JPEG can ask of libjpeg, since every scan is a pass
// over every block of its components while a flat picture's arithmetic-coded DC scan takes a few
// bytes. libjpeg warns about the repeated scans (JWRN_BOGUS_PROGRESSION) and decodes them all.
//
//   cc scripts/jpeg-scans.c -ljpeg -o jpeg-scans
//   jpeg-scans [-a] [-c COMPONENTS] [-s] [-r ROWS] WIDTH HEIGHT SCANS > out.jpg
//     -a  arithmetic coding (else Huffman)    -c  1 (grey) or 3 (YCbCr 4:2:0; with -s 4:4:4)
//     -s  no chroma subsampling               -r  a restart marker every ROWS MCU rows
//   jpeg-scans -p [-c COMPONENTS] [-s] [-r ROWS] WIDTH HEIGHT > out.jpg
//     jpeg_simple_progression's standard script instead, over a noisy picture (a legitimate file)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

int main(int argc, char **argv) {
    int arith = 0, components = 1, standard = 0, full = 0, restart = 0, opt;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        opt = argv[i][1];
        if (opt == 'a') arith = 1;
        else if (opt == 'p') standard = 1;
        else if (opt == 's') full = 1;
        else if (opt == 'c' && i + 1 < argc) components = atoi(argv[++i]);
        else if (opt == 'r' && i + 1 < argc) restart = atoi(argv[++i]);
        else { fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
    }
    if (argc - i < (standard ? 2 : 3) || (components != 1 && components != 3)) {
        fprintf(stderr, "usage: jpeg-scans [-a] [-c 1|3] [-s] WIDTH HEIGHT SCANS | -p [-c 1|3] [-s] WIDTH HEIGHT\n");
        return 2;
    }
    long width = atol(argv[i]), height = atol(argv[i + 1]);
    long scans = standard ? 1 : atol(argv[i + 2]);
    if (width < 1 || width > 65500 || height < 1 || height > 65500 || scans < 1) return 2;

    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr error;
    cinfo.err = jpeg_std_error(&error);
    jpeg_create_compress(&cinfo);
    unsigned char *out = NULL;
    unsigned long length = 0;
    jpeg_mem_dest(&cinfo, &out, &length);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 90, TRUE);
    if (full && components == 3) {
        cinfo.comp_info[0].h_samp_factor = cinfo.comp_info[0].v_samp_factor = 1;
    }
    cinfo.arith_code = arith ? TRUE : FALSE;
    cinfo.restart_in_rows = restart;
    static jpeg_scan_info dc;
    if (standard) {
        jpeg_simple_progression(&cinfo);
    } else {
        // One DC scan of every component: progressive mode needs no AC data.
        dc.comps_in_scan = components;
        for (int c = 0; c < components; c++) dc.component_index[c] = c;
        dc.Ss = dc.Se = dc.Ah = dc.Al = 0;
        cinfo.scan_info = &dc;
        cinfo.num_scans = 1;
    }
    jpeg_start_compress(&cinfo, TRUE);
    unsigned char *row = malloc((size_t)width * components);
    unsigned int seed = 1;
    while (cinfo.next_scanline < cinfo.image_height) {
        for (long x = 0; x < width * components; x++) {
            seed = seed * 1103515245u + 12345u;
            row[x] = standard ? (unsigned char)(seed >> 16) : 128;
        }
        JSAMPROW rows[1] = { row };
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);

    // The header up to the first SOS, that scan (SOS to EOI) SCANS times, then EOI.
    unsigned long sos = 2;
    while (sos + 3 < length && !(out[sos] == 0xFF && out[sos + 1] == 0xDA)) {
        sos += 2 + ((unsigned long)out[sos + 2] << 8 | out[sos + 3]);
    }
    if (sos + 3 >= length || out[length - 2] != 0xFF || out[length - 1] != 0xD9) return 1;
    fwrite(out, 1, sos, stdout);
    for (long s = 0; s < scans; s++) fwrite(out + sos, 1, length - 2 - sos, stdout);
    fwrite(out + length - 2, 1, 2, stdout);
    jpeg_destroy_compress(&cinfo);
    free(out);
    free(row);
    return 0;
}
