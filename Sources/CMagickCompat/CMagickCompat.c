// ImageMagick 6 and 7 behind one call each (see include/CMagickCompat.h).

#include "CMagickCompat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MagickBooleanType cmc_resize_image(MagickWand *wand, size_t columns, size_t rows, CMCFilter filter) {
#if MagickLibVersion >= 0x700
    return MagickResizeImage(wand, columns, rows, filter);
#else
    return MagickResizeImage(wand, columns, rows, filter, 1.0);
#endif
}

static void visit_exception(const ExceptionInfo *info, CMCExceptionVisitor visit, void *context) {
    const char *reason = info->reason != NULL ? info->reason : "";
    const char *description = info->description != NULL ? info->description : "";
    size_t length = strlen(reason) + strlen(description) + 4;
    char *message = malloc(length);
    if (message == NULL) return;
    if (*description != '\0') {
        (void)snprintf(message, length, "%s (%s)", reason, description);
    } else {
        (void)snprintf(message, length, "%s", reason);
    }
    visit(context, info->severity, message);
    free(message);
}

static void visit_list(const ExceptionInfo *exception, CMCExceptionVisitor visit, void *context) {
    LinkedListInfo *list = (LinkedListInfo *)exception->exceptions;
    if (list == NULL) return;
    ResetLinkedListIterator(list);
    const ExceptionInfo *next;
    while ((next = (const ExceptionInfo *)GetNextValueInLinkedList(list)) != NULL) {
        if (next->severity >= WarningException) visit_exception(next, visit, context);
    }
}

#if MagickLibVersion >= 0x700
// ImageMagick 7's MagickWand keeps its ExceptionInfo in the wand and gives no call that lists it
// (MagickGetException says the most severe). This is the wand's layout in 7.1 (MagickWand/
// magick-wand-private.h, not installed). It is used only when both signatures are where this
// layout puts them, so another layout visits nothing rather than read the wrong memory.
struct CMCMagickWand71 {
    size_t id;
    char name[MagickPathExtent];
    Image *images;
    ImageInfo *image_info;
    ExceptionInfo *exception;
    MagickBooleanType insert_before, image_pending, debug;
    size_t signature;
};
#endif

void cmc_wand_exception_list(MagickWand *wand, CMCExceptionVisitor visit, void *context) {
#if MagickLibVersion >= 0x700
    const struct CMCMagickWand71 *layout = (const struct CMCMagickWand71 *)wand;
    if (wand == NULL || layout->signature != MagickWandSignature || layout->exception == NULL
        || layout->exception->signature != MagickCoreSignature) {
        return;
    }
    visit_list(layout->exception, visit, context);
#else
    (void)wand, (void)visit, (void)context;
#endif
}

void cmc_take_image_exceptions(MagickWand *wand, MagickBooleanType whole_if_none, CMCExceptionVisitor visit,
                               void *context) {
#if MagickLibVersion >= 0x700
    (void)wand, (void)whole_if_none, (void)visit, (void)context;
#else
    Image *image = GetImageFromMagickWand(wand);
    if (image == NULL) return;
    ExceptionInfo *exception = &image->exception;
    LinkedListInfo *list = (LinkedListInfo *)exception->exceptions;
    if (list != NULL && !IsLinkedListEmpty(list)) {
        visit_list(exception, visit, context);
    } else if (whole_if_none != MagickFalse && exception->severity >= WarningException) {
        visit_exception(exception, visit, context);
    }
    ClearMagickException(exception);
#endif
}

const char *cmc_magic_name(const unsigned char *bytes, size_t length) {
    ExceptionInfo *exception = AcquireExceptionInfo();
    const MagicInfo *info = GetMagicInfo(bytes, length, exception);
    exception = DestroyExceptionInfo(exception);
    return info != NULL ? GetMagicName(info) : NULL;
}

