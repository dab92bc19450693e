#ifndef SPLASHD_CVIPS_SHIM_H
#define SPLASHD_CVIPS_SHIM_H
#include <vips/vips.h>
// libvips' operations are NULL-terminated varargs calls, which Swift cannot make. Each one the editor
// uses gets a typed inline wrapper here; every wrapper returns 0 on success and -1 with the message in
// vips_error_buffer() on failure, as libvips itself does.

static inline int splashd_vips_init(const char *argv0) { return VIPS_INIT(argv0); }

// Opens a file lazily: only the header is read now. `sequential` streams the pixels top to bottom
// (small memory); `fail_on_truncated` turns libvips' lenient warnings on damaged files into errors.
static inline VipsImage *splashd_vips_open(const char *path, int sequential) {
    return vips_image_new_from_file(path,
        "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
        "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

// Shrink-on-load: JPEG and WebP decode at a fraction of their size, so a preview costs little.
static inline int splashd_vips_thumbnail(const char *path, VipsImage **out, int size) {
    return vips_thumbnail(path, out, size, "height", size, "size", VIPS_SIZE_DOWN,
        "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

// Fits inside width × height, aspect kept, never enlarged: a picture drawn for a terminal.
static inline int splashd_vips_thumbnail_box(const char *path, VipsImage **out, int width, int height) {
    return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_DOWN,
        "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}
static inline int splashd_vips_thumbnail_buffer_box(void *data, size_t length, VipsImage **out, int width, int height) {
    return vips_thumbnail_buffer(data, length, out, width, "height", height, "size", VIPS_SIZE_DOWN, NULL);
}
static inline int splashd_vips_addalpha(VipsImage *in, VipsImage **out) { return vips_addalpha(in, out, NULL); }

// Exactly width × height, aspect ignored: the perceptual hash wants a fixed grid.
static inline int splashd_vips_thumbnail_forced(const char *path, VipsImage **out, int width, int height) {
    return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_FORCE,
        "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}
static inline int splashd_vips_autorot(VipsImage *in, VipsImage **out) { return vips_autorot(in, out, NULL); }
static inline int splashd_vips_to_srgb(VipsImage *in, VipsImage **out) { return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL); }
static inline int splashd_vips_to_bw(VipsImage *in, VipsImage **out) { return vips_colourspace(in, out, VIPS_INTERPRETATION_B_W, NULL); }
static inline int splashd_vips_flatten_white(VipsImage *in, VipsImage **out) {
    double white[3] = {255, 255, 255};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}
static inline int splashd_vips_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) { return vips_cast(in, out, format, NULL); }
static inline int splashd_vips_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int n) {
    return vips_linear(in, out, (double *)a, (double *)b, n, NULL);
}
static inline int splashd_vips_recomb(VipsImage *in, VipsImage **out, const double *matrix3x3) {
    VipsImage *m = vips_image_new_matrix_from_array(3, 3, matrix3x3, 9);
    if (!m) return -1;
    int result = vips_recomb(in, out, m, NULL);
    g_object_unref(m);
    return result;
}
static inline int splashd_vips_gaussblur(VipsImage *in, VipsImage **out, double sigma) {
    return vips_gaussblur(in, out, sigma, "precision", VIPS_PRECISION_FLOAT, NULL);
}
static inline int splashd_vips_add(VipsImage *a, VipsImage *b, VipsImage **out) { return vips_add(a, b, out, NULL); }
static inline int splashd_vips_subtract(VipsImage *a, VipsImage *b, VipsImage **out) { return vips_subtract(a, b, out, NULL); }
static inline int splashd_vips_multiply(VipsImage *a, VipsImage *b, VipsImage **out) { return vips_multiply(a, b, out, NULL); }
static inline int splashd_vips_abs(VipsImage *in, VipsImage **out) { return vips_abs(in, out, NULL); }
static inline int splashd_vips_pow(VipsImage *in, VipsImage **out, double exponent) { return vips_pow_const1(in, out, exponent, NULL); }
static inline int splashd_vips_bandmean(VipsImage *in, VipsImage **out) { return vips_bandmean(in, out, NULL); }
static inline int splashd_vips_xyz(VipsImage **out, int width, int height) { return vips_xyz(out, width, height, NULL); }
static inline int splashd_vips_shrink(VipsImage *in, VipsImage **out, double factor) { return vips_shrink(in, out, factor, factor, NULL); }
static inline int splashd_vips_zoom(VipsImage *in, VipsImage **out, int factor) { return vips_zoom(in, out, factor, factor, NULL); }
static inline int splashd_vips_resize(VipsImage *in, VipsImage **out, double scale) { return vips_resize(in, out, scale, NULL); }
static inline int splashd_vips_embed_copy(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_embed(in, out, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
}
static inline int splashd_vips_copy_memory(VipsImage *in, VipsImage **out) {
    VipsImage *copy = vips_image_copy_memory(in);
    if (!copy) return -1;
    *out = copy;
    return 0;
}
// JPEG out: metadata stripped (the orientation is already applied and the pixels are sRGB).
static inline int splashd_vips_jpegsave(VipsImage *in, const char *path, int quality) {
    return vips_jpegsave(in, path, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}
// optimize_coding makes libjpeg hold every DCT coefficient of the image for a second pass: 140 MB more for a
// 24-megapixel photo, for a file about 4 % smaller. The caller asks for it only for small images.
static inline int splashd_vips_jpegsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality, int optimize) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", optimize, NULL);
}
static inline int splashd_vips_pngsave(VipsImage *in, const char *path) { return vips_pngsave(in, path, "strip", TRUE, NULL); }
// Raw 8-bit pixels of a small image (the perceptual hash reads them).
static inline void *splashd_vips_write_memory(VipsImage *in, size_t *size) { return vips_image_write_to_memory(in, size); }
static inline int splashd_vips_orientation_swaps(VipsImage *in) { return vips_image_get_orientation_swap(in); }
static inline const char *splashd_vips_find_loader(const char *path) { return vips_foreign_find_load(path); }
static inline int splashd_vips_orientation(VipsImage *in) { return vips_image_get_orientation(in); }
// A string field of the header (EXIF tags arrive as "exif-ifd2-DateTimeOriginal" and the like), or
// NULL when there is none; the string belongs to the image.
static inline const char *splashd_vips_header_string(VipsImage *image, const char *name) {
    if (vips_image_get_typeof(image, name) == 0) return NULL;
    const char *value = NULL;
    if (vips_image_get_string(image, name, &value) != 0) { vips_error_clear(); return NULL; }
    return value;
}
static inline void splashd_vips_unref(VipsImage *image) { g_object_unref(image); }
static inline int splashd_vips_width(VipsImage *image) { return vips_image_get_width(image); }
static inline int splashd_vips_height(VipsImage *image) { return vips_image_get_height(image); }
static inline int splashd_vips_bands(VipsImage *image) { return vips_image_get_bands(image); }
#endif
