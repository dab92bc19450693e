// Opens libvips at first use and calls it through the functions it finds by name (see splashd_vips.h).
// Each pointer has the type <vips/vips.h> gives the function, so the compiler checks every call here
// against libvips' own declarations, as a direct call would be checked.
#include "splashd_vips.h"

#include <dlfcn.h>
#include <stdio.h>
#include <vips/vips.h>

_Static_assert(SPLASHD_VIPS_FORMAT_UCHAR == VIPS_FORMAT_UCHAR, "VipsBandFormat changed");
_Static_assert(SPLASHD_VIPS_FORMAT_FLOAT == VIPS_FORMAT_FLOAT, "VipsBandFormat changed");

// Every libvips (and GObject) function called below.
#define SPLASHD_VIPS_FUNCTIONS(X) \
    X(vips_version) X(vips_init) X(vips_error_buffer) X(vips_error_clear) \
    X(vips_cache_set_max) X(vips_cache_set_max_mem) X(vips_concurrency_set) \
    X(vips_image_new_from_file) X(vips_thumbnail) X(vips_thumbnail_buffer) X(vips_addalpha) X(vips_autorot) \
    X(vips_colourspace) X(vips_array_double_new) X(vips_area_unref) X(vips_flatten) X(vips_cast) X(vips_linear) \
    X(vips_image_new_matrix_from_array) X(vips_recomb) X(vips_gaussblur) X(vips_add) X(vips_multiply) X(vips_abs) \
    X(vips_pow_const1) X(vips_bandmean) X(vips_xyz) X(vips_shrink) X(vips_zoom) X(vips_embed) \
    X(vips_image_copy_memory) X(vips_jpegsave_buffer) X(vips_jpegsave_target) X(vips_target_new_to_descriptor) X(vips_image_write_to_memory) \
    X(vips_image_get_orientation_swap) X(vips_image_get_orientation) X(vips_foreign_find_load) \
    X(vips_image_get_typeof) X(vips_image_get_string) X(vips_image_get_width) X(vips_image_get_height) \
    X(vips_image_get_bands) X(vips_image_hasalpha) X(vips_image_set_kill) X(g_object_unref) X(g_free)

#define SPLASHD_VIPS_POINTER(name) static __typeof__(name) *call_##name;
SPLASHD_VIPS_FUNCTIONS(SPLASHD_VIPS_POINTER)

// Set once by splashd_vips_init, which the caller runs once (VipsRuntime), before any other call.
static int loaded;
static char load_error[512] = "libvips has not been started";

int splashd_vips_init(const char *argv0) {
    char soname[32];
    snprintf(soname, sizeof soname, "libvips.so.%d", VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE);
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "cannot load libvips: %s", dlerror());
        return -1;
    }
#define SPLASHD_VIPS_FIND(name) \
    if (!(call_##name = (__typeof__(name) *)dlsym(library, #name))) { \
        snprintf(load_error, sizeof load_error, "%s has no function %s", soname, #name); \
        return -1; \
    }
    SPLASHD_VIPS_FUNCTIONS(SPLASHD_VIPS_FIND)
    // What VIPS_INIT checks: the library's ABI is the one these headers describe.
    int abi = call_vips_version(3) - call_vips_version(5);
    if (abi != VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE) {
        snprintf(load_error, sizeof load_error, "%s has ABI version %d, splashd needs %d", soname, abi,
                 VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE);
        return -1;
    }
    if (call_vips_init(argv0) != 0) {
        snprintf(load_error, sizeof load_error, "%s", call_vips_error_buffer());
        return -1;
    }
    loaded = 1;
    return 0;
}

const char *splashd_vips_error(void) { return loaded ? call_vips_error_buffer() : load_error; }
void splashd_vips_error_clear(void) { if (loaded) call_vips_error_clear(); }

// Before a successful start there is no libvips to call: operations fail with load_error.
#define SPLASHD_VIPS_REQUIRE(failure) if (!loaded) return failure

void splashd_vips_cache_set_max(int operations) { SPLASHD_VIPS_REQUIRE(); call_vips_cache_set_max(operations); }
void splashd_vips_cache_set_max_mem(size_t bytes) { SPLASHD_VIPS_REQUIRE(); call_vips_cache_set_max_mem(bytes); }
void splashd_vips_concurrency_set(int threads) { SPLASHD_VIPS_REQUIRE(); call_vips_concurrency_set(threads); }

VipsImage *splashd_vips_open(const char *path, int sequential) {
    SPLASHD_VIPS_REQUIRE(NULL);
    return call_vips_image_new_from_file(path,
        "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
        "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int splashd_vips_thumbnail(const char *path, VipsImage **out, int size) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_thumbnail(path, out, size, "height", size, "size", VIPS_SIZE_DOWN,
        "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int splashd_vips_thumbnail_box(const char *path, VipsImage **out, int width, int height) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_DOWN,
        "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int splashd_vips_thumbnail_buffer_box(void *data, size_t length, VipsImage **out, int width, int height) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_thumbnail_buffer(data, length, out, width, "height", height, "size", VIPS_SIZE_DOWN, NULL);
}

int splashd_vips_thumbnail_forced(const char *path, VipsImage **out, int width, int height) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_FORCE,
        "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int splashd_vips_addalpha(VipsImage *in, VipsImage **out) { SPLASHD_VIPS_REQUIRE(-1); return call_vips_addalpha(in, out, NULL); }
int splashd_vips_autorot(VipsImage *in, VipsImage **out) { SPLASHD_VIPS_REQUIRE(-1); return call_vips_autorot(in, out, NULL); }

int splashd_vips_to_srgb(VipsImage *in, VipsImage **out) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

int splashd_vips_to_bw(VipsImage *in, VipsImage **out) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_colourspace(in, out, VIPS_INTERPRETATION_B_W, NULL);
}

int splashd_vips_flatten_white(VipsImage *in, VipsImage **out) {
    SPLASHD_VIPS_REQUIRE(-1);
    double white[3] = {255, 255, 255};
    VipsArrayDouble *background = call_vips_array_double_new(white, 3);
    int result = call_vips_flatten(in, out, "background", background, NULL);
    call_vips_area_unref(VIPS_AREA(background));
    return result;
}

int splashd_vips_cast(VipsImage *in, VipsImage **out, int format) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_cast(in, out, (VipsBandFormat)format, NULL);
}

