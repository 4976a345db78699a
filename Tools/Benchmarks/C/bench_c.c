/*
 * The C baselines of `make bench`: what libcurl and zlib do with no Swift in the way, written for this repository.
 *
 *   bench-c c <workload> --base URL [--requests N] [--concurrency N] [--bytes N] [--file PATH] [--out PATH]
 *           [--max-seconds S]
 *
 * Same command line and output as the Swift `bench-client`: one JSON line with the figure (requests/s or MiB/s),
 * the peak RSS (VmHWM; getrusage's ru_maxrss too), the counts and the errors. Every response is checked (status 200
 * and byte count), so a broken run reports errors instead of looking fast.
 *
 * Workloads:
 *   idle             nothing: the peak RSS of the process itself
 *   get-seq          one easy handle reused for N sequential GETs of /100b.bin (keep-alive)
 *   get-concurrent   one multi handle with --concurrency easy handles, N GETs of /100b.bin in all
 *   download-stream  GET /100m.bin, the write callback discards
 *   download-collect GET /100m.bin into a buffer grown by doubling (no pre-sizing: "the C buffer figure")
 *   download-file    GET /100m.bin written to --out with write(2)
 *   upload-file      POST --file to /upload from a read callback; the sink answers {"received":N}
 *   gzip-decode      zlib inflate of the gzip file --file from memory (no network); --bytes is the decoded size
 *   api-mix          the requests of --plan (method, path and query, header values, JSON body) in turn, --requests
 *                    in all with --concurrency easy handles on one multi handle; each body's byte count is checked
 *                    (no decoding: the transfer floor). --ca: the CA file for an https base (HTTP/2 over TLS).
 *                    Adds CPU µs per request and p50/p99 latency (ms) to the JSON line.
 *
 * Built by `make bench` with gcc -O2 against Debian's libcurl4-openssl-dev and zlib1g-dev.
 */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define MIB (1024.0 * 1024.0)
#define RECEIVE_BUFFER (256L * 1024L) /* CurlTransport's default receive buffer; used for uploads too */

static const char *base = "http://127.0.0.1:8080";
static long requests = 1000;
static long concurrency = 32;
static long long expected_bytes = -1;
static const char *file_path = NULL;
static const char *out_path = NULL;
static double max_seconds = 0; /* > 0: a GET workload stops starting requests after this long */
static const char *plan_path = NULL;
static const char *ca_path = NULL;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ru_maxrss (KiB on Linux). It keeps the high-water mark of the image before execve, which is the runner's. */
static double ru_maxrss_mib(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (double)usage.ru_maxrss / 1024.0;
}

/* Peak RSS of this program alone: VmHWM of /proc/self/status, else ru_maxrss. */
static double peak_rss_mib(void) {
  FILE *status = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (status && fgets(line, sizeof line, status))
    if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
  if (status) fclose(status);
  return kib >= 0 ? (double)kib / 1024.0 : ru_maxrss_mib();
}

static void report(const char *workload, double value, const char *unit, double seconds, long count,
                   long long bytes, long errors, const char *detail) {
  printf("{\"contender\":\"c\",\"workload\":\"%s\",\"value\":%.3f,\"unit\":\"%s\",\"seconds\":%.6f,"
         "\"peak_rss_mib\":%.2f,\"ru_maxrss_mib\":%.2f,\"requests\":%ld,\"bytes\":%lld,\"errors\":%ld,"
         "\"detail\":\"%s\"}\n",
         workload, value, unit, seconds, peak_rss_mib(), ru_maxrss_mib(), count, bytes, errors, detail ? detail : "");
  fflush(stdout);
}

static void fail(const char *workload, const char *message) {
  report(workload, 0, "", 0, 0, 0, 1, message);
  exit(1);
}

/* ---- write callbacks ---------------------------------------------------------------------------------------- */

static size_t count_only(char *data, size_t size, size_t n, void *user) {
  (void)data;
  *(long long *)user += (long long)(size * n);
  return size * n;
}