const char *cmc_build_mismatch(void) {
    size_t depth = 0;
    (void)GetMagickQuantumDepth(&depth);
    if (depth != MAGICKCORE_QUANTUM_DEPTH) {
        return "ImageMagick's quantum depth differs from the one MagickIO was built for (Q16)";
    }
    const char *features = GetMagickFeatures();
    int hdri = features != NULL && strstr(features, "HDRI") != NULL;
    if (hdri != (MAGICKCORE_HDRI_ENABLE != 0)) {
        return hdri ? "ImageMagick is an HDRI build; MagickIO was built for one without HDRI"
                    : "ImageMagick is not an HDRI build; MagickIO was built for one with HDRI";
    }
    return NULL;
}

// The chromaticity primaries and white point: ImageMagick 7 gives each a z as well.
void cmc_get_primaries(MagickWand *wand, double values[8]) {
#if MagickLibVersion >= 0x700
    double z;
    MagickGetImageRedPrimary(wand, &values[0], &values[1], &z);
    MagickGetImageGreenPrimary(wand, &values[2], &values[3], &z);
    MagickGetImageBluePrimary(wand, &values[4], &values[5], &z);
    MagickGetImageWhitePoint(wand, &values[6], &values[7], &z);
#else
    MagickGetImageRedPrimary(wand, &values[0], &values[1]);
    MagickGetImageGreenPrimary(wand, &values[2], &values[3]);
    MagickGetImageBluePrimary(wand, &values[4], &values[5]);
    MagickGetImageWhitePoint(wand, &values[6], &values[7]);
#endif
}

void cmc_set_primaries(MagickWand *wand, const double values[8]) {
#if MagickLibVersion >= 0x700
    MagickSetImageRedPrimary(wand, values[0], values[1], 0.0);
    MagickSetImageGreenPrimary(wand, values[2], values[3], 0.0);
    MagickSetImageBluePrimary(wand, values[4], values[5], 0.0);
    MagickSetImageWhitePoint(wand, values[6], values[7], 0.0);
#else
    MagickSetImageRedPrimary(wand, values[0], values[1]);
    MagickSetImageGreenPrimary(wand, values[2], values[3]);
    MagickSetImageBluePrimary(wand, values[4], values[5]);
    MagickSetImageWhitePoint(wand, values[6], values[7]);
#endif
}

// The names of the current image's artifacts, each followed by a newline, in one string the
// caller frees (NULL when none). MagickGetImageArtifacts lists the image's properties instead
// in ImageMagick 6.9.11, so the list is read from MagickCore.
char *cmc_artifact_names(MagickWand *wand) {
    Image *image = GetImageFromMagickWand(wand);
    if (image == NULL) return NULL;
    size_t length = 0;
    ResetImageArtifactIterator(image);
    for (const char *name = GetNextImageArtifact(image); name != NULL; name = GetNextImageArtifact(image)) {
        length += strlen(name) + 1;
    }
    if (length == 0) return NULL;
    char *names = malloc(length + 1);
    if (names == NULL) return NULL;
    names[0] = '\0';
    ResetImageArtifactIterator(image);
    for (const char *name = GetNextImageArtifact(image); name != NULL; name = GetNextImageArtifact(image)) {
        strcat(names, name);
        strcat(names, "\n");
    }
    return names;
}

void cmc_check_xmp(MagickWand *wand) {
#if MagickLibVersion >= 0x700
    char *value = MagickGetImageProperty(wand, "xmp:*");
    if (value != NULL) MagickRelinquishMemory(value);
#else
    (void)wand;
#endif
}

// ImageMagick's reason for a failure, without the empty "`'" that stands for an unnamed file.
static void keep_reason(const ExceptionInfo *exception, char *reason, size_t reason_size) {
    const char *description = exception->description;
    int described = description != NULL && description[0] != 0 && strcmp(description, "`'") != 0;
    snprintf(reason, reason_size, "%s%s%s%s", exception->reason != NULL ? exception->reason : "ImageMagick gave no reason",
             described ? " (" : "", described ? description : "", described ? ")" : "");
}

