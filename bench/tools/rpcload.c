/* rpcload: N clients, each on its own connection to a Unix socket, each sending one request line and
 * reading one reply line at a time (as splashd's protocol requires), for a fixed time. The same tool
 * drives splashd (a JSON-RPC line) and redis-server (an inline "PING\r\n", answered "+PONG\r\n"), so
 * both sides pay the same client costs. Prints one JSON object: requests, seconds, rps, p50/p99 µs. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *path, *request;
static size_t request_len;
static double seconds;
#define MAX_SAMPLES 2000000

typedef struct { long count; double *lat; long nlat; int error; } result_t;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static void *client(void *arg) {
    result_t *r = arg;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { r->error = 1; return NULL; }
    char buf[1 << 16];
    r->lat = malloc(sizeof(double) * MAX_SAMPLES);
    double end = now() + seconds;
    for (;;) {
        double t0 = now();
        if (t0 > end) break;
        if (write(fd, request, request_len) != (ssize_t)request_len) { r->error = 2; break; }
        for (;;) {  /* one reply line; replies are small, so the newline ends the read */
            ssize_t n = read(fd, buf, sizeof buf);
            if (n <= 0) { r->error = 3; goto done; }
            if (memchr(buf, '\n', n)) break;
        }
        double t1 = now();
        if (r->nlat < MAX_SAMPLES) r->lat[r->nlat++] = t1 - t0;
        r->count++;
    }
done:
    close(fd);
    return NULL;
}

static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: rpcload SOCKET CLIENTS SECONDS REQUEST\n"); return 64; }
    path = argv[1];
    int clients = atoi(argv[2]);
    seconds = atof(argv[3]);
    size_t n = strlen(argv[4]);
    char *req = malloc(n + 3);
    memcpy(req, argv[4], n);
    if (argv[4][0] == '{') req[n++] = '\n'; else { req[n++] = '\r'; req[n++] = '\n'; }
    request = req; request_len = n;
    pthread_t *th = calloc(clients, sizeof *th);
    result_t *res = calloc(clients, sizeof *res);
    double t0 = now();
    for (int i = 0; i < clients; i++) pthread_create(&th[i], NULL, client, &res[i]);
    long total = 0, nlat = 0; int errors = 0;
    for (int i = 0; i < clients; i++) { pthread_join(th[i], NULL); total += res[i].count; nlat += res[i].nlat; errors += res[i].error != 0; }
    double elapsed = now() - t0;
    double *all = malloc(sizeof(double) * (nlat ? nlat : 1));
    long k = 0;
    for (int i = 0; i < clients; i++) { memcpy(all + k, res[i].lat, sizeof(double) * res[i].nlat); k += res[i].nlat; }
    qsort(all, nlat, sizeof(double), cmp);
    double p50 = nlat ? all[(long)(nlat * 0.50)] : 0, p99 = nlat ? all[(long)(nlat * 0.99)] : 0;
    printf("{\"clients\": %d, \"requests\": %ld, \"seconds\": %.4f, \"rps\": %.1f, \"p50_us\": %.2f, \"p99_us\": %.2f, \"errors\": %d}\n",
           clients, total, elapsed, total / elapsed, p50 * 1e6, p99 * 1e6, errors);
    return errors ? 1 : 0;
}