struct growing {
  char *bytes;
  size_t length, capacity;
};

static size_t append(char *data, size_t size, size_t n, void *user) {
  struct growing *buffer = user;
  size_t count = size * n;
  if (buffer->length + count > buffer->capacity) {
    size_t capacity = buffer->capacity ? buffer->capacity : 16384;
    while (capacity < buffer->length + count) capacity *= 2;
    char *grown = realloc(buffer->bytes, capacity);
    if (!grown) return 0;
    buffer->bytes = grown;
    buffer->capacity = capacity;
  }
  memcpy(buffer->bytes + buffer->length, data, count);
  buffer->length += count;
  return count;
}

struct file_sink {
  int fd;
  long long written;
};

static size_t to_file(char *data, size_t size, size_t n, void *user) {
  struct file_sink *sink = user;
  size_t count = size * n, done = 0;
  while (done < count) {
    ssize_t result = write(sink->fd, data + done, count - done);
    if (result < 0) {
      if (errno == EINTR) continue;
      return 0;
    }
    done += (size_t)result;
  }
  sink->written += (long long)count;
  return count;
}

static size_t from_file(char *buffer, size_t size, size_t n, void *user) {
  int fd = *(int *)user;
  ssize_t result;
  do {
    result = read(fd, buffer, size * n);
  } while (result < 0 && errno == EINTR);
  return result < 0 ? CURL_READFUNC_ABORT : (size_t)result;
}

/* ---- workloads ------------------------------------------------------------------------------------------------ */

static CURL *new_easy(const char *url) {
  CURL *easy = curl_easy_init();
  curl_easy_setopt(easy, CURLOPT_URL, url);
  curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, RECEIVE_BUFFER);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  return easy;
}

/* One GET on a reused handle; returns 0 when the status is 200 and the body has the expected size. */
static int checked_get(CURL *easy, long long *received) {
  *received = 0;
  CURLcode code = curl_easy_perform(easy);
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  return code == CURLE_OK && status == 200 && *received == expected_bytes ? 0 : 1;
}

static void get_sequential(void) {
  char url[512];
  snprintf(url, sizeof url, "%s/100b.bin", base);
  CURL *easy = new_easy(url);
  long long received = 0;
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_only);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &received);
  long errors = 0;
  for (int i = 0; i < 100; i++) errors += checked_get(easy, &received); /* warm-up: connect once */
  long long bytes = 0;
  long done = 0;
  double start = now();
  while (done < requests) {
    if (done % 64 == 0 && max_seconds > 0 && now() - start >= max_seconds) break;
    done++;
    errors += checked_get(easy, &received);
    bytes += received;
  }
  double seconds = now() - start;
  curl_easy_cleanup(easy);
  report("get-seq", (double)done / seconds, "req/s", seconds, done, bytes, errors, "");
}

struct slot {
  CURL *easy;
  long long received;
};

/* Runs `total` GETs with `width` easy handles on one multi handle, starting none after `deadline` (when > 0);
 * returns the number of failed responses and sets *done to the number of responses. */
static long run_multi(CURLM *multi, struct slot *slots, long width, long total, double deadline, long long *bytes,
                      long *done) {
  long started = 0, finished = 0, errors = 0;
  for (long i = 0; i < width && started < total; i++, started++) {
    slots[i].received = 0;
    curl_multi_add_handle(multi, slots[i].easy);
  }
  while (finished < started) {
    int running = 0;
    curl_multi_perform(multi, &running);
    CURLMsg *message;
    int left;
    while ((message = curl_multi_info_read(multi, &left))) {
      if (message->msg != CURLMSG_DONE) continue;
      CURL *easy = message->easy_handle;
      struct slot *slot = NULL;
      curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&slot);
      long status = 0;
      curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
      if (message->data.result != CURLE_OK || status != 200 || slot->received != expected_bytes) errors++;
      *bytes += slot->received;
      finished++;
      curl_multi_remove_handle(multi, easy);
      if (started < total && (deadline <= 0 || now() < deadline)) {
        slot->received = 0;
        curl_multi_add_handle(multi, easy);
        started++;
      }
    }
    if (finished < started) curl_multi_poll(multi, NULL, 0, 1000, NULL);
  }
  *done = finished;
  return errors;
}