// SetImageExtent, then every pixel zeroed (ResetImagePixels: one memset of a pixel cache in
// memory); false with ImageMagick's reason otherwise.
static MagickBooleanType extend_zeroed(Image *image, size_t columns, size_t rows, char *reason, size_t reason_size) {
    ExceptionInfo *exception = AcquireExceptionInfo();
#if MagickLibVersion >= 0x700
    MagickBooleanType status = SetImageExtent(image, columns, rows, exception);
#else
    ClearMagickException(&image->exception);
    MagickBooleanType status = SetImageExtent(image, columns, rows);
    if (status == MagickFalse) InheritException(exception, &image->exception);
#endif
    if (status != MagickFalse) status = ResetImagePixels(image, exception);
    if (status == MagickFalse) keep_reason(exception, reason, reason_size);
    DestroyExceptionInfo(exception);
    return status;
}

MagickBooleanType cmc_set_image_extent(MagickWand *wand, size_t columns, size_t rows, char *reason, size_t reason_size) {
    Image *image = GetImageFromMagickWand(wand);
    if (reason_size > 0) reason[0] = 0;
    if (image == NULL) {
        snprintf(reason, reason_size, "the wand holds no image");
        return MagickFalse;
    }
    size_t was_columns = image->columns, was_rows = image->rows;
    if (extend_zeroed(image, columns, rows, reason, reason_size) != MagickFalse) return MagickTrue;
    // Back to the size it had, which has a pixel cache behind it.
    char ignored[8];
    (void)extend_zeroed(image, was_columns, was_rows, ignored, sizeof ignored);
    return MagickFalse;
}

// In a loop the compiler makes vector code of.
void cmc_float_quanta(const float *floats, unsigned short *quanta, size_t count) {
    const double range = (double)QuantumRange;
    for (size_t i = 0; i < count; i++) {
        const double value = range * (double)floats[i];
        const double rounded = value >= range ? range : value + 0.5;
        quanta[i] = (unsigned short)(int)(!(value > 0) ? 0 : rounded);  // NaN: 0, as 7's ClampToQuantum
    }
}

void cmc_place_float_quanta(const float *floats, size_t pixels, size_t channels, unsigned short *first, ptrdiff_t step) {
    if (step == (ptrdiff_t)channels) {
        cmc_float_quanta(floats, first, pixels * channels);
        return;
    }
    // Made in a run of the vector loop, then placed a pixel at a time.
    unsigned short quanta[1024];
    const size_t chunk = sizeof quanta / sizeof quanta[0] / channels;
    for (size_t done = 0; done < pixels; done += chunk) {
        const size_t count = pixels - done < chunk ? pixels - done : chunk;
        cmc_float_quanta(floats + done * channels, quanta, count * channels);
        for (size_t i = 0; i < count; i++) {
            // Each place from `first` (a pointer stepped past the last would point outside the picture).
            unsigned short *to = first + (ptrdiff_t)(done + i) * step;
            for (size_t channel = 0; channel < channels; channel++) to[channel] = quanta[i * channels + channel];
        }
    }
}

