#ifndef SPLASHD_VIPS_H
#define SPLASHD_VIPS_H
// libvips, opened at its first use instead of at every start: linked, it brought 65 libraries more into
// the daemon (librsvg, pango, cairo, OpenEXR, HDF5, X11…), 4.1 MB of an idle daemon's 22 MB that it never
// used unless it made a picture. splashd_vips.c opens it (dlopen) and finds each
// function it calls by name, typed by <vips/vips.h> itself; this header names no libvips type but the
// opaque image, so the Swift modules that use it need neither libvips' headers nor its libraries.
//
// libvips' operations are NULL-terminated varargs calls, which Swift cannot make: each one the editor
// uses has a typed wrapper here. Every wrapper returns 0 on success and -1 with the message in
// splashd_vips_error() on failure, as libvips itself does — also before splashd_vips_init succeeded.

#include <stddef.h>

typedef struct _VipsImage VipsImage;

// The pixel formats the editor casts to (libvips' VipsBandFormat; splashd_vips.c checks the values).
enum { SPLASHD_VIPS_FORMAT_UCHAR = 0, SPLASHD_VIPS_FORMAT_FLOAT = 6 };

// Opens libvips and starts it (VIPS_INIT's ABI check, then vips_init): 0, or -1 with the reason in
// splashd_vips_error(). Once per process; the caller keeps the outcome.
int splashd_vips_init(const char *argv0);
// The message of the last failure, libvips' own or the loader's; splashd_vips_error_clear() empties it.
const char *splashd_vips_error(void);
void splashd_vips_error_clear(void);

void splashd_vips_cache_set_max(int operations);
void splashd_vips_cache_set_max_mem(size_t bytes);
void splashd_vips_concurrency_set(int threads);

// Opens a file lazily: only the header is read now. `sequential` streams the pixels top to bottom
// (small memory); truncated files are errors, not libvips' lenient warnings. NULL on failure.
VipsImage *splashd_vips_open(const char *path, int sequential);
// Shrink-on-load: JPEG and WebP decode at a fraction of their size, so a preview costs little.
int splashd_vips_thumbnail(const char *path, VipsImage **out, int size);
// Fits inside width × height, aspect kept, never enlarged: a picture drawn for a terminal.
int splashd_vips_thumbnail_box(const char *path, VipsImage **out, int width, int height);
int splashd_vips_thumbnail_buffer_box(void *data, size_t length, VipsImage **out, int width, int height);
// Exactly width × height, aspect ignored: the perceptual hash wants a fixed grid.
int splashd_vips_thumbnail_forced(const char *path, VipsImage **out, int width, int height);
int splashd_vips_addalpha(VipsImage *in, VipsImage **out);
int splashd_vips_autorot(VipsImage *in, VipsImage **out);
int splashd_vips_to_srgb(VipsImage *in, VipsImage **out);
int splashd_vips_to_bw(VipsImage *in, VipsImage **out);
int splashd_vips_flatten_white(VipsImage *in, VipsImage **out);
int splashd_vips_cast(VipsImage *in, VipsImage **out, int format);
int splashd_vips_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int n);
int splashd_vips_recomb(VipsImage *in, VipsImage **out, const double *matrix3x3);
int splashd_vips_gaussblur(VipsImage *in, VipsImage **out, double sigma);
int splashd_vips_add(VipsImage *a, VipsImage *b, VipsImage **out);
int splashd_vips_multiply(VipsImage *a, VipsImage *b, VipsImage **out);
int splashd_vips_abs(VipsImage *in, VipsImage **out);
int splashd_vips_pow(VipsImage *in, VipsImage **out, double exponent);
int splashd_vips_bandmean(VipsImage *in, VipsImage **out);
int splashd_vips_xyz(VipsImage **out, int width, int height);
int splashd_vips_shrink(VipsImage *in, VipsImage **out, double factor);
int splashd_vips_zoom(VipsImage *in, VipsImage **out, int factor);
int splashd_vips_embed_copy(VipsImage *in, VipsImage **out, int width, int height);
// JPEG out, metadata stripped (the orientation is already applied and the pixels are sRGB). The buffer
// is freed with splashd_vips_free. optimize_coding makes libjpeg hold every DCT coefficient of the image
// for a second pass: 140 MB more for a 24-megapixel photo, for a file about 4 % smaller; the caller asks
// for it only for small images.
int splashd_vips_jpegsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality, int optimize);
/// The same, written to the open file `fd` from its offset (left open, not synced).
int splashd_vips_jpegsave_fd(VipsImage *in, int fd, int quality, int optimize);
// Raw 8-bit pixels of a small image (the perceptual hash reads them); freed with splashd_vips_free.
void *splashd_vips_write_memory(VipsImage *in, size_t *size);
void splashd_vips_free(void *memory);
// Asks the computation of `image` to stop: a save running on it (on any thread) fails soon after
// with "killed for image", at the next tile. Safe to call from another thread while it runs.
void splashd_vips_kill(VipsImage *image);
int splashd_vips_orientation_swaps(VipsImage *in);
int splashd_vips_orientation(VipsImage *in);
// The loader libvips would use for the file ("VipsForeignLoadJpegFile"…), NULL when none reads it.
const char *splashd_vips_find_loader(const char *path);
// A string field of the header (EXIF tags arrive as "exif-ifd2-DateTimeOriginal" and the like), or
// NULL when there is none; the string belongs to the image.
const char *splashd_vips_header_string(VipsImage *image, const char *name);
void splashd_vips_unref(VipsImage *image);
int splashd_vips_width(VipsImage *image);
int splashd_vips_height(VipsImage *image);
int splashd_vips_bands(VipsImage *image);
int splashd_vips_hasalpha(VipsImage *image);

#endif