static void get_concurrent(void) {
  char url[512];
  snprintf(url, sizeof url, "%s/100b.bin", base);
  CURLM *multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, concurrency);
  struct slot *slots = calloc((size_t)concurrency, sizeof *slots);
  for (long i = 0; i < concurrency; i++) {
    slots[i].easy = new_easy(url);
    curl_easy_setopt(slots[i].easy, CURLOPT_WRITEFUNCTION, count_only);
    curl_easy_setopt(slots[i].easy, CURLOPT_WRITEDATA, &slots[i].received);
    curl_easy_setopt(slots[i].easy, CURLOPT_PRIVATE, (char *)&slots[i]);
  }
  long long bytes = 0;
  long done = 0;
  long errors = run_multi(multi, slots, concurrency, concurrency * 4, 0, &bytes, &done); /* warm-up: connect */
  bytes = 0;
  double start = now();
  errors += run_multi(multi, slots, concurrency, requests, max_seconds > 0 ? start + max_seconds : 0, &bytes, &done);
  double seconds = now() - start;
  for (long i = 0; i < concurrency; i++) curl_easy_cleanup(slots[i].easy);
  curl_multi_cleanup(multi);
  free(slots);
  char detail[64];
  snprintf(detail, sizeof detail, "concurrency %ld", concurrency);
  report("get-concurrent", (double)done / seconds, "req/s", seconds, done, bytes, errors, detail);
}

static void download(const char *workload) {
  char url[512];
  snprintf(url, sizeof url, "%s/100m.bin", base);
  CURL *easy = new_easy(url);
  long long received = 0;
  struct growing buffer = {0};
  struct file_sink sink = {-1, 0};
  if (strcmp(workload, "download-stream") == 0) {
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_only);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &received);
  } else if (strcmp(workload, "download-collect") == 0) {
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, append);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &buffer);
  } else {
    if (!out_path) fail(workload, "--out is required");
    sink.fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (sink.fd < 0) fail(workload, "cannot open --out");
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, to_file);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &sink);
  }
  double start = now();
  CURLcode code = curl_easy_perform(easy);
  double seconds = now() - start;
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  if (buffer.bytes) received = (long long)buffer.length;
  if (sink.fd >= 0) {
    received = sink.written;
    close(sink.fd);
    struct stat info;
    if (stat(out_path, &info) != 0 || info.st_size != received) received = -1;
  }
  long errors = code == CURLE_OK && status == 200 && received == expected_bytes ? 0 : 1;
  report(workload, (double)received / MIB / seconds, "MiB/s", seconds, 1, received, errors, "");
  free(buffer.bytes);
  curl_easy_cleanup(easy);
}

static void upload(void) {
  if (!file_path) fail("upload-file", "--file is required");
  int fd = open(file_path, O_RDONLY);
  struct stat info;
  if (fd < 0 || fstat(fd, &info) != 0) fail("upload-file", "cannot open --file");
  char url[512];
  snprintf(url, sizeof url, "%s/upload", base);
  CURL *easy = new_easy(url);
  struct growing answer = {0};
  struct curl_slist *headers = curl_slist_append(NULL, "Expect:");
  headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
  curl_easy_setopt(easy, CURLOPT_UPLOAD_BUFFERSIZE, RECEIVE_BUFFER); /* libcurl's default is 64 KiB */
  curl_easy_setopt(easy, CURLOPT_POST, 1L);
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)info.st_size);
  curl_easy_setopt(easy, CURLOPT_READFUNCTION, from_file);
  curl_easy_setopt(easy, CURLOPT_READDATA, &fd);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &answer);
  double start = now();
  CURLcode code = curl_easy_perform(easy);
  double seconds = now() - start;
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  char expected[64];
  snprintf(expected, sizeof expected, "\"received\":%lld}", (long long)info.st_size);
  append("", 1, 1, &answer); /* NUL-terminate the answer */
  long errors = code == CURLE_OK && status == 200 && strstr(answer.bytes, expected) ? 0 : 1;
  report("upload-file", (double)info.st_size / MIB / seconds, "MiB/s", seconds, 1, (long long)info.st_size, errors,
         "");
  curl_slist_free_all(headers);
  curl_easy_cleanup(easy);
  free(answer.bytes);
  close(fd);
}