MagickBooleanType cmc_import_float_row(MagickWand *wand, ssize_t y, size_t columns, size_t channels, const float *row) {
    Image *image = GetImageFromMagickWand(wand);
    if (image == NULL || (channels != 3 && channels != 4) || image->columns != columns || y < 0 || (size_t)y >= image->rows
        || image->storage_class != DirectClass) {
        return MagickFalse;
    }
#if MAGICKCORE_HDRI_ENABLE || MAGICKCORE_QUANTUM_DEPTH != 16 || (MagickLibVersion >= 0x700 && MagickLibVersion < 0x711)
    // Floating-point or other-sized quanta, or a 7 before 7.1.1-16 (whose import multiplied in
    // float): ImageMagick's import writes them (the caller's fallback).
    (void)row;
    return MagickFalse;
#endif
#if MagickLibVersion >= 0x700
    // 7.1.1-16 first imported floats as (double)QuantumRange * v; an import also leaves an A's
    // alpha blended.
    if (MagickLibVersion == 0x711 && atoi(MagickLibAddendum + 1) < 16) return MagickFalse;
    if (channels == 4 ? image->alpha_trait != BlendPixelTrait : image->alpha_trait != UndefinedPixelTrait) return MagickFalse;
    ExceptionInfo *exception = AcquireExceptionInfo();
    Quantum *q = GetAuthenticPixels(image, 0, y, columns, 1, exception);
    const size_t step = GetPixelChannels(image);
#else
    if ((channels == 4) != (image->matte != MagickFalse)) return MagickFalse;
    ExceptionInfo *exception = &image->exception;
    PixelPacket *q = GetAuthenticPixels(image, 0, y, columns, 1, exception);
#endif
    MagickBooleanType status = MagickFalse;
    if (q != NULL) {
        unsigned short quanta[3 * 1024];
        const size_t chunk = sizeof quanta / sizeof quanta[0] / channels;
        for (size_t done = 0; done < columns; done += chunk) {
            const size_t pixels = columns - done < chunk ? columns - done : chunk;
            cmc_float_quanta(row + done * channels, quanta, pixels * channels);
            for (const unsigned short *p = quanta; p < quanta + pixels * channels; p += channels) {
#if MagickLibVersion >= 0x700
                SetPixelRed(image, p[0], q);
                SetPixelGreen(image, p[1], q);
                SetPixelBlue(image, p[2], q);
                if (channels == 4) SetPixelAlpha(image, p[3], q);
                q += step;
#else
                SetPixelRed(q, p[0]);
                SetPixelGreen(q, p[1]);
                SetPixelBlue(q, p[2]);
                if (channels == 4) SetPixelAlpha(q, p[3]);
                q++;
#endif
            }
        }
        status = SyncAuthenticPixels(image, exception);
    }
#if MagickLibVersion >= 0x700
    DestroyExceptionInfo(exception);
#endif
    return status;
}

MagickBooleanType cmc_constitute_image(MagickWand *wand, size_t columns, size_t rows, const char *map, StorageType storage,
                                       const void *pixels, ColorspaceType colorspace, char *reason, size_t reason_size) {
    if (reason_size > 0) reason[0] = 0;
    ExceptionInfo *exception = AcquireExceptionInfo();
#if MagickLibVersion >= 0x700
    Image *image = AcquireImage((ImageInfo *)NULL, exception);
#else
    Image *image = AcquireImage((ImageInfo *)NULL);
#endif
    if (image == NULL) {
        snprintf(reason, reason_size, "ImageMagick could not start a %zux%zu image", columns, rows);
        DestroyExceptionInfo(exception);
        return MagickFalse;
    }
    if (strchr(map, 'A') != NULL || strchr(map, 'a') != NULL) {
#if MagickLibVersion >= 0x700
        image->alpha_trait = BlendPixelTrait;
#else
        image->matte = MagickTrue;
#endif
    }
    MagickBooleanType status = extend_zeroed(image, columns, rows, reason, reason_size);
    // The colour space once the image has pixels (SetImageColorspace syncs its pixel cache).
    if (status != MagickFalse) {
#if MagickLibVersion >= 0x700
        status = SetImageColorspace(image, colorspace, exception);
#else
        status = SetImageColorspace(image, colorspace);
        if (status == MagickFalse) InheritException(exception, &image->exception);
#endif
        if (status == MagickFalse) keep_reason(exception, reason, reason_size);
    }
    if (status != MagickFalse) {
        status = ImportImagePixels(image, 0, 0, columns, rows, map, storage, pixels
#if MagickLibVersion >= 0x700
                                   , exception
#endif
        );
#if MagickLibVersion < 0x700
        if (status == MagickFalse) InheritException(exception, &image->exception);
#endif
        if (status == MagickFalse) keep_reason(exception, reason, reason_size);
    }
    if (status != MagickFalse) {
        // Into the wand: MagickAddImage takes a copy that shares the pixels.
        MagickWand *holder = NewMagickWandFromImage(image);
        status = holder != NULL ? MagickAddImage(wand, holder) : MagickFalse;
        if (holder != NULL) DestroyMagickWand(holder);
        if (status == MagickFalse) snprintf(reason, reason_size, "ImageMagick could not add the image to the wand");
    }
    DestroyImage(image);
    DestroyExceptionInfo(exception);
    return status;
}

MagickBooleanType cmc_is_imagemagick_7(void) {
    return MagickLibVersion >= 0x700 ? MagickTrue : MagickFalse;
}
