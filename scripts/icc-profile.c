/* Writes an ICC profile to stdout, made by Little CMS (liblcms2-dev, which libmagickwand-dev
 * brings): "srgb" is the sRGB profile MagickIO converts thumbnails to (see make-srgb-profile.sh),
 * "adobe" an Adobe RGB (1998)-like profile for the colour-management fixture.
 * Build: cc icc-profile.c -llcms2 -o icc-profile */
#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    cmsHPROFILE profile;
    if (argc == 2 && strcmp(argv[1], "srgb") == 0) {
        profile = cmsCreate_sRGBProfile();
    } else if (argc == 2 && strcmp(argv[1], "adobe") == 0) {
        cmsCIExyY white = {0.3127, 0.3290, 1.0};
        cmsCIExyYTRIPLE primaries = {{0.64, 0.33, 1.0}, {0.21, 0.71, 1.0}, {0.15, 0.06, 1.0}};
        cmsToneCurve *gamma = cmsBuildGamma(NULL, 563.0 / 256.0);
        cmsToneCurve *curves[3] = {gamma, gamma, gamma};
        profile = cmsCreateRGBProfile(&white, &primaries, curves);
        cmsMLU *description = cmsMLUalloc(NULL, 1);
        cmsMLUsetASCII(description, "en", "US", "Adobe RGB (1998) compatible");
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, description);
    } else {
        fprintf(stderr, "usage: icc-profile srgb|adobe\n");
        return 2;
    }
    cmsUInt32Number length = 0;
    cmsSaveProfileToMem(profile, NULL, &length);
    unsigned char *bytes = malloc(length);
    cmsSaveProfileToMem(profile, bytes, &length);
    fwrite(bytes, 1, length, stdout);
    return 0;
}