static void gzip_decode(void) {
  if (!file_path) fail("gzip-decode", "--file is required");
  FILE *file = fopen(file_path, "rb");
  if (!file) fail("gzip-decode", "cannot open --file");
  struct growing compressed = {0};
  char chunk[1 << 16];
  size_t count;
  while ((count = fread(chunk, 1, sizeof chunk, file)) > 0) append(chunk, 1, count, &compressed);
  fclose(file);
  static unsigned char out[RECEIVE_BUFFER];
  z_stream stream;
  memset(&stream, 0, sizeof stream);
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) fail("gzip-decode", "inflateInit2 failed");
  double start = now();
  stream.next_in = (unsigned char *)compressed.bytes;
  stream.avail_in = (uInt)compressed.length;
  long long decoded = 0;
  int result;
  do {
    stream.next_out = out;
    stream.avail_out = sizeof out;
    result = inflate(&stream, Z_NO_FLUSH);
    decoded += (long long)(sizeof out - stream.avail_out);
  } while (result == Z_OK);
  double seconds = now() - start;
  inflateEnd(&stream);
  long errors = result == Z_STREAM_END && decoded == expected_bytes ? 0 : 1;
  report("gzip-decode", (double)decoded / MIB / seconds, "MiB/s", seconds, 1, decoded, errors, "zlib inflate");
  free(compressed.bytes);
}

/* ---- api-mix -------------------------------------------------------------------------------------------------- */

/* One request of the plan (Scripts/bench.py writes it: tab-separated method, path, expected bytes, expected records,
 * X-Request-Id, Accept-Language, JSON body or "-"). */
struct call {
  int post;
  char *url;
  long long bytes;
  struct curl_slist *headers;
  char *body;
  long body_length;
};

static struct call *read_plan(long *count) {
  FILE *file = fopen(plan_path, "r");
  if (!file) fail("api-mix", "cannot open --plan");
  struct call *calls = NULL;
  long capacity = 0;
  *count = 0;
  char *line = NULL;
  size_t size = 0;
  while (getline(&line, &size, file) > 0) {
    line[strcspn(line, "\n")] = 0;
    char *field[7];
    char *cursor = line;
    for (int i = 0; i < 7; i++) field[i] = strsep(&cursor, "\t");
    if (!field[6]) fail("api-mix", "malformed plan line");
    if (*count == capacity) {
      capacity = capacity ? capacity * 2 : 1024;
      calls = realloc(calls, (size_t)capacity * sizeof *calls);
    }
    struct call *call = &calls[(*count)++];
    call->post = strcmp(field[0], "POST") == 0;
    if (asprintf(&call->url, "%s%s", base, field[1]) < 0) fail("api-mix", "out of memory");
    call->bytes = atoll(field[2]);
    char header[512];
    call->headers = curl_slist_append(NULL, "Accept: application/json");
    snprintf(header, sizeof header, "X-Request-Id: %s", field[4]);
    call->headers = curl_slist_append(call->headers, header);
    snprintf(header, sizeof header, "Accept-Language: %s", field[5]);
    call->headers = curl_slist_append(call->headers, header);
    call->body = NULL;
    call->body_length = 0;
    if (call->post) {
      call->headers = curl_slist_append(call->headers, "Content-Type: application/json");
      call->headers = curl_slist_append(call->headers, "Expect:");
      call->body = strdup(field[6]);
      call->body_length = (long)strlen(call->body);
    }
  }
  free(line);
  fclose(file);
  if (*count == 0) fail("api-mix", "empty plan");
  return calls;
}

