// Writes a HEIC whose primary image and thumbnail item carry a given orientation as irot/imir
// boxes, the way a phone stores a photo taken sideways. Neither ImageMagick's `convert` nor
// libheif's `heif-enc` can: heif-enc keeps an EXIF Orientation tag but writes no irot/imir.
//
//   heif-fixture [-a] [-p PROFILE.icc] [-e EXIF-ORIENTATION] ORIENTATION MAIN.ppm [THUMB.ppm] > OUT.heic
//
// ORIENTATION is EXIF's 1...8 and says how the stored pixels must be turned to look upright,
// as in a JPEG fixture. MAIN and THUMB are binary PPMs (P6, 8-bit) of the stored pixels; the
// thumbnail, when given, is stored as is (no scaling) and assigned to the primary image.
// -a writes AVIF (AV1) instead of HEIC (HEVC); -p tags both images with an ICC profile; -e N adds
// an EXIF block whose Orientation tag says N, as phones write beside irot/imir (the tag restates
// the boxes, which libheif already applies: a reader must not turn the picture a second time).
//
//   cc scripts/heif-fixture.c $(pkg-config --cflags --libs libheif) -o heif-fixture
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check(struct heif_error error, const char *what) {
    if (error.code != heif_error_Ok) {
        fprintf(stderr, "heif-fixture: %s: %s\n", what, error.message);
        exit(1);
    }
}

// The sizes of the stored pictures (main, then thumbnail), for spec_order() to tell a transposed
// ispe from the coded size.
static int stored_sizes[2][2];

// Skips whitespace and '#' comments between a PPM header's fields.
static int next_number(FILE *file) {
    int c = fgetc(file);
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#') {
        if (c == '#') {
            while (c != '\n' && c != EOF) c = fgetc(file);
        }
        c = fgetc(file);
    }
    int value = 0;
    while (c >= '0' && c <= '9') {
        value = value * 10 + (c - '0');
        c = fgetc(file);
    }
    return value;  // the one whitespace byte after the field is consumed
}

static struct heif_image *read_ppm(const char *path, int stored) {
    FILE *file = fopen(path, "rb");
    if (!file || fgetc(file) != 'P' || fgetc(file) != '6') {
        fprintf(stderr, "heif-fixture: %s is not a binary PPM\n", path);
        exit(1);
    }
    int width = next_number(file), height = next_number(file), maximum = next_number(file);
    if (width <= 0 || height <= 0 || maximum != 255) {
        fprintf(stderr, "heif-fixture: %s: want an 8-bit PPM\n", path);
        exit(1);
    }
    stored_sizes[stored][0] = width;
    stored_sizes[stored][1] = height;
    struct heif_image *image;
    check(heif_image_create(width, height, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image), "create");
    check(heif_image_add_plane(image, heif_channel_interleaved, width, height, 8), "plane");
    int stride;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++) {
        if (fread(plane + (size_t)y * stride, 3, width, file) != (size_t)width) {
            fprintf(stderr, "heif-fixture: %s is cut short\n", path);
            exit(1);
        }
    }
    fclose(file);
    return image;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

// The first box named `name` in [start, end), its body in *body and *body_end; 0 when none.
static int find_box(uint8_t *d, size_t start, size_t end, const char *name, size_t *body, size_t *body_end) {
    while (start + 8 <= end) {
        size_t size = be32(d + start);
        if (size < 8 || size > end - start) return 0;
        if (memcmp(d + start + 4, name, 4) == 0) {
            *body = start + 8;
            *body_end = start + size;
            return 1;
        }
        start += size;
    }
    return 0;
}

// libheif 1.15's encoder (Debian 12's) writes what ISO/IEC 23008-12 rules out, and libheif 1.19 and
// later refuse ("Decoded image does not have the size signaled in the file"): an item turned by
// irot 90 or 270 gets the turned size as its ispe, where ispe is the coded size, before any
// transform; and its irot/imir are associated before its ispe, where descriptive properties come
// before transformative ones. Rewritten in place, same length: each item's transformative
// associations moved after the others, and an ispe that is a stored picture's size transposed (on
// an item irot turns by 90 or 270) set back to that size. A writer that already does both is left
// as it wrote.
static void spec_order(uint8_t *d, size_t size) {
    size_t meta, meta_end, iprp, iprp_end, ipco, ipco_end, ipma, ipma_end;
    if (!find_box(d, 0, size, "meta", &meta, &meta_end) || !find_box(d, meta + 4, meta_end, "iprp", &iprp, &iprp_end) ||
        !find_box(d, iprp, iprp_end, "ipco", &ipco, &ipco_end) || !find_box(d, iprp, iprp_end, "ipma", &ipma, &ipma_end))
        return;
    size_t property[256];  // the boxes of ipco, from index 1
    int properties = 0;
    for (size_t at = ipco; at + 8 <= ipco_end && properties < 255; at += be32(d + at)) {
        if (be32(d + at) < 8) return;
        property[++properties] = at;
    }
    int version = d[ipma], wide = d[ipma + 3] & 1;
    size_t at = ipma + 4;
    uint32_t items = be32(d + at);
    at += 4;
    for (uint32_t item = 0; item < items && at < ipma_end; item++) {
        at += version < 1 ? 2 : 4;
        int count = d[at++], step = wide ? 2 : 1;
        uint8_t *list = d + at, moved[64];
        if (count > 32) return;
        // Stable: the descriptive associations first, then the transformative (irot, imir, clap).
        int kept = 0, quarter_turn = 0;
        size_t ispe = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < count; i++) {
                int index = wide ? ((list[2 * i] & 0x7F) << 8 | list[2 * i + 1]) : (list[i] & 0x7F);
                if (index < 1 || index > properties) return;
                const uint8_t *box = d + property[index];
                int transform = !memcmp(box + 4, "irot", 4) || !memcmp(box + 4, "imir", 4) || !memcmp(box + 4, "clap", 4);
                if (transform != pass) continue;
                memcpy(moved + kept * step, list + i * step, (size_t)step);
                kept++;
                if (!memcmp(box + 4, "irot", 4)) quarter_turn = box[8] & 1;
                if (!memcmp(box + 4, "ispe", 4)) ispe = property[index] + 12;
            }
        }
        memcpy(list, moved, (size_t)(count * step));
        at += (size_t)(count * step);
        for (int s = 0; s < 2 && ispe && quarter_turn; s++) {
            int width = stored_sizes[s][0], height = stored_sizes[s][1];
            if (width != height && be32(d + ispe) == (uint32_t)height && be32(d + ispe + 4) == (uint32_t)width) {
                put_be32(d + ispe, (uint32_t)width);
                put_be32(d + ispe + 4, (uint32_t)height);
                break;
            }
        }
    }
}

