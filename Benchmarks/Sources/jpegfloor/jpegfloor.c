// The JPEG floor, in process: libjpeg-turbo alone decoding files at k/8 as MagickIO's rows ask it
// to (RGB, ISLOW, fancy upsampling), on N threads taking files in turn, each file read into
// memory first. No resize, no encode, no output: what any thumbnailer built on libjpeg-turbo must
// at least spend.
//
//   jpegfloor K THREADS FILE...      prints `N files, S s, R img/s, C ms CPU/img`
//   jpegfloor K 1 --repeat R FILE    prints the median ms of R decodes of FILE after one warm-up
#include <stdio.h>  // before jpeglib.h, which uses FILE
#include <stdlib.h>
#include <jpeglib.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static char **files;
static int file_count, scale;
static int next_file;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int decode(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return -1;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    rewind(file);
    unsigned char *data = malloc((size_t)size);
    if (data == NULL || fread(data, 1, (size_t)size, file) != (size_t)size) {
        fclose(file);
        free(data);
        return -1;
    }
    fclose(file);
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr error;
    cinfo.err = jpeg_std_error(&error);
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = (unsigned)scale;
    cinfo.scale_denom = 8;
    cinfo.out_color_space = JCS_RGB;
    cinfo.dct_method = JDCT_ISLOW;
    cinfo.do_fancy_upsampling = TRUE;
    jpeg_start_decompress(&cinfo);
    unsigned char *row = malloc((size_t)cinfo.output_width * 3);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[1] = {row};
        jpeg_read_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    free(data);
    return 0;
}

static void *work(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&lock);
        int index = next_file++;
        pthread_mutex_unlock(&lock);
        if (index >= file_count) return NULL;
        if (decode(files[index]) != 0) fprintf(stderr, "cannot read %s\n", files[index]);
    }
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: jpegfloor K THREADS FILE... | jpegfloor K 1 --repeat R FILE\n");
        return 2;
    }
    scale = atoi(argv[1]);
    int threads = atoi(argv[2]);
    if (strcmp(argv[3], "--repeat") == 0 && argc == 6) {
        int repeat = atoi(argv[4]);
        double *times = calloc((size_t)repeat, sizeof *times);
        decode(argv[5]);
        for (int i = 0; i < repeat; i++) {
            double start = now_ms();
            decode(argv[5]);
            times[i] = now_ms() - start;
        }
        qsort(times, (size_t)repeat, sizeof *times, by_value);
        printf("%.1f\n", times[repeat / 2]);
        return 0;
    }
    files = argv + 3;
    file_count = argc - 3;
    if (threads < 1 || threads > 64) threads = 1;
    pthread_t workers[64];
    double start = now_ms();
    for (int i = 0; i < threads; i++) pthread_create(&workers[i], NULL, work, NULL);
    for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
    double seconds = (now_ms() - start) / 1e3;
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    printf("%d files, %.3f s, %.1f img/s, %.1f ms CPU/img\n", file_count, seconds, file_count / seconds, 1e3 * cpu / file_count);
    return 0;
}