struct api_slot {
  CURL *easy;
  long long received;
  long call;
  double started;
};

static void api_start(CURLM *multi, struct api_slot *slot, struct call *calls, long count, long number) {
  struct call *call = &calls[number % count];
  CURL *easy = slot->easy;
  curl_easy_setopt(easy, CURLOPT_URL, call->url);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, call->headers);
  if (call->post) {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, call->body);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, call->body_length);
  } else {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  }
  slot->received = 0;
  slot->call = number % count;
  slot->started = now();
  curl_multi_add_handle(multi, easy);
}

/* Runs requests [first, first + total) of the plan with `width` handles; latencies (seconds) go to `latencies`
 * when not NULL. Returns the errors; *done, *bytes: responses and body bytes. */
static long api_run(CURLM *multi, struct api_slot *slots, long width, struct call *calls, long count, long first,
                    long total, double deadline, double *latencies, long *done, long long *bytes) {
  long started = 0, finished = 0, errors = 0;
  for (long i = 0; i < width && started < total; i++, started++) api_start(multi, &slots[i], calls, count, first + i);
  while (finished < started) {
    int running = 0;
    curl_multi_perform(multi, &running);
    CURLMsg *message;
    int left;
    while ((message = curl_multi_info_read(multi, &left))) {
      if (message->msg != CURLMSG_DONE) continue;
      CURL *easy = message->easy_handle;
      struct api_slot *slot = NULL;
      curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&slot);
      long status = 0;
      curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
      if (message->data.result != CURLE_OK || status != 200 || slot->received != calls[slot->call].bytes) errors++;
      if (latencies) latencies[finished] = now() - slot->started;
      *bytes += slot->received;
      finished++;
      curl_multi_remove_handle(multi, easy);
      if (started < total && (deadline <= 0 || now() < deadline)) {
        api_start(multi, slot, calls, count, first + started);
        started++;
      }
    }
    if (finished < started) curl_multi_poll(multi, NULL, 0, 1000, NULL);
  }
  *done = finished;
  return errors;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double cpu_seconds(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec +
         (double)usage.ru_stime.tv_usec / 1e6;
}