int splashd_vips_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int n) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_linear(in, out, (double *)a, (double *)b, n, NULL);
}

int splashd_vips_recomb(VipsImage *in, VipsImage **out, const double *matrix3x3) {
    SPLASHD_VIPS_REQUIRE(-1);
    VipsImage *m = call_vips_image_new_matrix_from_array(3, 3, matrix3x3, 9);
    if (!m) return -1;
    int result = call_vips_recomb(in, out, m, NULL);
    call_g_object_unref(m);
    return result;
}

int splashd_vips_gaussblur(VipsImage *in, VipsImage **out, double sigma) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_gaussblur(in, out, sigma, "precision", VIPS_PRECISION_FLOAT, NULL);
}

int splashd_vips_add(VipsImage *a, VipsImage *b, VipsImage **out) { SPLASHD_VIPS_REQUIRE(-1); return call_vips_add(a, b, out, NULL); }
int splashd_vips_multiply(VipsImage *a, VipsImage *b, VipsImage **out) { SPLASHD_VIPS_REQUIRE(-1); return call_vips_multiply(a, b, out, NULL); }
int splashd_vips_abs(VipsImage *in, VipsImage **out) { SPLASHD_VIPS_REQUIRE(-1); return call_vips_abs(in, out, NULL); }
int splashd_vips_pow(VipsImage *in, VipsImage **out, double exponent) { SPLASHD_VIPS_REQUIRE(-1); return call_vips_pow_const1(in, out, exponent, NULL); }
int splashd_vips_bandmean(VipsImage *in, VipsImage **out) { SPLASHD_VIPS_REQUIRE(-1); return call_vips_bandmean(in, out, NULL); }
int splashd_vips_xyz(VipsImage **out, int width, int height) { SPLASHD_VIPS_REQUIRE(-1); return call_vips_xyz(out, width, height, NULL); }
int splashd_vips_shrink(VipsImage *in, VipsImage **out, double factor) { SPLASHD_VIPS_REQUIRE(-1); return call_vips_shrink(in, out, factor, factor, NULL); }
int splashd_vips_zoom(VipsImage *in, VipsImage **out, int factor) { SPLASHD_VIPS_REQUIRE(-1); return call_vips_zoom(in, out, factor, factor, NULL); }

int splashd_vips_embed_copy(VipsImage *in, VipsImage **out, int width, int height) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_embed(in, out, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
}

int splashd_vips_jpegsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality, int optimize) {
    SPLASHD_VIPS_REQUIRE(-1);
    return call_vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", optimize, NULL);
}

int splashd_vips_jpegsave_fd(VipsImage *in, int fd, int quality, int optimize) {
    SPLASHD_VIPS_REQUIRE(-1);
    // A target made on a descriptor leaves it open: it stays the caller's.
    VipsTarget *target = call_vips_target_new_to_descriptor(fd);
    if (target == NULL) return -1;
    int result = call_vips_jpegsave_target(in, target, "Q", quality, "strip", TRUE, "optimize_coding", optimize, NULL);
    call_g_object_unref(target);
    return result;
}

void *splashd_vips_write_memory(VipsImage *in, size_t *size) {
    SPLASHD_VIPS_REQUIRE(NULL);
    return call_vips_image_write_to_memory(in, size);
}

void splashd_vips_kill(VipsImage *image) { SPLASHD_VIPS_REQUIRE(); call_vips_image_set_kill(image, TRUE); }

void splashd_vips_free(void *memory) { SPLASHD_VIPS_REQUIRE(); call_g_free(memory); }
int splashd_vips_orientation_swaps(VipsImage *in) { SPLASHD_VIPS_REQUIRE(0); return call_vips_image_get_orientation_swap(in); }
int splashd_vips_orientation(VipsImage *in) { SPLASHD_VIPS_REQUIRE(1); return call_vips_image_get_orientation(in); }
const char *splashd_vips_find_loader(const char *path) { SPLASHD_VIPS_REQUIRE(NULL); return call_vips_foreign_find_load(path); }

const char *splashd_vips_header_string(VipsImage *image, const char *name) {
    SPLASHD_VIPS_REQUIRE(NULL);
    if (call_vips_image_get_typeof(image, name) == 0) return NULL;
    const char *value = NULL;
    if (call_vips_image_get_string(image, name, &value) != 0) { call_vips_error_clear(); return NULL; }
    return value;
}

void splashd_vips_unref(VipsImage *image) { SPLASHD_VIPS_REQUIRE(); call_g_object_unref(image); }
int splashd_vips_width(VipsImage *image) { SPLASHD_VIPS_REQUIRE(0); return call_vips_image_get_width(image); }
int splashd_vips_height(VipsImage *image) { SPLASHD_VIPS_REQUIRE(0); return call_vips_image_get_height(image); }
int splashd_vips_bands(VipsImage *image) { SPLASHD_VIPS_REQUIRE(0); return call_vips_image_get_bands(image); }
int splashd_vips_hasalpha(VipsImage *image) { SPLASHD_VIPS_REQUIRE(0); return call_vips_image_hasalpha(image); }
