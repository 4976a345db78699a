// bench-simdjson: the physical reference of the Codable JSON rows: simdjson's DOM parse (validation and its tape,
// strings unescaped) of the api-mix files, with the command line and JSON line of bench-json:
//
//   bench-simdjson parse --dir ITEMS [--stride S] [--warmup W] [--repeats R] [--passes N]
//
// Built by `make bench-build` (g++ -O2, Debian's libsimdjson-dev); run by Scripts/bench.py (`--json`).

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <limits>
#include <string>
#include <vector>

static int count_option(const char *value, int least) {
  char *end = nullptr;
  long number = std::strtol(value, &end, 10);
  if (*value == '\0' || *end != '\0' || number < least || number > 1000000) {
    std::fprintf(stderr, "bench-simdjson: %s: expected an integer >= %d\n", value, least);
    std::exit(2);
  }
  return static_cast<int>(number);
}

int main(int argc, char **argv) {
  if (argc < 2 || std::strcmp(argv[1], "parse") != 0) {
    std::fprintf(stderr, "usage: bench-simdjson parse --dir ITEMS [--stride S] [--warmup W] [--repeats R] "
                         "[--passes N]\n");
    return 2;
  }
  std::string directory;
  int stride = 1, warmup = 1, repeats = 5, passes = 1;
  for (int index = 2; index + 1 < argc; index += 2) {
    const char *name = argv[index], *value = argv[index + 1];
    if (!std::strcmp(name, "--dir")) directory = value;
    else if (!std::strcmp(name, "--stride")) stride = count_option(value, 1);
    else if (!std::strcmp(name, "--warmup")) warmup = count_option(value, 0);
    else if (!std::strcmp(name, "--repeats")) repeats = count_option(value, 1);
    else if (!std::strcmp(name, "--passes")) passes = count_option(value, 1);
    else if (!std::strcmp(name, "--plan")) continue;  // the decode rows take no plan; accepted as bench-json does
    else {
      std::fprintf(stderr, "bench-simdjson: unknown option %s\n", name);
      return 2;
    }
  }

  // The files in the order of their numbers, every stride-th one, each padded as simdjson reads it.
  std::vector<int> numbers;
  DIR *folder = opendir(directory.c_str());
  if (!folder) {
    std::fprintf(stderr, "bench-simdjson: cannot open %s\n", directory.c_str());
    return 1;
  }
  while (dirent *entry = readdir(folder)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 &&
        name.find_first_not_of("0123456789") == name.size() - 5) {
      numbers.push_back(std::atoi(name.c_str()));
    }
  }
  closedir(folder);
  std::sort(numbers.begin(), numbers.end());
  std::vector<simdjson::padded_string> files;
  size_t bytes = 0;
  for (size_t index = 0; index < numbers.size(); index += stride) {
    auto loaded = simdjson::padded_string::load(directory + "/" + std::to_string(numbers[index]) + ".json");
    if (loaded.error()) {
      std::fprintf(stderr, "bench-simdjson: cannot read file %d\n", numbers[index]);
      return 1;
    }
    files.push_back(std::move(loaded).value_unsafe());
    bytes += files.back().size();
  }
  if (files.empty()) {
    std::fprintf(stderr, "bench-simdjson: no <n>.json files in %s\n", directory.c_str());
    return 1;
  }

  // One parser, reused, as simdjson is meant to be used; a pass counts the records of every array.
  simdjson::dom::parser parser;
  auto pass = [&]() -> size_t {
    size_t records = 0;
    for (const auto &file : files) {
      simdjson::dom::array array;
      if (parser.parse(file).get_array().get(array)) {
        std::fprintf(stderr, "bench-simdjson: a file is not a JSON array\n");
        std::exit(1);
      }
      records += array.size();
    }
    return records;
  };
  size_t result = 0;
  for (int round = 0; round < warmup; round++) result += pass();
  double best = std::numeric_limits<double>::infinity();
  for (int round = 0; round < repeats; round++) {
    auto start = std::chrono::steady_clock::now();
    for (int index = 0; index < passes; index++) result += pass();
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count() / passes);
  }
  std::printf("{\"contender\":\"simdjson\",\"bytes\":%zu,\"seconds\":%.9f,\"mb_per_s\":%.3f,\"passes\":%d,"
              "\"repeats\":%d,\"result\":%zu,\"implementation\":\"%s\"}\n",
              bytes, best, bytes / best / 1e6, passes, repeats, result,
              simdjson::get_active_implementation()->name().c_str());
  return 0;
}