static void api_mix(void) {
  if (!plan_path) fail("api-mix", "--plan is required");
  long count = 0;
  struct call *calls = read_plan(&count);
  int tls = strncmp(base, "https:", 6) == 0;
  CURLM *multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, concurrency);
  struct api_slot *slots = calloc((size_t)concurrency, sizeof *slots);
  for (long i = 0; i < concurrency; i++) {
    slots[i].easy = new_easy(base);
    curl_easy_setopt(slots[i].easy, CURLOPT_WRITEFUNCTION, count_only);
    curl_easy_setopt(slots[i].easy, CURLOPT_WRITEDATA, &slots[i].received);
    curl_easy_setopt(slots[i].easy, CURLOPT_PRIVATE, (char *)&slots[i]);
    if (tls) {
      curl_easy_setopt(slots[i].easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
      curl_easy_setopt(slots[i].easy, CURLOPT_PIPEWAIT, 1L); /* multiplex on the open connection, as CurlTransport */
      if (ca_path) curl_easy_setopt(slots[i].easy, CURLOPT_CAINFO, ca_path);
    }
  }
  long long bytes = 0;
  long done = 0;
  long warm = concurrency * 2;
  long errors = api_run(multi, slots, concurrency, calls, count, 0, warm, 0, NULL, &done, &bytes); /* connect */
  long version = 0;
  curl_easy_getinfo(slots[0].easy, CURLINFO_HTTP_VERSION, &version);
  bytes = 0;
  double *latencies = calloc((size_t)requests, sizeof *latencies);
  double cpu = cpu_seconds();
  double start = now();
  errors += api_run(multi, slots, concurrency, calls, count, warm, requests, max_seconds > 0 ? start + max_seconds : 0,
                    latencies, &done, &bytes);
  double seconds = now() - start;
  cpu = cpu_seconds() - cpu;
  qsort(latencies, (size_t)done, sizeof *latencies, compare_doubles);
  double p50 = done ? latencies[(done - 1) / 2] : 0, p99 = done ? latencies[(long)((double)(done - 1) * 0.99)] : 0;
  char detail[96];
  snprintf(detail, sizeof detail, "concurrency %ld, HTTP/%s", concurrency,
           version == CURL_HTTP_VERSION_2_0 ? "2" : version == CURL_HTTP_VERSION_1_1 ? "1.1" : "?");
  printf("{\"contender\":\"c\",\"workload\":\"api-mix\",\"value\":%.3f,\"unit\":\"req/s\",\"seconds\":%.6f,"
         "\"peak_rss_mib\":%.2f,\"ru_maxrss_mib\":%.2f,\"requests\":%ld,\"bytes\":%lld,\"errors\":%ld,"
         "\"cpu_us_per_request\":%.2f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"detail\":\"%s\"}\n",
         (double)done / seconds, seconds, peak_rss_mib(), ru_maxrss_mib(), done, bytes, errors,
         done ? cpu * 1e6 / (double)done : 0, p50 * 1e3, p99 * 1e3, detail);
  fflush(stdout);
  for (long i = 0; i < concurrency; i++) curl_easy_cleanup(slots[i].easy);
  curl_multi_cleanup(multi);
  for (long i = 0; i < count; i++) {
    free(calls[i].url);
    free(calls[i].body);
    curl_slist_free_all(calls[i].headers);
  }
  free(calls);
  free(slots);
  free(latencies);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: bench-c c <workload> --base URL [--requests N] [--concurrency N] [--bytes N] "
                    "[--file PATH] [--out PATH] [--max-seconds S] [--plan PATH] [--ca PATH]\n");
    return 2;
  }
  const char *workload = argv[2];
  for (int i = 3; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--base") == 0) base = argv[i + 1];
    else if (strcmp(argv[i], "--requests") == 0) requests = atol(argv[i + 1]);
    else if (strcmp(argv[i], "--concurrency") == 0) concurrency = atol(argv[i + 1]);
    else if (strcmp(argv[i], "--bytes") == 0) expected_bytes = atoll(argv[i + 1]);
    else if (strcmp(argv[i], "--file") == 0) file_path = argv[i + 1];
    else if (strcmp(argv[i], "--out") == 0) out_path = argv[i + 1];
    else if (strcmp(argv[i], "--max-seconds") == 0) max_seconds = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--plan") == 0) plan_path = argv[i + 1];
    else if (strcmp(argv[i], "--ca") == 0) ca_path = argv[i + 1];
    else fail(workload, "unknown option");
  }
  if (requests < 1 || concurrency < 1) fail(workload, "--requests and --concurrency must be positive");
  curl_global_init(CURL_GLOBAL_DEFAULT);
  if (strcmp(workload, "idle") == 0) report("idle", 0, "", 0, 0, 0, 0, ""); /* the process's floor */
  else if (strcmp(workload, "get-seq") == 0) get_sequential();
  else if (strcmp(workload, "get-concurrent") == 0) get_concurrent();
  else if (strncmp(workload, "download-", 9) == 0) download(workload);
  else if (strcmp(workload, "upload-file") == 0) upload();
  else if (strcmp(workload, "gzip-decode") == 0) gzip_decode();
  else if (strcmp(workload, "api-mix") == 0) api_mix();
  else fail(workload, "unknown workload");
  curl_global_cleanup();
  return 0;
}