static struct heif_error write_stdout(struct heif_context *context, const void *bytes, size_t size, void *user) {
    (void)context;
    (void)user;
    struct heif_error result = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    uint8_t *data = malloc(size);
    if (!data) exit(1);
    memcpy(data, bytes, size);
    spec_order(data, size);
    if (fwrite(data, 1, size, stdout) != size) {
        result.code = heif_error_Encoding_error;
        result.message = "cannot write standard output";
    }
    free(data);
    return result;
}

static void *read_file(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (!file || fseek(file, 0, SEEK_END) != 0) {
        fprintf(stderr, "heif-fixture: cannot read %s\n", path);
        exit(1);
    }
    *size = (size_t)ftell(file);
    rewind(file);
    void *bytes = malloc(*size);
    if (!bytes || fread(bytes, 1, *size, file) != *size) {
        fprintf(stderr, "heif-fixture: cannot read %s\n", path);
        exit(1);
    }
    fclose(file);
    return bytes;
}

static struct heif_image *read_image(const char *path, int stored, const void *profile, size_t profile_size) {
    struct heif_image *image = read_ppm(path, stored);
    if (profile) check(heif_image_set_raw_color_profile(image, "prof", profile, profile_size), "profile");
    return image;
}

int main(int argc, char **argv) {
    enum heif_compression_format compression = heif_compression_HEVC;
    void *profile = NULL;
    size_t profile_size = 0;
    int exif_orientation = 0;
    for (int option; (option = getopt(argc, argv, "ap:e:")) != -1;) {
        if (option == 'a') compression = heif_compression_AV1;
        else if (option == 'p') profile = read_file(optarg, &profile_size);
        else if (option == 'e') exif_orientation = atoi(optarg);
        else return 2;
    }
    argc -= optind - 1;
    argv += optind - 1;
    if (argc < 3 || argc > 4 || atoi(argv[1]) < 1 || atoi(argv[1]) > 8) {
        fprintf(stderr, "usage: heif-fixture [-a] [-p PROFILE.icc] [-e N] ORIENTATION(1-8) MAIN.ppm [THUMB.ppm] > OUT\n");
        return 2;
    }
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder;
    check(heif_context_get_encoder_for_format(context, compression, &encoder), "encoder");
    // YCbCr as phones write it, but 4:4:4 and near-lossless, so that flat colour patches keep
    // their colours to within a few levels.
    check(heif_encoder_set_lossy_quality(encoder, 95), "quality");
    check(heif_encoder_set_parameter_string(encoder, "chroma", "444"), "chroma");
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    options->image_orientation = (enum heif_orientation)atoi(argv[1]);

    struct heif_image *main_image = read_image(argv[2], 0, profile, profile_size);
    struct heif_image_handle *primary;
    check(heif_context_encode_image(context, main_image, encoder, options, &primary), "encode");
    if (exif_orientation > 0) {
        // A big-endian TIFF structure with one IFD0 entry: Orientation (0x0112), SHORT, 1 value.
        unsigned char exif[] = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1,
                                0, (unsigned char)exif_orientation, 0, 0, 0, 0, 0, 0};
        check(heif_context_add_exif_metadata(context, primary, exif, sizeof exif), "exif");
    }
    if (argc == 4) {
        struct heif_image *thumb_image = read_image(argv[3], 1, profile, profile_size);
        struct heif_image_handle *thumb;
        check(heif_context_encode_image(context, thumb_image, encoder, options, &thumb), "encode thumbnail");
        check(heif_context_set_primary_image(context, primary), "primary");
        // libheif 1.15 takes this call's two handles the other way round from its header's
        // names: as written here, the file says `thumb` is the thumbnail of `primary`.
        check(heif_context_assign_thumbnail(context, thumb, primary), "assign thumbnail");
        heif_image_handle_release(thumb);
        heif_image_release(thumb_image);
    }
    struct heif_writer writer = {.writer_api_version = 1, .write = write_stdout};
    check(heif_context_write(context, &writer, NULL), "write");

    heif_image_handle_release(primary);
    heif_image_release(main_image);
    heif_encoding_options_free(options);
    heif_encoder_release(encoder);
    heif_context_free(context);
    free(profile);
    return 0;
}
